'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { DnsRecordBody } from '@/server/providers/dns/records';
import type { DnsRecordType } from '@/server/providers/dns/types';
import { useProject } from '../projects/ProjectContext';
import { appErrorOf } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { Input } from '../ui/Input';
import { Select } from '../ui/Select';
import { SubmitButton } from '../ui/SubmitButton';
import { useToast } from '../ui/Toast';
import { checkDnsRecord } from './checkDnsRecord';
import type { DnsRecord, DnsRecordRules, DnsZone } from './dnsProvider';
import styles from './integrations.module.css';

type RecordField = keyof DnsRecordBody;

const CONTENT_HINTS: Record<DnsRecordType, { hint: string; placeholder: string }> = {
  A: { hint: 'An IPv4 address.', placeholder: '192.0.2.1' },
  AAAA: { hint: 'An IPv6 address.', placeholder: '2001:db8::1' },
  CNAME: { hint: 'The host name this name is an alias of. Not at the apex (@).', placeholder: 'app.example.net' },
  MX: { hint: 'The host name of the mail server; its priority goes in the next field.', placeholder: 'mail.example.com' },
  TXT: { hint: 'Text of up to 2048 characters.', placeholder: 'v=spf1 include:_spf.example.com ~all' },
  NS: { hint: 'The host name of a nameserver.', placeholder: 'ns1.example.net' },
  SRV: { hint: 'priority weight port target, separated by spaces.', placeholder: '10 5 5060 sip.example.com' },
  CAA: { hint: 'flags tag "value": tag issue, issuewild or iodef, the value in double quotes.', placeholder: '0 issue "letsencrypt.org"' },
};

/** A fully qualified record name as the form takes it: @ for the apex, relative inside the zone. */
export function relativeName(name: string, zoneName: string): string {
  if (name === zoneName) return '@';
  return name.endsWith(`.${zoneName}`) ? name.slice(0, -(zoneName.length + 1)) : name;
}

/** Creates a record in the zone, or replaces `record` with what the form holds. */
export function RecordDialog({ zone, rules, record, onClose }: { zone: DnsZone; rules: DnsRecordRules; record: DnsRecord | null; onClose: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.dnsProvider.createRecord.mutationOptions());
  const replace = useMutation(trpc.dnsProvider.replaceRecord.mutationOptions());

  const [type, setType] = useState<DnsRecordType>(record?.type ?? 'A');
  const [name, setName] = useState(record ? relativeName(record.name, zone.name) : '');
  const [content, setContent] = useState(record?.content ?? '');
  const [priority, setPriority] = useState(record?.priority !== null && record?.priority !== undefined ? String(record.priority) : '10');
  const [automaticTtl, setAutomaticTtl] = useState(!record || record.ttl === rules.ttlAutomatic);
  const [ttlSeconds, setTtlSeconds] = useState(record && record.ttl !== rules.ttlAutomatic ? String(record.ttl) : '3600');
  const [proxied, setProxied] = useState(record?.proxied ?? false);
  const [errors, setErrors] = useState<Partial<Record<string, string>>>({});
  const [refusal, setRefusal] = useState<string | null>(null);

  const proxiable = rules.proxiableTypes.includes(type);
  const contentHelp = CONTENT_HINTS[type];
  const pending = create.isPending || replace.isPending;
  const shownFields: RecordField[] = [
    'type',
    'name',
    'content',
    'ttl',
    ...(type === 'MX' ? (['priority'] as const) : []),
    ...(proxiable ? (['proxied'] as const) : []),
  ];
  const otherProblems = Object.entries(errors).filter(([field]) => !shownFields.includes(field as RecordField));

  function edited(...fields: RecordField[]) {
    setRefusal(null);
    setErrors((current) => Object.fromEntries(Object.entries(current).filter(([field]) => !fields.includes(field as RecordField))));
  }

  function body(): DnsRecordBody {
    return {
      type,
      name: name.trim(),
      content: content.trim(),
      ttl: automaticTtl ? rules.ttlAutomatic : Number(ttlSeconds),
      // A priority or a proxy setting the type cannot carry is left out rather than refused.
      proxied: proxiable && automaticTtl && proxied,
      priority: type === 'MX' ? (priority.trim() === '' ? null : Number(priority)) : null,
    };
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setRefusal(null);
    const wanted = body();
    const problems = checkDnsRecord(wanted);
    if (Object.keys(problems).length > 0) {
      setErrors(problems);
      return;
    }
    let saved: DnsRecord;
    try {
      saved = record
        ? await replace.mutateAsync({ projectId: project.id, zoneId: zone.id, recordId: record.id, ...wanted })
        : await create.mutateAsync({ projectId: project.id, zoneId: zone.id, ...wanted });
    } catch (error) {
      const refused = appErrorOf(error);
      if (refused.fields && Object.keys(refused.fields).length > 0) setErrors(refused.fields);
      else setRefusal(refused.message);
      return;
    }
    toast.success(`The ${saved.type} record ${saved.name} was ${record ? 'saved' : 'created'}`);
    onClose();
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.dnsProvider.records.queryKey({ projectId: project.id, zoneId: zone.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.domains.pathKey() }),
    ]);
  }

  return (
    <Dialog
      open
      onClose={onClose}
      title={record ? `Edit the ${record.type} record` : 'Add a record'}
      description={
        <>
          In the zone <span className="mono">{zone.name}</span>. The record changes at the provider as soon as it is saved.
        </>
      }
    >
      <form className="form" onSubmit={submit} noValidate aria-label={record ? 'Edit the record' : 'Add a record'}>
        {refusal ? (
          <Alert tone="danger" title="The record was not saved">
            {refusal}
          </Alert>
        ) : null}
        {otherProblems.length > 0 ? (
          <Alert tone="danger" title="The record was not saved">
            {otherProblems.map(([field, message]) => (
              <p key={field}>{message}</p>
            ))}
          </Alert>
        ) : null}
        <div className={styles.typeAndName}>
          <Select
            label="Type"
            name="type"
            value={type}
            options={rules.types.map((t) => ({ value: t, label: t }))}
            error={errors.type}
            onChange={(event) => {
              setType(event.target.value as DnsRecordType);
              edited('type', 'content', 'priority', 'proxied');
            }}
          />
          <Input
            label="Name"
            name="name"
            autoComplete="off"
            spellCheck={false}
            placeholder="www"
            value={name}
            error={errors.name}
            hint={
              <>
                <span className="mono">@</span> for <span className="mono">{zone.name}</span> itself, or a name such as <span className="mono">www</span> for{' '}
                <span className="mono">www.{zone.name}</span>.
              </>
            }
            onChange={(event) => {
              setName(event.target.value);
              edited('name');
            }}
          />
        </div>
        <Input
          label="Content"
          name="content"
          className="mono"
          autoComplete="off"
          spellCheck={false}
          placeholder={contentHelp.placeholder}
          value={content}
          error={errors.content}
          hint={
            <>
              {contentHelp.hint} For example <span className="mono">{contentHelp.placeholder}</span>
            </>
          }
          onChange={(event) => {
            setContent(event.target.value);
            edited('content');
          }}
        />
        <div className="form-grid">
          {type === 'MX' ? (
            <Input
              label="Priority"
              name="priority"
              type="number"
              inputMode="numeric"
              min={0}
              max={65535}
              value={priority}
              error={errors.priority}
              hint="0 to 65535; the lowest is tried first."
              onChange={(event) => {
                setPriority(event.target.value);
                edited('priority');
              }}
            />
          ) : null}
          <Select
            label="TTL"
            name="ttlMode"
            value={automaticTtl ? 'automatic' : 'seconds'}
            options={[
              { value: 'automatic', label: 'Automatic' },
              { value: 'seconds', label: 'Seconds' },
            ]}
            hint={automaticTtl ? 'The provider chooses how long resolvers keep the answer.' : undefined}
            error={automaticTtl ? errors.ttl : undefined}
            onChange={(event) => {
              setAutomaticTtl(event.target.value === 'automatic');
              edited('ttl', 'proxied');
            }}
          />
          {automaticTtl ? null : (
            <Input
              label="TTL in seconds"
              name="ttl"
              type="number"
              inputMode="numeric"
              min={rules.ttlMinSeconds}
              max={rules.ttlMaxSeconds}
              value={ttlSeconds}
              error={errors.ttl}
              hint={`${rules.ttlMinSeconds} to ${rules.ttlMaxSeconds}.`}
              onChange={(event) => {
                setTtlSeconds(event.target.value);
                edited('ttl');
              }}
            />
          )}
        </div>
        {proxiable ? (
          <div className="field">
            <label className="checkbox">
              <input
                type="checkbox"
                name="proxied"
                checked={automaticTtl && proxied}
                disabled={!automaticTtl}
                onChange={(event) => {
                  setProxied(event.target.checked);
                  edited('proxied');
                }}
              />
              Proxied through the provider
            </label>
            <p className="field-hint">
              {automaticTtl
                ? 'Visitors reach the provider’s network, which hides the address in Content and forwards their requests.'
                : 'Proxying needs the automatic TTL.'}
            </p>
            {errors.proxied ? (
              <p className="field-error" role="alert">
                {errors.proxied}
              </p>
            ) : null}
          </div>
        ) : null}
        <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <SubmitButton variant="primary" loading={pending}>
            {record ? 'Save record' : 'Add record'}
          </SubmitButton>
        </div>
      </form>
    </Dialog>
  );
}
