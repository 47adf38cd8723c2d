'use client';

import { ValueField } from '../ui/ValueField';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { psqlCommand, type TenantView } from './databases';
import styles from './databases.module.css';

/**
 * The credentials of a database as creation and rotation answer them, the only times the password
 * is sent: each value with its copy button. Closing the dialog forgets them.
 */
export function CredentialsDialog({ tenant, title, onClose }: { tenant: TenantView | null; title: string; onClose: () => void }) {
  return (
    <Dialog
      open={tenant !== null}
      onClose={onClose}
      title={title}
      description={tenant ? `Every connection to ${tenant.dbName} must use TLS (sslmode=require).` : undefined}
      footer={
        <Button variant="primary" onClick={onClose}>
          I have copied them
        </Button>
      }
    >
      {tenant ? (
        <div className={styles.credentials}>
          <Alert tone="warning" title="The password is shown only now — copy it">
            It is not stored. If it is lost, rotate the password to get a new one.
          </Alert>
          <ValueField label="User" value={tenant.dbUser} testId="credentials-user" />
          <ValueField label="Password" value={tenant.dbPassword ?? ''} testId="credentials-password" />
          <ValueField label="Connection string" value={tenant.connectionUri} testId="credentials-uri" />
          {tenant.poolConnectionUri ? <ValueField label="Pooled connection string" value={tenant.poolConnectionUri} testId="credentials-pool-uri" /> : null}
          <ValueField label="psql command" value={psqlCommand(tenant.connectionUri)} testId="credentials-psql" />
        </div>
      ) : null}
    </Dialog>
  );
}
