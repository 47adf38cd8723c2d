import { WaitError, type Schema } from '@cloudpanel/sdk';
import type { Command } from 'commander';
import { action, confirm, examples, timeoutMs } from '../command.ts';
import type { Context } from '../context.ts';
import type { Io } from '../io.ts';
import { money, when, type Column } from '../output.ts';
import { startProgress } from '../progress.ts';

type Domain = Schema<'Domain'>;
type Verification = Schema<'DomainVerification'>;

const COLUMNS: Column<Domain>[] = [
  { header: 'id', value: (d) => d.id },
  { header: 'name', value: (d) => d.name },
  { header: 'type', value: (d) => d.type },
  { header: 'status', value: (d) => d.status },
  { header: 'added', value: (d) => when(d.createdAt) },
];

const FIELDS: Column<Domain>[] = [
  { header: 'ID', value: (d) => d.id },
  { header: 'Name', value: (d) => d.name },
  { header: 'Type', value: (d) => d.type },
  { header: 'Status', value: (d) => d.status },
  { header: 'Added', value: (d) => when(d.createdAt) },
  { header: 'Verification', value: (d) => `${d.verificationRecord.type} ${d.verificationRecord.name} "${d.verificationRecord.value}"` },
  { header: 'DNS records', value: (d) => d.dnsRecords.length },
];

const domainPath = (ctx: Context, domain: string) => ({ params: { path: { projectId: ctx.project(), domain } } });

/** The TXT record to publish, as a person copies it into a DNS zone. */
function recordLines(record: Domain['verificationRecord']): string {
  return [`  type:  ${record.type}`, `  name:  ${record.name}`, `  value: ${record.value}`].join('\n');
}

/** What a person reads after a check: verified, or what to publish and what the lookup saw instead. */
function describeCheck({ domain, check }: Verification): string {
  if (check.verified || domain.status === 'VERIFIED') return `${domain.name} is ${domain.status}: its ownership is proved`;
  const seen = check.found.length > 0 ? `found ${check.found.map((v) => `"${v}"`).join(', ')}` : `found nothing${check.error ? ` (${check.error})` : ''}`;
  return [
    `${domain.name} is still ${domain.status}: the lookup at ${when(check.checkedAt)} ${seen}.`,
    'Publish this TXT record where the domain’s DNS is hosted, then verify again:',
    recordLines(check.expected),
    'The platform also checks by itself: after a minute, then less and less often for a week.',
  ].join('\n');
}

export function registerDomains(program: Command, io: Io): void {
  const domains = program.command('domains').description('domains of the project: find names, add external ones and prove you own them');
  examples(domains, 'cloud domains add example.com', 'cloud domains verify example.com --wait');

  examples(
    domains
      .command('search')
      .description('which names can be registered, and their yearly prices (registering is not done here)')
      .argument('<name>', 'a name, with or without a TLD; without one, common TLDs are tried')
      .action(
        action(io, async (ctx, [name]) => {
          const candidates = await ctx.client.get('/domains/search', { params: { query: { query: name! } } });
          ctx.out.list(
            candidates,
            [
              { header: 'name', value: (c) => c.name },
              { header: 'available', value: (c) => c.available },
              { header: 'yearly', value: (c) => money(c.priceYearly, c.currency) },
              { header: 'premium', value: (c) => c.premium },
            ],
            `No candidates for ${name}.`,
          );
        }),
      ),
    'cloud domains search acme',
    'cloud domains search acme.dev --json',
  );

  examples(
    domains
      .command('list')
      .description('list the project’s domains')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.client.get('/projects/{projectId}/domains', { params: { path: { projectId: ctx.project() } } }), COLUMNS);
        }),
      ),
    'cloud domains list',
  );

  examples(
    domains
      .command('get')
      .description('show a domain, with the TXT record that proves its ownership')
      .argument('<domain>', 'the domain’s id or name')
      .action(
        action(io, async (ctx, [ref]) => {
          const domain = await ctx.client.get('/projects/{projectId}/domains/{domain}', domainPath(ctx, ref!));
          ctx.out.item(domain, FIELDS);
          if (!ctx.out.json && domain.dnsRecords.length > 0) {
            ctx.out.list(domain.dnsRecords, [
              { header: 'type', value: (r) => r.type },
              { header: 'name', value: (r) => r.name },
              { header: 'content', value: (r) => r.content },
              { header: 'ttl', value: (r) => r.ttl },
            ]);
          }
        }),
      ),
    'cloud domains get example.com',
  );

  examples(
    domains
      .command('add')
      .description('add a domain whose DNS is hosted elsewhere; it is PENDING until its TXT record is found')
      .argument('<domain>', 'a registrable name or a name under one, e.g. example.com or shop.example.com')
      .action(
        action(io, async (ctx, [name]) => {
          const domain = await ctx.client.post('/projects/{projectId}/domains', {
            params: { path: { projectId: ctx.project() } },
            body: { name: name!, type: 'EXTERNAL' },
          });
          const next = domain.autoDns.created
            ? `The TXT record that proves ownership was created in the connected DNS account; run \`cloud domains verify ${domain.name}\` once it is served.`
            : [
                'To prove you own it, publish this TXT record where its DNS is hosted:',
                recordLines(domain.verificationRecord),
                `then run \`cloud domains verify ${domain.name}\`.`,
              ].join('\n');
          ctx.out.done(`Added ${domain.name} (${domain.id}), ${domain.status}.\n${next}`, domain);
        }),
      ),
    'cloud domains add example.com',
    'cloud domains add shop.example.com --json | jq -r .verificationRecord.value',
  );

  examples(
    domains
      .command('verify')
      .description('look the ownership TXT record up now; when it is missing, show what to publish')
      .argument('<domain>', 'the domain’s id or name')
      .option('-w, --wait', 'look again every 10 seconds until the domain is VERIFIED')
      .option('--timeout <seconds>', 'how long --wait waits', '600')
      .action(
        action<{ wait?: boolean; timeout: string }>(io, async (ctx, [ref], options) => {
          const check = () => ctx.client.post('/projects/{projectId}/domains/{domain}/verify', domainPath(ctx, ref!));
          if (!options.wait) {
            const result = await check();
            return ctx.out.done(describeCheck(result), result);
          }
          const limit = timeoutMs(options.timeout);
          const progress = startProgress(ctx.io, `Looking up the TXT record of ${ref}…`);
          try {
            const result = await ctx.client.waitFor(check, {
              until: (r) => r.domain.status === 'VERIFIED',
              onPoll: (r) =>
                progress.update(
                  `${r.domain.name} is ${r.domain.status}: ${r.check.found.length ? 'another value is published' : (r.check.error ?? 'no record')}…`,
                ),
              timeoutMs: limit,
              intervalMs: 10_000,
            });
            progress.stop(`${result.domain.name} is VERIFIED`);
            ctx.out.done(describeCheck(result), result);
          } catch (err) {
            progress.stop();
            if (err instanceof WaitError) ctx.out.note(describeCheck(err.last as Verification));
            throw err;
          }
        }),
      ),
    'cloud domains verify example.com',
    'cloud domains verify example.com --wait --timeout 1800',
  );

  examples(
    domains
      .command('remove')
      .description('remove a domain from the project and free its name; records published for it stay where they are')
      .argument('<domain>', 'the domain’s id or name')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [ref], options) => {
          const domain = await ctx.client.get('/projects/{projectId}/domains/{domain}', domainPath(ctx, ref!));
          await confirm(ctx, `Remove ${domain.name} (${domain.id}) from the project?`, options.yes);
          await ctx.client.delete('/projects/{projectId}/domains/{domain}', domainPath(ctx, domain.id));
          ctx.out.done(`Removed ${domain.name}`, { id: domain.id, deleted: true });
        }),
      ),
    'cloud domains remove example.com --yes',
  );
}
