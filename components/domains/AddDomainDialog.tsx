'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { sentence } from '../billing/ProjectBillingAlert';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, type AppErrorInfo } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button, ButtonLink } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { Input } from '../ui/Input';
import { SubmitButton } from '../ui/SubmitButton';
import { useToast } from '../ui/Toast';
import type { DnsProviderStatus } from '../integrations/dnsProvider';
import { AUTO_DNS_CREATED_MARKER, domainPath, type CreatedDomain } from './domains';

export function AddDomainDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Add a domain"
      description="A domain you own, or a name under one. It stays pending until a TXT record you publish in its DNS proves it is yours."
    >
      {open ? <AddDomainForm onCancel={onClose} /> : null}
    </Dialog>
  );
}

/** Mounted only while the dialog is open, so each opening starts empty. */
function AddDomainForm({ onCancel }: { onCancel: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const dnsProvider = useQuery(trpc.dnsProvider.status.queryOptions({ projectId: project.id }));
  const add = useMutation(trpc.domains.add.mutationOptions());
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>();
  const [refusal, setRefusal] = useState<AppErrorInfo | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setRefusal(null);
    if (name.trim() === '') {
      setNameError('Enter a domain name, such as example.com');
      return;
    }
    let created: CreatedDomain;
    try {
      created = await add.mutateAsync({ projectId: project.id, name: name.trim(), type: 'EXTERNAL' });
    } catch (error) {
      const refused = appErrorOf(error);
      if (refused.fields?.name) setNameError(refused.fields.name);
      else if (refused.code === 'CONFLICT') setNameError(refused.message);
      else setRefusal(refused);
      return;
    }
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.domains.list.queryKey({ projectId: project.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
    ]);
    const autoDnsWasOn = dnsProvider.data?.connected === true && dnsProvider.data.autoDnsEnabled;
    if (created.autoDns.created) {
      toast.success(`${created.name} was added, and auto-DNS created its verification record`);
    } else if (autoDnsWasOn) {
      toast.error(`${created.name} was added, but auto-DNS did not create its record: ${created.autoDns.detail ?? 'the provider refused it'}`);
    } else {
      toast.success(`${created.name} was added`);
    }
    const detail = domainPath(project.id, created.name);
    router.push(created.autoDns.created ? `${detail}?${AUTO_DNS_CREATED_MARKER}=created` : detail);
  }

  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Add a domain">
      {refusal ? <RefusalAlert refusal={refusal} /> : null}
      <Input
        label="Domain name"
        name="name"
        placeholder="example.com"
        autoComplete="off"
        spellCheck={false}
        autoFocus
        value={name}
        error={nameError}
        hint={dnsProvider.data ? autoDnsHint(dnsProvider.data) : undefined}
        onChange={(event) => {
          setName(event.target.value);
          setNameError(undefined);
          setRefusal(null);
        }}
      />
      <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <SubmitButton variant="primary" loading={add.isPending}>
          Add domain
        </SubmitButton>
      </div>
    </form>
  );
}

/** What happens to the verification record once the domain is added, which depends on the DNS provider connection. */
function autoDnsHint(status: DnsProviderStatus): string {
  if (status.connected && status.autoDnsEnabled) {
    return 'Auto-DNS is on: if the connected DNS account holds this domain’s zone, its TXT record is created there right away.';
  }
  if (status.connected) return 'Your DNS provider is connected: the next page creates the TXT record in one click.';
  return 'The next page shows the TXT record to publish where the domain’s DNS is hosted.';
}

function RefusalAlert({ refusal }: { refusal: AppErrorInfo }) {
  const project = useProject();
  if (refusal.code === 'PROJECT_BLOCKED') {
    return (
      <Alert
        tone="danger"
        title="This project is blocked"
        action={
          hasRole(project, 'admin') ? (
            <ButtonLink href={projectPath(project.id, 'billing')} size="sm">
              Pay the invoice
            </ButtonLink>
          ) : null
        }
      >
        {sentence(refusal.message)} Domains can be added again once it is paid.
      </Alert>
    );
  }
  return (
    <Alert tone="danger" title="The domain was not added">
      {refusal.message}
    </Alert>
  );
}
