'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import type { HostingDomainKind } from '@/db/schema/hosting';
import { formatDateTime, formatRelative } from '../format';
import { hasRole, useProject } from '../projects/ProjectContext';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { DataList } from '../ui/DataList';
import { Dialog } from '../ui/Dialog';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { Input } from '../ui/Input';
import { OptionCards } from '../ui/OptionCards';
import { SubmitButton } from '../ui/SubmitButton';
import type { Column } from '../ui/Table';
import { useToast } from '../ui/Toast';
import { FileIcon } from './FileIcon';
import { TIER_LABELS, type AttachedDomain, type DomainView, type SiteView } from './hosting';
import { ValueField } from '../ui/ValueField';
import wizard from '../ui/Wizard.module.css';
import styles from './hosting.module.css';

const KINDS: readonly { kind: HostingDomainKind; title: string; meta: string }[] = [
  { kind: 'SITE', title: 'Serve the site', meta: 'Files from a folder of the site’s home, with PHP' },
  { kind: 'REDIRECT', title: 'Redirect', meta: 'Send visitors to another address, keeping the path' },
  { kind: 'PARKED', title: 'Parked', meta: 'A placeholder page until the domain is used' },
];

const KIND_LABELS: Record<HostingDomainKind, string> = { SITE: 'Site', REDIRECT: 'Redirect', PARKED: 'Parked' };

/** A domain's behaviour as the forms edit it: every field kept, only the chosen kind's sent. */
interface BehaviourDraft {
  kind: HostingDomainKind;
  path: string;
  redirectTarget: string;
  redirectStatus: 301 | 302;
}

const EMPTY_DRAFT: BehaviourDraft = { kind: 'SITE', path: '', redirectTarget: '', redirectStatus: 301 };

export function SiteDomains({ site }: { site: SiteView }) {
  const project = useProject();
  const trpc = useTRPC();
  const canManage = hasRole(project, 'member');
  const domains = useQuery(trpc.hosting.listDomains.queryOptions({ projectId: project.id, tenantId: site.tenantId }));
  const [attaching, setAttaching] = useState(false);
  const [attached, setAttached] = useState<AttachedDomain | null>(null);
  const [editing, setEditing] = useState<DomainView | null>(null);
  const [detaching, setDetaching] = useState<DomainView | null>(null);
  const count = domains.data?.length ?? 0;
  const full = count >= site.limits.domains;

  const columns: Column<DomainView>[] = [
    {
      header: 'Hostname',
      cell: (domain) => (
        <div>
          <a href={`http://${domain.hostname}`} target="_blank" rel="noreferrer" className={`${styles.nameLink} mono`}>
            {domain.hostname}
          </a>
          <div className={`cell-sub ${styles.underName}`}>{behaviourText(domain)}</div>
        </div>
      ),
    },
    { header: 'Behaviour', className: 'hide-xs', cell: (domain) => <Behaviour domain={domain} /> },
    {
      header: 'Routing',
      cell: (domain) => (
        <span className={styles.rowActions}>
          <RoutingStatus status={domain.routingStatus} />
          {domain.routingStatus === 'VERIFYING' ? (
            <Button
              size="sm"
              variant="ghost"
              onClick={() => setAttached({ domainId: domain.id, hostname: domain.hostname, instructions: domain.instructions })}
            >
              DNS records
            </Button>
          ) : null}
        </span>
      ),
    },
    {
      header: 'Attached',
      className: 'hide-sm',
      cell: (domain) => <span title={formatDateTime(domain.createdAt)}>{formatRelative(domain.createdAt)}</span>,
    },
    ...(canManage
      ? [
          {
            header: <span className="visually-hidden">Actions</span>,
            className: styles.actionsCell,
            cell: (domain: DomainView) => (
              <span className={styles.rowActions}>
                <Button size="sm" variant="ghost" onClick={() => setEditing(domain)} aria-label={`Edit ${domain.hostname}`} title="Edit">
                  <Icon name="pencil" size={14} />
                </Button>
                <Button size="sm" variant="danger-ghost" onClick={() => setDetaching(domain)} aria-label={`Detach ${domain.hostname}`} title="Detach">
                  <Icon name="trash" size={14} />
                </Button>
              </span>
            ),
          },
        ]
      : []),
  ];

  return (
    <div className="stack-lg">
      {attached ? <InstructionsCard attached={attached} onDismiss={() => setAttached(null)} /> : null}
      <Card
        flush
        title="Domains"
        description={`${count} of ${site.limits.domains} domains on the ${TIER_LABELS[site.tier]} tier. Routing turns Active once the DNS records resolve and the certificate is issued; checked on every read.`}
        actions={
          <>
            <Button size="sm" onClick={() => void domains.refetch()} loading={domains.isFetching && !domains.isPending}>
              <FileIcon name="refresh" size={14} /> Check DNS
            </Button>
            {canManage ? (
              <Button
                size="sm"
                variant="primary"
                onClick={() => setAttaching(true)}
                disabled={full}
                title={full ? 'The tier’s domain limit is reached: detach one or change the tier' : undefined}
              >
                <Icon name="plus" size={14} /> Attach domain
              </Button>
            ) : null}
          </>
        }
      >
        <DataList
          label="Domains"
          query={domains}
          columns={columns}
          rowKey={(domain) => domain.id}
          loadingRows={2}
          empty={
            <EmptyState
              icon="globe"
              title="No domains attached"
              description={`The site answers on ${site.url.replace(/^https?:\/\//, '')}. Attach your own domain to serve it, redirect it or park it.`}
            />
          }
        />
      </Card>
      {canManage ? (
        <>
          <AttachDialog
            site={site}
            open={attaching}
            onClose={() => setAttaching(false)}
            onAttached={(result) => {
              setAttaching(false);
              setAttached(result);
            }}
          />
          <EditDialog site={site} domain={editing} onClose={() => setEditing(null)} />
          <DetachDialog site={site} domain={detaching} onClose={() => setDetaching(null)} />
        </>
      ) : null}
    </div>
  );
}

function behaviourText(domain: DomainView): string {
  if (domain.kind === 'REDIRECT') return `${domain.redirectStatus ?? 301} → ${domain.redirectTarget ?? ''}`;
  if (domain.kind === 'PARKED') return 'Parked page';
  return `Serves ${domain.documentRoot ?? ''}`;
}

function Behaviour({ domain }: { domain: DomainView }) {
  return (
    <div className={styles.behaviour}>
      <Badge tone={domain.kind === 'SITE' ? 'accent' : 'neutral'}>{KIND_LABELS[domain.kind]}</Badge>
      {domain.kind === 'SITE' ? (
        <span className="mono cell-sub" title="The folder served, relative to the site’s home">
          {domain.documentRoot}
        </span>
      ) : domain.kind === 'REDIRECT' ? (
        <span className="cell-sub">
          {domain.redirectStatus === 302 ? '302' : '301'} → <span className="mono">{domain.redirectTarget}</span>
        </span>
      ) : null}
    </div>
  );
}

function RoutingStatus({ status }: { status: DomainView['routingStatus'] }) {
  return status === 'ACTIVE' ? (
    <Badge tone="success" title="The DNS records are in place and the certificate is issued">
      Active
    </Badge>
  ) : (
    <Badge tone="warning" title="Waiting for the DNS records shown when the domain was attached">
      Verifying DNS
    </Badge>
  );
}

/** The records to make at the domain's DNS host: after attaching, and from the list while the domain is verifying. */
function InstructionsCard({ attached, onDismiss }: { attached: AttachedDomain; onDismiss: () => void }) {
  const { instructions } = attached;
  return (
    <Card
      aria-label={`DNS records for ${attached.hostname}`}
      title={`Make these DNS records for ${attached.hostname}`}
      description="Add both at the domain’s DNS host. The domain turns Active once they resolve; until then its row shows them again."
      actions={
        <Button size="sm" variant="ghost" onClick={onDismiss}>
          Done
        </Button>
      }
    >
      <div className={styles.records}>
        <div className={styles.record}>
          <h3 className={styles.recordTitle}>Routing</h3>
          <ValueField label="Type" value={instructions.recordType} testId="dns-record-type" />
          <ValueField label="Name" value={instructions.name} testId="dns-record-name" />
          <ValueField label="Value" value={instructions.value} testId="dns-record-value" />
        </div>
        <div className={styles.record}>
          <h3 className={styles.recordTitle}>Ownership</h3>
          <ValueField label="Type" value={instructions.ownershipVerification.type} testId="dns-txt-type" />
          <ValueField label="Name" value={instructions.ownershipVerification.name} testId="dns-txt-name" />
          <ValueField label="Value" value={instructions.ownershipVerification.value} testId="dns-txt-value" />
        </div>
      </div>
    </Card>
  );
}

/** Checked before sending, with the API's own rules; the API checks again and its refusal is shown too. */
function draftErrors(draft: BehaviourDraft): Partial<Record<'redirectTarget', string>> {
  if (draft.kind !== 'REDIRECT') return {};
  const target = draft.redirectTarget.trim();
  if (!target) return { redirectTarget: 'Enter the address to redirect to' };
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { redirectTarget: 'A full address such as https://example.com/new' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { redirectTarget: 'An http:// or https:// address' };
  if (target.includes('?')) return { redirectTarget: 'No query string: the requested path and query are appended' };
  return {};
}

/** Only the chosen kind's fields: the API refuses a field of another kind. */
function behaviourInput(draft: BehaviourDraft) {
  if (draft.kind === 'REDIRECT') return { kind: draft.kind, redirectTarget: draft.redirectTarget.trim(), redirectStatus: draft.redirectStatus };
  if (draft.kind === 'PARKED') return { kind: draft.kind };
  const path = draft.path.trim().replace(/^\/+/, '');
  return path ? { kind: draft.kind, path } : { kind: draft.kind };
}

function BehaviourFields({
  draft,
  onChange,
  hostname,
  errors,
}: {
  draft: BehaviourDraft;
  onChange: (draft: BehaviourDraft) => void;
  hostname: string;
  errors: Partial<Record<'redirectTarget', string>>;
}) {
  const kindLabel = useId();
  const statusLabel = useId();
  return (
    <>
      <div className="field">
        <span className="field-label" id={kindLabel}>
          What the domain does
        </span>
        <OptionCards
          labelledBy={kindLabel}
          name="kind"
          className={styles.stackedOptions}
          value={draft.kind}
          onChange={(kind) => onChange({ ...draft, kind })}
          options={KINDS.map((option) => ({ value: option.kind, title: option.title, body: <span className={wizard.optionMeta}>{option.meta}</span> }))}
        />
      </div>
      {draft.kind === 'SITE' ? (
        <Input
          label="Folder"
          name="path"
          optional
          value={draft.path}
          onChange={(event) => onChange({ ...draft, path: event.target.value })}
          autoComplete="off"
          spellCheck={false}
          placeholder={`${hostname || 'example.com'}/public_html`}
          hint="Relative to the site’s home; made when missing. Empty: <hostname>/public_html, or for a subdomain of a domain the site has, a folder inside that domain’s folder."
        />
      ) : null}
      {draft.kind === 'REDIRECT' ? (
        <>
          <Input
            label="Redirect to"
            name="redirectTarget"
            type="url"
            value={draft.redirectTarget}
            onChange={(event) => onChange({ ...draft, redirectTarget: event.target.value })}
            autoComplete="off"
            spellCheck={false}
            placeholder="https://www.example.com"
            hint="A full http:// or https:// address without a query string. The requested path and query are appended to it."
            error={errors.redirectTarget}
          />
          <div className="field">
            <span className="field-label" id={statusLabel}>
              Redirect status
            </span>
            <OptionCards
              labelledBy={statusLabel}
              name="redirectStatus"
              className={styles.pairOptions}
              value={draft.redirectStatus}
              onChange={(redirectStatus) => onChange({ ...draft, redirectStatus })}
              options={[
                { value: 301, title: '301 Permanent', body: <span className={wizard.optionMeta}>Browsers and search engines remember it</span> },
                { value: 302, title: '302 Temporary', body: <span className={wizard.optionMeta}>Asked again on every visit</span> },
              ]}
            />
          </div>
        </>
      ) : null}
      {draft.kind === 'PARKED' ? <p className="muted">Visitors see a parked page. There is nothing else to set.</p> : null}
    </>
  );
}

function AttachDialog({
  site,
  open,
  onClose,
  onAttached,
}: {
  site: SiteView;
  open: boolean;
  onClose: () => void;
  onAttached: (result: AttachedDomain) => void;
}) {
  return (
    <Dialog open={open} onClose={onClose} title="Attach a domain" description={`Point a domain of yours at ${site.siteName}. You make its DNS records next.`}>
      {open ? <AttachForm site={site} onCancel={onClose} onAttached={onAttached} /> : null}
    </Dialog>
  );
}

/** Mounted while the dialog is open, so each attach starts blank. */
function AttachForm({ site, onCancel, onAttached }: { site: SiteView; onCancel: () => void; onAttached: (result: AttachedDomain) => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const attach = useMutation(trpc.hosting.attachDomain.mutationOptions());
  const [hostname, setHostname] = useState('');
  const [hostnameError, setHostnameError] = useState<string | undefined>();
  const [draft, setDraft] = useState<BehaviourDraft>(EMPTY_DRAFT);
  const [checked, setChecked] = useState(false);
  const errors = checked ? draftErrors(draft) : {};

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setChecked(true);
    const host = hostname.trim();
    setHostnameError(host ? undefined : 'Enter a hostname such as example.com or www.example.com');
    if (!host || Object.keys(draftErrors(draft)).length > 0) return;
    let result;
    try {
      result = await attach.mutateAsync({ projectId: project.id, tenantId: site.tenantId, hostname: host, ...behaviourInput(draft) });
    } catch {
      return;
    }
    toast.success(`${result.hostname} was attached to ${site.siteName}`);
    await queryClient.invalidateQueries({ queryKey: trpc.hosting.listDomains.queryKey({ projectId: project.id, tenantId: site.tenantId }) });
    onAttached(result);
  }

  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Attach a domain">
      {attach.isError ? (
        <Alert tone="danger" title="The domain was not attached">
          {errorMessage(attach.error)}
        </Alert>
      ) : null}
      <Input
        label="Hostname"
        name="hostname"
        value={hostname}
        onChange={(event) => {
          setHostname(event.target.value);
          setHostnameError(undefined);
          attach.reset();
        }}
        autoComplete="off"
        spellCheck={false}
        placeholder="www.example.com"
        hint="A domain you control, or a subdomain of it."
        error={hostnameError}
      />
      <BehaviourFields
        draft={draft}
        onChange={(next) => {
          setDraft(next);
          attach.reset();
        }}
        hostname={hostname.trim()}
        errors={errors}
      />
      <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <SubmitButton variant="primary" loading={attach.isPending}>
          Attach domain
        </SubmitButton>
      </div>
    </form>
  );
}

function EditDialog({ site, domain, onClose }: { site: SiteView; domain: DomainView | null; onClose: () => void }) {
  return (
    <Dialog
      open={domain !== null}
      onClose={onClose}
      title={domain ? `Edit ${domain.hostname}` : 'Edit domain'}
      description="Replaces what the domain does. Its DNS records and certificate stay as they are."
    >
      {domain ? <EditForm site={site} domain={domain} onDone={onClose} /> : null}
    </Dialog>
  );
}

function EditForm({ site, domain, onDone }: { site: SiteView; domain: DomainView; onDone: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const replace = useMutation(trpc.hosting.replaceDomain.mutationOptions());
  const [draft, setDraft] = useState<BehaviourDraft>({
    kind: domain.kind,
    path: domain.documentRoot ?? '',
    redirectTarget: domain.redirectTarget ?? '',
    redirectStatus: domain.redirectStatus ?? 301,
  });
  const [checked, setChecked] = useState(false);
  const errors = checked ? draftErrors(draft) : {};

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setChecked(true);
    if (Object.keys(draftErrors(draft)).length > 0) return;
    try {
      await replace.mutateAsync({ projectId: project.id, tenantId: site.tenantId, domainId: domain.id, ...behaviourInput(draft) });
    } catch {
      return;
    }
    toast.success(`${domain.hostname} was updated`);
    await queryClient.invalidateQueries({ queryKey: trpc.hosting.listDomains.queryKey({ projectId: project.id, tenantId: site.tenantId }) });
    onDone();
  }

  return (
    <form className="form" onSubmit={submit} noValidate aria-label={`Edit ${domain.hostname}`}>
      {replace.isError ? (
        <Alert tone="danger" title="The domain was not changed">
          {errorMessage(replace.error)}
        </Alert>
      ) : null}
      <BehaviourFields
        draft={draft}
        onChange={(next) => {
          setDraft(next);
          replace.reset();
        }}
        hostname={domain.hostname}
        errors={errors}
      />
      <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
        <Button variant="ghost" onClick={onDone}>
          Cancel
        </Button>
        <SubmitButton variant="primary" loading={replace.isPending}>
          Save
        </SubmitButton>
      </div>
    </form>
  );
}

function DetachDialog({ site, domain, onClose }: { site: SiteView; domain: DomainView | null; onClose: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const detach = useMutation(trpc.hosting.detachDomain.mutationOptions());

  function close() {
    detach.reset();
    onClose();
  }

  async function confirm() {
    if (!domain) return;
    try {
      await detach.mutateAsync({ projectId: project.id, tenantId: site.tenantId, domainId: domain.id });
    } catch {
      return;
    }
    toast.success(`${domain.hostname} was detached`);
    await queryClient.invalidateQueries({ queryKey: trpc.hosting.listDomains.queryKey({ projectId: project.id, tenantId: site.tenantId }) });
    close();
  }

  return (
    <ConfirmDialog
      open={domain !== null}
      onClose={close}
      title={domain ? `Detach ${domain.hostname}?` : 'Detach domain?'}
      description="The hostname stops pointing at the site. Its folder and files stay in the site’s home; it can be attached again later."
      confirmLabel="Detach"
      onConfirm={() => void confirm()}
      pending={detach.isPending}
      errorTitle="The domain was not detached"
      error={detach.isError ? errorMessage(detach.error) : null}
    />
  );
}
