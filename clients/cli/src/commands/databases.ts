import type { Schema } from '@cloudpanel/sdk';
import { Option, type Command } from 'commander';
import { CHARGE_FIELDS, tierChangeFields, chargeNote, tierChangeNote } from '../charges.ts';
import { oneOf, upperCase } from '../parse.ts';
import { action, confirm, examples, timeoutMs } from '../command.ts';
import type { Context } from '../context.ts';
import type { Io } from '../io.ts';
import { money, when, type Column } from '../output.ts';
import { startProgress } from '../progress.ts';

type Tenant = Schema<'SharedDatabaseTenant'>;
type Tier = Tenant['tier'];
type PoolMode = Tenant['poolMode'];

const TIERS: Tier[] = ['MICRO', 'STARTER', 'GROWTH', 'SCALE'];
const POOL_MODES: PoolMode[] = ['TRANSACTION', 'SESSION', 'STATEMENT'];

const gigabytes = (bytes: number) => `${+(bytes / 1e9).toFixed(2)} GB`;

const COLUMNS: Column<Tenant>[] = [
  { header: 'id', value: (t) => t.tenantId },
  { header: 'name', value: (t) => t.dbName },
  { header: 'status', value: (t) => (t.suspended ? `${t.status} (suspended)` : t.status) },
  { header: 'tier', value: (t) => t.tier },
  { header: 'storage', value: (t) => `${t.storage.usedBytes === null ? '-' : gigabytes(t.storage.usedBytes)} of ${gigabytes(t.limits.storageBytes)}` },
  { header: 'endpoint', value: (t) => `${t.host}:${t.port}` },
  { header: 'created', value: (t) => when(t.createdAt) },
];

const FIELDS: Column<Tenant>[] = [
  { header: 'ID', value: (t) => t.tenantId },
  { header: 'Name', value: (t) => t.dbName },
  { header: 'Status', value: (t) => t.status },
  { header: 'Suspended', value: (t) => (t.suspended ? 'yes: logins are refused until the unpaid invoice is paid' : 'no') },
  { header: 'Tier', value: (t) => t.tier },
  { header: 'Connections', value: (t) => `${t.limits.maxConnections} direct, pool of ${t.limits.poolSize}` },
  {
    header: 'Storage',
    value: (t) =>
      `${t.storage.usedBytes === null ? 'not measured yet' : gigabytes(t.storage.usedBytes)} of ${gigabytes(t.limits.storageBytes)}${t.storage.readOnly ? ', over the limit: read-only' : ''}`,
  },
  { header: 'User', value: (t) => t.dbUser },
  { header: 'Host', value: (t) => t.host },
  { header: 'Port', value: (t) => t.port },
  { header: 'Connection URI', value: (t) => t.connectionUri },
  { header: 'Pool mode', value: (t) => t.poolMode },
  { header: 'Pool URI', value: (t) => t.poolConnectionUri ?? 'no pooler runs' },
  { header: 'Created', value: (t) => when(t.createdAt) },
];

/** FIELDS with the password beside the user, for the answers that carry it. */
const CREDENTIAL_FIELDS: Column<Tenant>[] = FIELDS.flatMap((f) =>
  f.header === 'User' ? [f, { header: 'Password', value: (t: Tenant) => t.dbPassword }] : [f],
);

const tenantPath = (ctx: Context, tenantId: string) => ({ params: { path: { projectId: ctx.project(), tenantId } } });

/** Credentials the API answers once (creation, rotation): printed this once, with a warning on stderr for people. */
function printCredentials(ctx: Context, tenant: Tenant): void {
  if (ctx.out.json) return ctx.out.done('', tenant);
  ctx.io.stderr.write('Save this password now: it is not shown again.\n');
  ctx.out.item(tenant, CREDENTIAL_FIELDS);
}

export function registerDatabases(program: Command, io: Io): void {
  const databases = program.command('databases').description('shared PostgreSQL databases: a database of your own on the shared cluster, with a pool');
  examples(databases, 'cloud databases create shop --tier MICRO', 'cloud databases rotate-password pdb_01h… --yes');

  examples(
    databases
      .command('prices')
      .description('the tiers with their limits and monthly prices')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.sessionClient().get('/projects/{projectId}/databases/shared/prices', { params: { path: { projectId: ctx.project() } } }), [
            { header: 'tier', value: (p) => p.tier },
            { header: 'connections', value: (p) => p.maxConnections },
            { header: 'pool', value: (p) => p.poolSize },
            { header: 'storage', value: (p) => `${p.storageGb} GB` },
            { header: 'monthly', value: (p) => money(p.monthly, p.currency) },
          ]);
        }),
      ),
    'cloud databases prices',
  );

  examples(
    databases
      .command('availability')
      .description('whether databases can be created on this platform now, and why not')
      .action(
        action(io, async (ctx) => {
          ctx.out.item(
            await ctx.sessionClient().get('/projects/{projectId}/databases/shared/availability', { params: { path: { projectId: ctx.project() } } }),
            [
              { header: 'Available', value: (a) => a.available },
              { header: 'Reason', value: (a) => a.reason },
              { header: 'Pooling', value: (a) => a.pooler },
              { header: 'Kept after delete', value: (a) => `${a.retentionDays} days` },
            ],
          );
        }),
      ),
    'cloud databases availability',
  );

  examples(
    databases
      .command('list')
      .description('list the project’s databases (no passwords)')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.sessionClient().get('/projects/{projectId}/databases/shared', { params: { path: { projectId: ctx.project() } } }), COLUMNS);
        }),
      ),
    'cloud databases list',
  );

  examples(
    databases
      .command('get')
      .description('show a database, its limits and where to connect (the password was shown once, at creation or rotation)')
      .argument('<id>', 'the database’s id')
      .action(
        action(io, async (ctx, [id]) => {
          ctx.out.item(await ctx.sessionClient().get('/projects/{projectId}/databases/shared/{tenantId}', tenantPath(ctx, id!)), FIELDS);
        }),
      ),
    'cloud databases get pdb_01h…',
  );

  examples(
    databases
      .command('preview')
      .description('what creating a database of a tier would charge today and monthly')
      .addOption(new Option('-t, --tier <tier>', 'the tier (see `cloud databases prices`)').choices(TIERS).default('STARTER'))
      .action(
        action<{ tier: Tier }>(io, async (ctx, _args, options) => {
          const preview = await ctx.sessionClient().get('/projects/{projectId}/databases/shared/preview', {
            params: { path: { projectId: ctx.project() }, query: { tier: options.tier } },
          });
          ctx.out.item(preview, CHARGE_FIELDS);
        }),
      ),
    'cloud databases preview --tier GROWTH',
  );

  examples(
    databases
      .command('create')
      .description('buy a database: the card is charged the prorated month now; the password is shown this once')
      .argument('<name>', 'the database name: lower-case letters, digits and underscores, unique on the cluster')
      .addOption(new Option('-t, --tier <tier>', 'the tier (see `cloud databases prices`)').choices(TIERS).default('STARTER'))
      .addOption(new Option('--pool-mode <mode>', 'how the pooler shares server connections').choices(POOL_MODES).default('TRANSACTION'))
      .option('-w, --wait', 'wait until the database is ACTIVE')
      .option('--timeout <seconds>', 'how long --wait waits', '300')
      .action(
        action<{ tier: Tier; poolMode: PoolMode; wait?: boolean; timeout: string }>(io, async (ctx, [name], options) => {
          const projectId = ctx.project();
          const preview = await ctx.sessionClient().get('/projects/{projectId}/databases/shared/preview', {
            params: { path: { projectId }, query: { tier: options.tier } },
          });
          const created = await ctx.sessionClient().post('/projects/{projectId}/databases/shared', {
            params: { path: { projectId } },
            body: { dbName: name!, tier: options.tier, poolMode: options.poolMode },
          });
          ctx.out.note(chargeNote(preview));
          if (created.dbPassword !== undefined) return printCredentials(ctx, created);
          // SPEC lets a cluster answer { tenantId, status: PROVISIONING } without credentials; a rotation then issues the password.
          const tenant = options.wait && created.status !== 'ACTIVE' ? await waitUntilActive(ctx, created.tenantId, options.timeout) : created;
          ctx.out.item(tenant, FIELDS);
          ctx.out.note(`No password came with the answer: once it is ACTIVE, \`cloud databases rotate-password ${tenant.tenantId} --yes\` issues one.`);
        }),
      ),
    'cloud databases create shop',
    'cloud databases create analytics --tier GROWTH --pool-mode SESSION --json > analytics-db.json',
  );

  examples(
    databases
      .command('rotate-password')
      .description('issue a new password, shown this once: the old one stops working and open sessions are dropped')
      .argument('<id>', 'the database’s id')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [id], options) => {
          const tenant = await ctx.sessionClient().get('/projects/{projectId}/databases/shared/{tenantId}', tenantPath(ctx, id!));
          await confirm(
            ctx,
            `Rotate the password of ${tenant.dbName} (${tenant.tenantId})? The old one stops working at once and open sessions are dropped.`,
            options.yes,
          );
          printCredentials(
            ctx,
            await ctx.sessionClient().post('/projects/{projectId}/databases/shared/{tenantId}/rotate-password', tenantPath(ctx, tenant.tenantId)),
          );
        }),
      ),
    'cloud databases rotate-password pdb_01h… --yes',
    'cloud databases rotate-password pdb_01h… --yes --json | jq -r .connectionUri',
  );

  examples(
    databases
      .command('change-tier')
      .description('move a database to another tier: limits apply at once; an upgrade is charged, a downgrade credited')
      .argument('<id>', 'the database’s id')
      .argument('<tier>', TIERS.join(', '), oneOf('The tier', TIERS, upperCase))
      .option('--preview', 'only show what the change would charge or credit')
      .action(
        action<{ preview?: boolean }>(io, async (ctx, [id, tier], options) => {
          const preview = await ctx.sessionClient().get('/projects/{projectId}/databases/shared/{tenantId}/tier-preview', {
            params: { path: { projectId: ctx.project(), tenantId: id! }, query: { tier: tier as Tier } },
          });
          if (options.preview) return ctx.out.item(preview, tierChangeFields(`to ${tier}`));
          const tenant = await ctx.sessionClient().patch('/projects/{projectId}/databases/shared/{tenantId}/tier', {
            ...tenantPath(ctx, id!),
            body: { tier: tier as Tier },
          });
          ctx.out.note(tierChangeNote(preview));
          ctx.out.item(tenant, FIELDS);
        }),
      ),
    'cloud databases change-tier pdb_01h… GROWTH --preview',
    'cloud databases change-tier pdb_01h… GROWTH',
  );

  examples(
    databases
      .command('delete')
      .description('delete a database: logins are refused at once and billing stops; the data is kept a while for recovery')
      .argument('<id>', 'the database’s id')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [id], options) => {
          const tenant = await ctx.sessionClient().get('/projects/{projectId}/databases/shared/{tenantId}', tenantPath(ctx, id!));
          await confirm(ctx, `Delete database ${tenant.dbName} (${tenant.tenantId})? Logins are refused and open sessions dropped at once.`, options.yes);
          await ctx.sessionClient().delete('/projects/{projectId}/databases/shared/{tenantId}', tenantPath(ctx, tenant.tenantId));
          ctx.out.done(
            `Deleted database ${tenant.dbName}; its data is kept for recovery for a while (\`cloud databases availability\` says how long; ask support to restore it)`,
            { id: tenant.tenantId, deleted: true },
          );
        }),
      ),
    'cloud databases delete pdb_01h… --yes',
  );
}

/**
 * Polls a database the cluster is still setting up. A tenant has no failed state (a setup that fails is
 * refused at creation, 502 with the charge refunded), so only a timeout or a failed read ends the wait early.
 */
async function waitUntilActive(ctx: Context, tenantId: string, timeout: string | undefined): Promise<Tenant> {
  const progress = startProgress(ctx.io, 'Waiting for the database to be ACTIVE…');
  try {
    const tenant = await ctx
      .sessionClient()
      .waitFor(() => ctx.sessionClient().get('/projects/{projectId}/databases/shared/{tenantId}', tenantPath(ctx, tenantId)), {
        until: (t) => t.status === 'ACTIVE',
        onPoll: (t) => progress.update(`Database ${t.dbName} is ${t.status}…`),
        timeoutMs: timeoutMs(timeout),
        intervalMs: 1000,
      });
    progress.stop(`Database ${tenant.dbName} is ACTIVE`);
    return tenant;
  } catch (err) {
    progress.stop();
    throw err;
  }
}
