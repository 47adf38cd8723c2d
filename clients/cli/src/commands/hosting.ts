import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ApiError, type operations, type Schema } from '@cloudpanel/sdk';
import { InvalidArgumentError, type Command } from 'commander';
import { CHARGE_FIELDS, chargeNote, tierChangeFields, tierChangeNote } from '../charges.ts';
import { integer, oneOf, upperCase } from '../parse.ts';
import { action, confirm, examples } from '../command.ts';
import type { Context } from '../context.ts';
import { UsageError } from '../errors.ts';
import { readStdinBytes, type Io } from '../io.ts';
import { money, when, type Column } from '../output.ts';

type Site = Schema<'HostingSite'>;
type Tier = Site['tier'];
type PhpVersion = Site['phpVersion'];
type Domain = Schema<'HostingDomain'>;
type DomainBody = operations['hosting-attachDomain']['requestBody']['content']['application/json'];
type Kind = Domain['kind'];
type Database = Schema<'HostingDatabase'>;
type DnsInstructions = Schema<'HostingDnsInstructions'>;

// Records rather than arrays, so the compiler checks that each list is exactly what the API accepts.
const TIERS = Object.keys({ STARTER: 0, GROWTH: 0, SCALE: 0 } satisfies Record<Tier, 0>) as Tier[];
const PHP_VERSIONS = Object.keys({ '8.1': 0, '8.2': 0, '8.3': 0 } satisfies Record<PhpVersion, 0>) as PhpVersion[];
const KINDS = Object.keys({ SITE: 0, REDIRECT: 0, PARKED: 0 } satisfies Record<Kind, 0>) as Kind[];

/** What the file routes carry at most (64 MB); larger files go over SFTP. */
const TRANSFER_LIMIT_BYTES = 64 * 1024 * 1024;

const tierOf = oneOf('The tier', TIERS, upperCase);
const kindOf = oneOf('The kind', KINDS, upperCase);

function redirectStatusOf(value: string): 301 | 302 {
  if (value !== '301' && value !== '302') throw new InvalidArgumentError('The redirect status is 301 or 302');
  return Number(value) as 301 | 302;
}

const COLUMNS: Column<Site>[] = [
  { header: 'id', value: (s) => s.tenantId },
  { header: 'name', value: (s) => s.siteName },
  { header: 'tier', value: (s) => s.tier },
  { header: 'status', value: (s) => s.status },
  { header: 'ready', value: (s) => s.ready },
  { header: 'url', value: (s) => s.url },
];

const FIELDS: Column<Site>[] = [
  { header: 'Id', value: (s) => s.tenantId },
  { header: 'Name', value: (s) => s.siteName },
  { header: 'Status', value: (s) => s.status },
  { header: 'Serving', value: (s) => s.ready },
  { header: 'URL', value: (s) => s.url },
  { header: 'Tier', value: (s) => s.tier },
  { header: 'PHP', value: (s) => s.phpVersion },
  { header: 'Disk', value: (s) => `${s.limits.diskGb} GB${s.extraStorageGb > 0 ? ` (${s.extraStorageGb} GB extra)` : ''}` },
  { header: 'PHP workers', value: (s) => `${s.limits.phpWorkers}, ${s.limits.memoryMb} MB memory` },
  { header: 'Domains', value: (s) => `up to ${s.limits.domains}` },
  { header: 'Databases', value: (s) => `up to ${s.limits.databases}, ${s.limits.connectionsPerDatabase} connections each` },
  { header: 'SFTP', value: (s) => `${s.sftp.username}@${s.sftp.host}:${s.sftp.port}` },
  { header: 'Created', value: (s) => when(s.createdAt) },
];

const DATABASE_FIELDS: Column<Database>[] = [
  { header: 'Id', value: (d) => d.id },
  { header: 'Name', value: (d) => d.name },
  { header: 'Database', value: (d) => d.dbName },
  { header: 'User', value: (d) => d.dbUser },
  { header: 'Host', value: (d) => `${d.host}:${d.port}` },
  { header: 'Connections', value: (d) => `up to ${d.maxConnections}` },
  { header: 'Created', value: (d) => when(d.createdAt) },
];

const projectPath = (ctx: Context) => ({ params: { path: { projectId: ctx.project() } } });
const sitePath = (ctx: Context, tenantId: string) => ({ params: { path: { projectId: ctx.project(), tenantId } } });
const notFound = (message: string) => new ApiError({ status: 404, code: 'NOT_FOUND', message });

/** A site by id or by name (names are global, so one names one site). */
async function findSite(ctx: Context, ref: string): Promise<Site> {
  const site = (await ctx.client.get('/projects/{projectId}/hosting/shared', projectPath(ctx))).find((s) => s.tenantId === ref || s.siteName === ref);
  if (!site) throw notFound(`No hosting site ${ref} in this project; see \`cloud hosting list\``);
  return site;
}

/** A site's domain by id or hostname: the API reads domains only as a list. */
async function findDomain(ctx: Context, site: Site, ref: string): Promise<Domain> {
  const domains = await ctx.client.get('/projects/{projectId}/hosting/shared/{tenantId}/domains', sitePath(ctx, site.tenantId));
  const domain = domains.find((d) => d.id === ref || d.hostname === ref.toLowerCase());
  if (!domain) throw notFound(`Site ${site.siteName} has no domain ${ref}; see \`cloud hosting domains list ${site.siteName}\``);
  return domain;
}

async function findDatabase(ctx: Context, site: Site, ref: string): Promise<Database> {
  const databases = await ctx.client.get('/projects/{projectId}/hosting/shared/{tenantId}/databases', sitePath(ctx, site.tenantId));
  const database = databases.find((d) => d.id === ref || d.name === ref || d.dbName === ref);
  if (!database) throw notFound(`Site ${site.siteName} has no database ${ref}; see \`cloud hosting databases list ${site.siteName}\``);
  return database;
}

/** Paths are relative to the site's home; a leading or trailing slash, as people type them, is dropped. */
const remotePath = (text: string | undefined) => (text ?? '').replace(/^\/+/, '').replace(/\/+$/, '');

/** What a domain does, in a few words. */
function behaviour(d: Pick<Domain, 'kind' | 'documentRoot' | 'redirectTarget' | 'redirectStatus'>): string {
  if (d.kind === 'SITE') return `serves ${d.documentRoot ?? '-'}`;
  if (d.kind === 'REDIRECT') return `${d.redirectStatus ?? 301} → ${d.redirectTarget ?? '-'}`;
  return 'parked page';
}

function printDnsRecords(ctx: Context, instructions: DnsInstructions): void {
  const { ownershipVerification: txt } = instructions;
  ctx.out.list(
    [
      { type: instructions.recordType, name: instructions.name, value: instructions.value },
      { type: txt.type, name: txt.name, value: txt.value },
    ],
    [
      { header: 'type', value: (r) => r.type },
      { header: 'name', value: (r) => r.name },
      { header: 'value', value: (r) => r.value },
    ],
  );
}

/** The body of an attach or a replace: only the fields of the chosen kind, so the API's 400 for a field of another kind is reached only when the user mixed them. */
function domainBehaviour(options: DomainOptions): Omit<DomainBody, 'hostname'> {
  return {
    ...(options.kind ? { kind: options.kind } : {}),
    ...(options.path !== undefined ? { path: remotePath(options.path) } : {}),
    ...(options.redirectTo !== undefined ? { redirectTarget: options.redirectTo } : {}),
    ...(options.redirectStatus !== undefined ? { redirectStatus: options.redirectStatus } : {}),
  };
}

interface DomainOptions {
  kind?: Kind;
  path?: string;
  redirectTo?: string;
  redirectStatus?: 301 | 302;
}

function domainOptions(command: Command): Command {
  return command
    .option('-k, --kind <kind>', `${KINDS.join(', ')} (default SITE; REDIRECT when --redirect-to is given)`, kindOf)
    .option('--path <folder>', 'SITE: the folder served, relative to the home (default <hostname>/public_html)')
    .option('--redirect-to <url>', 'REDIRECT: a full http(s) address without a query; the requested path is appended')
    .option('--redirect-status <code>', 'REDIRECT: 301 (default) or 302', redirectStatusOf);
}

function withRedirectKind(options: DomainOptions): DomainOptions {
  return options.redirectTo !== undefined && options.kind === undefined ? { ...options, kind: 'REDIRECT' } : options;
}

export function registerHosting(program: Command, io: Io): void {
  const hosting = program.command('hosting').description('PHP hosting sites: files, MySQL databases, domains and SFTP');
  examples(
    hosting,
    'cloud hosting create myshop --tier STARTER --database main',
    'cloud hosting files upload myshop index.php public_html/index.php',
    'cloud hosting domains attach myshop shop.example.com',
  );

  examples(
    hosting
      .command('prices')
      .description('the monthly price of each tier')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.client.get('/projects/{projectId}/hosting/shared/prices', projectPath(ctx)), [
            { header: 'tier', value: (p) => p.tier },
            { header: 'monthly', value: (p) => money(p.monthly, p.currency) },
          ]);
        }),
      ),
    'cloud hosting prices',
  );

  examples(
    hosting
      .command('features')
      .description('what sites can have: MySQL databases, extra storage and its price')
      .action(
        action(io, async (ctx) => {
          ctx.out.item(await ctx.client.get('/projects/{projectId}/hosting/shared/features', projectPath(ctx)), [
            { header: 'Databases', value: (f) => f.databases },
            {
              header: 'Extra storage',
              value: (f) =>
                f.extraStorage ? `${money(f.extraStorage.monthly, f.extraStorage.currency)} a month per ${f.extraStorage.blockGb} GB` : 'not offered',
            },
          ]);
        }),
      ),
    'cloud hosting features',
  );

  examples(
    hosting
      .command('list')
      .description('list the project’s sites')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.client.get('/projects/{projectId}/hosting/shared', projectPath(ctx)), COLUMNS);
        }),
      ),
    'cloud hosting list',
  );

  examples(
    hosting
      .command('get')
      .description('show a site: its address, limits and SFTP login name (never its password)')
      .argument('<site>', 'the site’s id or name')
      .action(
        action(io, async (ctx, [ref]) => {
          ctx.out.item(await findSite(ctx, ref!), FIELDS);
        }),
      ),
    'cloud hosting get myshop',
  );

  examples(
    hosting
      .command('preview')
      .description('what buying a site would charge today and monthly')
      .option('-t, --tier <tier>', TIERS.join(', '), tierOf, 'STARTER')
      .option('--extra-storage-gb <gb>', 'extra disk, in blocks of 10 GB', integer(0), 0)
      .action(
        action<{ tier: Tier; extraStorageGb: number }>(io, async (ctx, _args, options) => {
          const preview = await ctx.client.get('/projects/{projectId}/hosting/shared/preview', {
            params: { path: { projectId: ctx.project() }, query: { tier: options.tier, extraStorageGb: options.extraStorageGb } },
          });
          ctx.out.item(preview, CHARGE_FIELDS);
        }),
      ),
    'cloud hosting preview --tier GROWTH --extra-storage-gb 20',
  );

  examples(
    hosting
      .command('create')
      .description('buy a site: the saved card is charged the prorated month now')
      .argument('<name>', 'global among all sites: 3–40 lower-case letters, digits and underscores, starting with a letter; the SFTP login and the address')
      .option('-t, --tier <tier>', `${TIERS.join(', ')} (see \`cloud hosting prices\`)`, tierOf, 'STARTER')
      .option('--php <version>', PHP_VERSIONS.join(', '), oneOf('The PHP version', PHP_VERSIONS), '8.3')
      .option('--extra-storage-gb <gb>', 'extra disk, in blocks of 10 GB', integer(0), 0)
      .option('--database <name>', 'also make a MySQL database (its password is shown this once)')
      .action(
        action<{ tier: Tier; php: PhpVersion; extraStorageGb: number; database?: string }>(io, async (ctx, [name], options) => {
          const projectId = ctx.project();
          const preview = await ctx.client.get('/projects/{projectId}/hosting/shared/preview', {
            params: { path: { projectId }, query: { tier: options.tier, extraStorageGb: options.extraStorageGb } },
          });
          const created = await ctx.client.post('/projects/{projectId}/hosting/shared', {
            params: { path: { projectId } },
            body: {
              siteName: name!,
              tier: options.tier,
              phpVersion: options.php,
              extraStorageGb: options.extraStorageGb,
              ...(options.database ? { database: { name: options.database } } : {}),
            },
          });
          ctx.out.note(chargeNote(preview));
          // The creation's answer is the only one that carries the database's password alongside the site.
          if (ctx.out.json) return ctx.out.done('', created);
          ctx.out.item(await ctx.client.get('/projects/{projectId}/hosting/shared/{tenantId}', sitePath(ctx, created.tenantId)), FIELDS);
          if (created.databaseError) ctx.io.stderr.write(`The site was made, but not its database: ${created.databaseError}\n`);
          if (created.database) {
            ctx.io.stderr.write('Save the database password now: it is not shown again.\n');
            ctx.io.stdout.write('\n');
            ctx.out.item(created.database, [...DATABASE_FIELDS.slice(1, 5), { header: 'Password', value: (d) => d.dbPassword }]);
          }
          ctx.out.note(`SFTP login: \`cloud hosting access ${name}\`; files: \`cloud hosting files ls ${name} public_html\``);
        }),
      ),
    'cloud hosting create myshop',
    'cloud hosting create blog_2 --tier GROWTH --php 8.2 --extra-storage-gb 10 --database wp --json',
  );

  examples(
    hosting
      .command('access')
      .description('how to reach a site over SFTP; the password only with --show-password')
      .argument('<site>', 'the site’s id or name')
      .option('--show-password', 'also print the SFTP password (this command then exists to print it)')
      .action(
        action<{ showPassword?: boolean }>(io, async (ctx, [ref], options) => {
          const site = await findSite(ctx, ref!);
          const access = await ctx.client.get('/projects/{projectId}/hosting/shared/{tenantId}/access', sitePath(ctx, site.tenantId));
          let sftpPassword: string | undefined;
          if (options.showPassword) {
            const withCredentials = await ctx.client.get('/projects/{projectId}/hosting/shared/{tenantId}', {
              params: { path: { projectId: ctx.project(), tenantId: site.tenantId }, query: { credentials: 'true' } },
            });
            sftpPassword = withCredentials.sftpPassword;
          }
          const shown = sftpPassword === undefined ? access : { ...access, sftpPassword };
          ctx.out.item(shown, [
            { header: 'Username', value: (a) => a.username },
            { header: 'Host', value: (a) => a.host },
            { header: 'SFTP port', value: (a) => a.sftp.port },
            { header: 'SSH', value: (a) => (a.ssh.enabled ? `port ${a.ssh.port}` : 'not enabled') },
            { header: 'Connect', value: (a) => `sftp -P ${a.sftp.port} ${a.username}@${a.host}` },
            ...(sftpPassword === undefined ? [] : [{ header: 'Password', value: () => sftpPassword }]),
          ]);
          if (sftpPassword === undefined) ctx.out.note('Add --show-password to print the SFTP password.');
        }),
      ),
    'cloud hosting access myshop',
    'cloud hosting access myshop --show-password --json | jq -r .sftpPassword',
  );

  examples(
    hosting
      .command('change-tier')
      .description('move a site to another tier: workers, memory and limits change at once, the disk stays')
      .argument('<site>', 'the site’s id or name')
      .argument('<tier>', TIERS.join(', '), tierOf)
      .option('--preview', 'only show what the change would charge or credit')
      .action(
        action<{ preview?: boolean }>(io, async (ctx, [ref, tier], options) => {
          const site = await findSite(ctx, ref!);
          const preview = await ctx.client.get('/projects/{projectId}/hosting/shared/{tenantId}/tier-preview', {
            params: { path: { projectId: ctx.project(), tenantId: site.tenantId }, query: { tier: tier as Tier } },
          });
          if (options.preview) {
            ctx.out.item(preview, tierChangeFields(`${site.tier} → ${tier}`));
            return;
          }
          const changed = await ctx.client.patch('/projects/{projectId}/hosting/shared/{tenantId}/tier', {
            ...sitePath(ctx, site.tenantId),
            body: { tier: tier as Tier },
          });
          ctx.out.note(tierChangeNote(preview));
          ctx.out.item(changed, FIELDS);
        }),
      ),
    'cloud hosting change-tier myshop GROWTH --preview',
    'cloud hosting change-tier myshop GROWTH',
  );

  examples(
    hosting
      .command('delete')
      .description('delete a site for good: its files, databases and domains go with it; billing stops')
      .argument('<site>', 'the site’s id or name')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [ref], options) => {
          const site = await findSite(ctx, ref!);
          await confirm(ctx, `Delete site ${site.siteName} (${site.tenantId}) with all its files, databases and domains?`, options.yes);
          const deleted = await ctx.client.delete('/projects/{projectId}/hosting/shared/{tenantId}', sitePath(ctx, site.tenantId));
          ctx.out.done(`Deleted site ${site.siteName}`, deleted);
        }),
      ),
    'cloud hosting delete myshop --yes',
  );

  registerDomains(hosting, io);
  registerDatabases(hosting, io);
  registerFiles(hosting, io);
}

function registerDomains(hosting: Command, io: Io): void {
  const domains = hosting.command('domains').description('hostnames a site answers on: served, redirected or parked');
  examples(
    domains,
    'cloud hosting domains attach myshop shop.example.com',
    'cloud hosting domains attach myshop old.example.com --redirect-to https://shop.example.com',
  );

  examples(
    domains
      .command('list')
      .description('a site’s hostnames; domains waiting for their DNS records are checked again on this read')
      .argument('<site>', 'the site’s id or name')
      .action(
        action(io, async (ctx, [ref]) => {
          const site = await findSite(ctx, ref!);
          ctx.out.list(
            await ctx.client.get('/projects/{projectId}/hosting/shared/{tenantId}/domains', sitePath(ctx, site.tenantId)),
            [
              { header: 'id', value: (d) => d.id },
              { header: 'hostname', value: (d) => d.hostname },
              { header: 'kind', value: (d) => d.kind },
              { header: 'behaviour', value: behaviour },
              { header: 'routing', value: (d) => d.routingStatus },
              { header: 'added', value: (d) => when(d.createdAt) },
            ],
            `Site ${site.siteName} has no domains yet; it answers on ${site.url}`,
          );
        }),
      ),
    'cloud hosting domains list myshop',
  );

  examples(
    domainOptions(
      domains
        .command('attach')
        .description('attach a hostname to a site and print the DNS records that route it and prove it is yours')
        .argument('<site>', 'the site’s id or name')
        .argument('<hostname>', 'the hostname, e.g. shop.example.com'),
    ).action(
      action<DomainOptions>(io, async (ctx, [ref, hostname], options) => {
        const site = await findSite(ctx, ref!);
        const attached = await ctx.client.post('/projects/{projectId}/hosting/shared/{tenantId}/domains', {
          ...sitePath(ctx, site.tenantId),
          body: { hostname: hostname!, ...domainBehaviour(withRedirectKind(options)) },
        });
        if (ctx.out.json) return ctx.out.done('', attached);
        ctx.io.stderr.write(`Attached ${attached.hostname} (${attached.domainId}) to ${site.siteName}. It is VERIFYING until these DNS records exist:\n`);
        printDnsRecords(ctx, attached.instructions);
      }),
    ),
    'cloud hosting domains attach myshop shop.example.com',
    'cloud hosting domains attach myshop blog.example.com --path blog/public',
    'cloud hosting domains attach myshop old.example.com --redirect-to https://shop.example.com --redirect-status 302',
  );

  examples(
    domainOptions(
      domains
        .command('replace')
        .description('replace what a domain does (all of it: options left out take their defaults); DNS and certificate stay')
        .argument('<site>', 'the site’s id or name')
        .argument('<domain>', 'the domain’s id or hostname'),
    ).action(
      action<DomainOptions>(io, async (ctx, [ref, domainRef], options) => {
        const site = await findSite(ctx, ref!);
        const domain = await findDomain(ctx, site, domainRef!);
        const replaced = await ctx.client.patch('/projects/{projectId}/hosting/shared/{tenantId}/domains/{domainId}', {
          params: { path: { projectId: ctx.project(), tenantId: site.tenantId, domainId: domain.id } },
          body: domainBehaviour(withRedirectKind(options)),
        });
        ctx.out.done(`${replaced.hostname} now ${behaviour(replaced)}`, replaced);
      }),
    ),
    'cloud hosting domains replace myshop old.example.com --redirect-to https://shop.example.com',
    'cloud hosting domains replace myshop shop.example.com --kind PARKED',
  );

  examples(
    domains
      .command('detach')
      .description('stop a hostname pointing at the site; its folder and files stay')
      .argument('<site>', 'the site’s id or name')
      .argument('<domain>', 'the domain’s id or hostname')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [ref, domainRef], options) => {
          const site = await findSite(ctx, ref!);
          const domain = await findDomain(ctx, site, domainRef!);
          await confirm(ctx, `Detach ${domain.hostname} from site ${site.siteName}?`, options.yes);
          const detached = await ctx.client.delete('/projects/{projectId}/hosting/shared/{tenantId}/domains/{domainId}', {
            params: { path: { projectId: ctx.project(), tenantId: site.tenantId, domainId: domain.id } },
          });
          ctx.out.done(`Detached ${domain.hostname} from ${site.siteName}`, detached);
        }),
      ),
    'cloud hosting domains detach myshop old.example.com --yes',
  );
}

function registerDatabases(hosting: Command, io: Io): void {
  const databases = hosting.command('databases').description('a site’s MySQL databases, each with a user of its own');
  examples(databases, 'cloud hosting databases create myshop wp');

  examples(
    databases
      .command('list')
      .description('a site’s databases and where to connect (no passwords)')
      .argument('<site>', 'the site’s id or name')
      .action(
        action(io, async (ctx, [ref]) => {
          const site = await findSite(ctx, ref!);
          ctx.out.list(await ctx.client.get('/projects/{projectId}/hosting/shared/{tenantId}/databases', sitePath(ctx, site.tenantId)), [
            { header: 'id', value: (d) => d.id },
            { header: 'name', value: (d) => d.name },
            { header: 'database', value: (d) => d.dbName },
            { header: 'user', value: (d) => d.dbUser },
            { header: 'host', value: (d) => `${d.host}:${d.port}` },
            { header: 'connections', value: (d) => d.maxConnections },
          ]);
        }),
      ),
    'cloud hosting databases list myshop',
  );

  examples(
    databases
      .command('create')
      .description('make a database and its user; the password is shown this once')
      .argument('<site>', 'the site’s id or name')
      .argument('<name>', '1–16 lower-case letters and digits, starting with a letter; the database is <site>_<name>')
      .action(
        action(io, async (ctx, [ref, name]) => {
          const site = await findSite(ctx, ref!);
          const database = await ctx.client.post('/projects/{projectId}/hosting/shared/{tenantId}/databases', {
            ...sitePath(ctx, site.tenantId),
            body: { name: name! },
          });
          if (ctx.out.json) return ctx.out.done('', database);
          ctx.io.stderr.write('Save this password now: it is not shown again.\n');
          ctx.out.item(database, [...DATABASE_FIELDS, { header: 'Password', value: (d) => d.dbPassword }]);
        }),
      ),
    'cloud hosting databases create myshop wp',
    'cloud hosting databases create myshop wp --json > wp-db.json',
  );

  examples(
    databases
      .command('get')
      .description('show a database and where to connect (its password is shown only at creation)')
      .argument('<site>', 'the site’s id or name')
      .argument('<database>', 'the database’s id or name')
      .action(
        action(io, async (ctx, [ref, databaseRef]) => {
          const site = await findSite(ctx, ref!);
          const { id } = await findDatabase(ctx, site, databaseRef!);
          const database = await ctx.client.get('/projects/{projectId}/hosting/shared/{tenantId}/databases/{databaseId}', {
            params: { path: { projectId: ctx.project(), tenantId: site.tenantId, databaseId: id } },
          });
          ctx.out.item({ ...database, dbPassword: undefined }, DATABASE_FIELDS);
        }),
      ),
    'cloud hosting databases get myshop wp',
  );

  examples(
    databases
      .command('delete')
      .description('drop a database and its user')
      .argument('<site>', 'the site’s id or name')
      .argument('<database>', 'the database’s id or name')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [ref, databaseRef], options) => {
          const site = await findSite(ctx, ref!);
          const database = await findDatabase(ctx, site, databaseRef!);
          await confirm(ctx, `Drop database ${database.dbName} of site ${site.siteName}, with everything in it?`, options.yes);
          const deleted = await ctx.client.delete('/projects/{projectId}/hosting/shared/{tenantId}/databases/{databaseId}', {
            params: { path: { projectId: ctx.project(), tenantId: site.tenantId, databaseId: database.id } },
          });
          ctx.out.done(`Dropped database ${database.dbName}`, deleted);
        }),
      ),
    'cloud hosting databases delete myshop wp --yes',
  );
}

function registerFiles(hosting: Command, io: Io): void {
  const files = hosting.command('files').description('a site’s files through the API, any file up to 64 MB; larger ones over SFTP (`cloud hosting access`)');
  examples(files, 'cloud hosting files ls myshop public_html', 'cloud hosting files upload myshop index.php public_html/');

  examples(
    files
      .command('ls')
      .description('list a folder (the home when no path is given), folders first')
      .argument('<site>', 'the site’s id or name')
      .argument('[path]', 'a folder, relative to the site’s home')
      .action(
        action(io, async (ctx, [ref, folder]) => {
          const site = await findSite(ctx, ref!);
          ctx.out.list(
            await ctx.client.get('/projects/{projectId}/hosting/shared/{tenantId}/files', {
              params: { path: { projectId: ctx.project(), tenantId: site.tenantId }, query: { path: remotePath(folder) } },
            }),
            [
              { header: 'name', value: (e) => (e.type === 'directory' ? `${e.name}/` : e.name) },
              { header: 'type', value: (e) => e.type },
              { header: 'size', value: (e) => e.size },
              { header: 'modified', value: (e) => when(e.modifiedAt) },
            ],
            'The folder is empty.',
          );
        }),
      ),
    'cloud hosting files ls myshop',
    'cloud hosting files ls myshop public_html --json',
  );

  examples(
    files
      .command('upload')
      .description('send a local file (text or binary, up to 64 MB) to the site, replacing what is there')
      .argument('<site>', 'the site’s id or name')
      .argument('<local-file>', 'the file to send; - reads stdin')
      .argument('<remote-path>', 'where it goes, relative to the home; ending in / puts it in that folder under its own name')
      .action(
        action(io, async (ctx, [ref, local, remote]) => {
          const site = await findSite(ctx, ref!);
          let target = remotePath(remote);
          if (remote!.endsWith('/') || target === '') {
            if (local === '-') throw new UsageError('Name the remote file when the content comes from stdin');
            target = target ? `${target}/${path.basename(local!)}` : path.basename(local!);
          }
          const bytes = local === '-' ? await readStdinBytes(ctx.io) : readFileSync(local!);
          if (bytes.length > TRANSFER_LIMIT_BYTES) {
            throw new UsageError(
              `${local === '-' ? 'stdin' : local} is ${bytes.length} bytes; the API carries files up to 64 MB: use SFTP (\`cloud hosting access ${site.siteName} --show-password\`)`,
            );
          }
          const folder = path.posix.dirname(target);
          const placed = await ctx.client.post('/projects/{projectId}/hosting/shared/{tenantId}/files/upload', {
            params: {
              path: { projectId: ctx.project(), tenantId: site.tenantId },
              query: { path: folder === '.' ? '' : folder, name: path.posix.basename(target) },
            },
            body: new Blob([bytes]),
          });
          ctx.out.done(`Uploaded ${placed.path} (${placed.size} bytes)`, placed);
        }),
      ),
    'cloud hosting files upload myshop index.php public_html/index.php',
    'cloud hosting files upload myshop logo.png public_html/img/',
    'printf "User-agent: *\\nDisallow:\\n" | cloud hosting files upload myshop - public_html/robots.txt',
  );

  examples(
    files
      .command('download')
      .description('fetch a file of the site (up to 64 MB) into a local file, or to stdout with -')
      .argument('<site>', 'the site’s id or name')
      .argument('<remote-path>', 'the file, relative to the home')
      .argument('[local-file]', 'where to write it (default: its name, in the current folder); - writes it to stdout')
      .action(
        action(io, async (ctx, [ref, remote, local]) => {
          const site = await findSite(ctx, ref!);
          const source = remotePath(remote);
          const file = await ctx.client
            .get('/projects/{projectId}/hosting/shared/{tenantId}/files/download', {
              params: { path: { projectId: ctx.project(), tenantId: site.tenantId }, query: { path: source } },
            })
            .catch((err: unknown) => {
              if (err instanceof ApiError && err.status === 413) {
                ctx.out.note(`Files over 64 MB go over SFTP (\`cloud hosting access ${site.siteName} --show-password\`).`);
              }
              throw err;
            });
          const bytes = Buffer.from(await file.arrayBuffer());
          if (local === '-') {
            ctx.io.stdout.write(bytes);
            return;
          }
          const destination = local ?? path.posix.basename(source);
          writeFileSync(destination, bytes);
          ctx.out.done(`Downloaded ${source} to ${destination} (${bytes.length} bytes)`, { path: source, size: bytes.length, destination });
        }),
      ),
    'cloud hosting files download myshop public_html/index.php',
    'cloud hosting files download myshop public_html/.htaccess - | less',
  );

  examples(
    files
      .command('mkdir')
      .description('make a folder; its parent must exist')
      .argument('<site>', 'the site’s id or name')
      .argument('<path>', 'the new folder, relative to the home')
      .action(
        action(io, async (ctx, [ref, folder]) => {
          const site = await findSite(ctx, ref!);
          const made = await ctx.client.post('/projects/{projectId}/hosting/shared/{tenantId}/files/folders', {
            ...sitePath(ctx, site.tenantId),
            body: { path: remotePath(folder) },
          });
          ctx.out.done(`Made ${made.path}/`, made);
        }),
      ),
    'cloud hosting files mkdir myshop public_html/assets',
  );

  examples(
    files
      .command('mv')
      .description('rename or move a file or folder; an existing destination is never overwritten')
      .argument('<site>', 'the site’s id or name')
      .argument('<from>', 'what to move, relative to the home')
      .argument('<to>', 'its new path; its folder must exist')
      .action(
        action(io, async (ctx, [ref, from, to]) => {
          const site = await findSite(ctx, ref!);
          const moved = await ctx.client.post('/projects/{projectId}/hosting/shared/{tenantId}/files/rename', {
            ...sitePath(ctx, site.tenantId),
            body: { from: remotePath(from), to: remotePath(to) },
          });
          ctx.out.done(`Moved ${remotePath(from)} to ${moved.path}`, moved);
        }),
      ),
    'cloud hosting files mv myshop public_html/index.html public_html/old-index.html',
  );

  examples(
    files
      .command('rm')
      .description('delete a file, a link, or a folder with everything in it')
      .argument('<site>', 'the site’s id or name')
      .argument('<path>', 'relative to the home')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [ref, target], options) => {
          const site = await findSite(ctx, ref!);
          const entry = remotePath(target);
          await confirm(ctx, `Delete ${entry} from site ${site.siteName} (a folder goes with everything in it)?`, options.yes);
          const deleted = await ctx.client.delete('/projects/{projectId}/hosting/shared/{tenantId}/files', {
            params: { path: { projectId: ctx.project(), tenantId: site.tenantId }, query: { path: entry } },
          });
          ctx.out.done(`Deleted ${entry}`, deleted);
        }),
      ),
    'cloud hosting files rm myshop public_html/old-index.html --yes',
  );
}
