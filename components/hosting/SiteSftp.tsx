'use client';

import { skipToken, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useProject } from '../projects/ProjectContext';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { Icon } from '../ui/Icon';
import { sftpCommand, type SiteView } from './hosting';
import { ValueField } from '../ui/ValueField';
import styles from './hosting.module.css';

const HIDDEN = '•'.repeat(16);

export function SiteSftp({ site }: { site: SiteView }) {
  const project = useProject();
  const trpc = useTRPC();
  const [revealed, setRevealed] = useState(false);
  // The password comes only from a read that asks for it; it is fetched when Reveal is pressed, not with the page.
  const credentials = useQuery(
    trpc.hosting.get.queryOptions(revealed ? { projectId: project.id, tenantId: site.tenantId, credentials: 'true' } : skipToken, { staleTime: Infinity }),
  );
  const password = revealed ? credentials.data?.sftpPassword : undefined;
  const { sftp } = site;

  return (
    <div className="stack-lg">
      {site.status === 'SUSPENDED' ? (
        <Alert tone="warning" title="SFTP is closed while the site is suspended">
          Logins are refused until the unpaid invoice is paid. The details below stay the same.
        </Alert>
      ) : null}
      <Card
        title="SFTP"
        description="Upload and manage the site’s files with any SFTP client (FileZilla, Cyberduck, WinSCP, sftp). Every login is confined to the site’s home folder."
        actions={
          <Button size="sm" onClick={() => setRevealed(!revealed)} aria-pressed={revealed} loading={revealed && credentials.isPending}>
            <Icon name={revealed ? 'lock' : 'key'} size={14} /> {revealed ? 'Hide password' : 'Reveal password'}
          </Button>
        }
      >
        <div className="stack-lg">
          <div className={styles.connectGrid}>
            <ValueField label="Host" value={sftp.host} testId="sftp-host" />
            <ValueField label="Port" value={String(sftp.port)} testId="sftp-port" />
            <ValueField label="Username" value={sftp.username} testId="sftp-username" />
            <div>
              <ValueField label="Password" value={password ?? ''} shown={password ?? HIDDEN} copy={password !== undefined} testId="sftp-password" />
              {credentials.isError ? (
                <p className="field-error" role="alert">
                  {errorMessage(credentials.error)}
                </p>
              ) : null}
            </div>
          </div>
          <ValueField
            label="Command"
            value={sftpCommand(sftp)}
            testId="sftp-command"
            hint="Run it in a terminal and enter the password when asked. The port is the same for every site; the username selects this one."
          />
          <p className={styles.note}>
            Protocol SFTP only: plain FTP and FTPS are not offered, and there is no shell access. The web server serves{' '}
            <span className="mono">public_html</span> of the home on the site’s own address.
          </p>
        </div>
      </Card>
    </div>
  );
}
