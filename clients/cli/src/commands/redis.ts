import type { Schema } from '@cloudpanel/sdk';
import { Option, type Command } from 'commander';
import { CHARGE_FIELDS, chargeNote } from '../charges.ts';
import { action, confirm, examples, timeoutMs } from '../command.ts';
import type { Context } from '../context.ts';
import type { Io } from '../io.ts';
import { when, type Column } from '../output.ts';
import { startProgress } from '../progress.ts';

type Redis = Schema<'RedisDatabase'>;
type Persistence = Redis['dataPersistence'];

// A record rather than an array, so the compiler checks that the list is exactly what the API accepts.
const PERSISTENCE = Object.keys({
  NONE: 0,
  AOF_EVERY_WRITE: 0,
  AOF_EVERY_1_SECOND: 0,
  SNAPSHOT_EVERY_1_HOUR: 0,
  SNAPSHOT_EVERY_6_HOURS: 0,
  SNAPSHOT_EVERY_12_HOURS: 0,
} satisfies Record<Persistence, 0>) as Persistence[];

const megabytes = (mb: number) => (mb >= 1024 ? `${mb / 1024} GB` : `${mb} MB`);

function bytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${+value.toFixed(1)} ${units[unit]}`;
}

const COLUMNS: Column<Redis>[] = [
  { header: 'id', value: (r) => r.id },
  { header: 'name', value: (r) => r.name },
  { header: 'status', value: (r) => r.status },
  { header: 'plan', value: (r) => r.planSlug },
  { header: 'region', value: (r) => r.region },
  { header: 'memory', value: (r) => megabytes(r.usableMemoryMb) },
  { header: 'endpoint', value: (r) => `${r.host}:${r.port}` },
];

const FIELDS: Column<Redis>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'Name', value: (r) => r.name },
  { header: 'Status', value: (r) => r.status },
  { header: 'Plan', value: (r) => r.planSlug },
  { header: 'Region', value: (r) => r.region },
  {
    header: 'Memory',
    value: (r) => (r.replication ? `${megabytes(r.usableMemoryMb)} usable (half of ${megabytes(r.memoryMb)} holds the replica)` : megabytes(r.usableMemoryMb)),
  },
  { header: 'Replication', value: (r) => r.replication },
  { header: 'Persistence', value: (r) => r.dataPersistence },
  { header: 'Read-only', value: (r) => (r.readOnly ? 'yes: writes are refused while billing is suspended' : 'no') },
  { header: 'Host', value: (r) => r.host },
  { header: 'Port', value: (r) => r.port },
  { header: 'TLS', value: (r) => r.tls },
  { header: 'Created', value: (r) => when(r.createdAt) },
];

const redisPath = (ctx: Context, redisId: string) => ({ params: { path: { projectId: ctx.project(), redisId } } });

/** A database read without its password: the single read carries it on every call, so it is shown only when asked for. */
function withoutSecrets(database: Schema<'RedisDatabaseWithCredentials'>) {
  const { password: _password, url: _url, ...shown } = database;
  return shown;
}

async function waitUntilReady(ctx: Context, redisId: string, timeout: string | undefined) {
  const progress = startProgress(ctx.io, 'Waiting for the database to be READY…');
  try {
    const database = await ctx.client.waitFor(() => ctx.client.get('/projects/{projectId}/redis/{redisId}', redisPath(ctx, redisId)), {
      until: (r) => r.status === 'READY',
      failWhen: (r) =>
        r.status === 'FAILED' && `Database ${r.name} FAILED to start: its charge was credited back; delete it with \`cloud redis delete ${r.id}\``,
      onPoll: (r) => progress.update(`Database ${r.name} is ${r.status}…`),
      timeoutMs: timeoutMs(timeout),
      intervalMs: 1000,
    });
    progress.stop(`Database ${database.name} is READY`);
    return database;
  } catch (err) {
    progress.stop();
    throw err;
  }
}

export function registerRedis(program: Command, io: Io): void {
  const redis = program.command('redis').description('managed Redis databases (Redis 7.2 compatible): plans, create, connect, usage');
  examples(redis, 'cloud redis create cache --plan redis-256mb --region fra1 --wait', 'cloud redis get rds_01h… --show-password --json | jq -r .url');

  examples(
    redis
      .command('plans')
      .description('plans on sale: memory, CPU, options, regions and monthly price (whole units of the billing currency)')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.client.get('/redis/plans'), [
            { header: 'slug', value: (p) => p.slug },
            { header: 'name', value: (p) => p.name },
            { header: 'memory', value: (p) => megabytes(p.memoryMb) },
            { header: 'cpu', value: (p) => `${p.cpuMilli / 1000} vCPU` },
            { header: 'replication', value: (p) => p.supportsReplication },
            { header: 'persistence', value: (p) => p.supportsPersistence },
            { header: 'monthly', value: (p) => p.priceMonthly.toFixed(2) },
            { header: 'regions', value: (p) => p.regions.join(',') },
          ]);
          ctx.out.note('Replication bills the plan twice; `cloud redis preview --plan <slug>` shows the charge in your currency.');
        }),
      ),
    'cloud redis plans',
  );

  examples(
    redis
      .command('regions')
      .description('regions, whether they take new databases, and the plans sold there')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.client.get('/redis/regions'), [
            { header: 'slug', value: (r) => r.slug },
            { header: 'name', value: (r) => r.name },
            { header: 'country', value: (r) => r.country },
            { header: 'available', value: (r) => r.available },
            { header: 'plans', value: (r) => r.plans.join(',') },
          ]);
        }),
      ),
    'cloud redis regions',
  );

  examples(
    redis
      .command('list')
      .description('list the project’s databases (no passwords)')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.client.get('/projects/{projectId}/redis', { params: { path: { projectId: ctx.project() } } }), COLUMNS);
        }),
      ),
    'cloud redis list',
  );

  examples(
    redis
      .command('get')
      .description('show a database and where to connect; the password only with --show-password')
      .argument('<id>', 'the database’s id')
      .option('--show-password', 'also print the default user’s password and the connection URL (this command then exists to print them)')
      .action(
        action<{ showPassword?: boolean }>(io, async (ctx, [id], options) => {
          const database = await ctx.client.get('/projects/{projectId}/redis/{redisId}', redisPath(ctx, id!));
          if (!options.showPassword) {
            ctx.out.item(withoutSecrets(database), [...FIELDS, { header: 'Username', value: () => database.username }]);
            return ctx.out.note('Add --show-password to print the password and the connection URL.');
          }
          ctx.out.item(database, [
            ...FIELDS,
            { header: 'Username', value: (r) => r.username },
            { header: 'Password', value: (r) => r.password },
            { header: 'URL', value: (r) => r.url },
          ]);
        }),
      ),
    'cloud redis get rds_01h…',
    'export REDIS_URL="$(cloud redis get rds_01h… --show-password --json | jq -r .url)"',
  );

  examples(
    redis
      .command('preview')
      .description('what creating a database of a plan would charge today and monthly')
      .requiredOption('--plan <slug>', 'the plan (see `cloud redis plans`)')
      .option('--replication', 'with a replica (bills the plan twice)')
      .action(
        action<{ plan: string; replication?: boolean }>(io, async (ctx, _args, options) => {
          const preview = await ctx.client.get('/projects/{projectId}/redis/preview', {
            params: { path: { projectId: ctx.project() }, query: { planSlug: options.plan, replication: options.replication ? 'true' : 'false' } },
          });
          ctx.out.item(preview, CHARGE_FIELDS);
        }),
      ),
    'cloud redis preview --plan redis-1gb --replication',
  );

  examples(
    redis
      .command('create')
      .description('create a database: the saved card is charged the prorated month now')
      .argument('<name>', 'lower-case letters, digits and hyphens, unique among the project’s databases')
      .requiredOption('--plan <slug>', 'the plan (see `cloud redis plans`)')
      .requiredOption('-r, --region <slug>', 'a region where the plan is sold (see `cloud redis regions`)')
      .option('--replication', 'keep a replica: half of the memory holds it, and the plan is billed twice')
      .addOption(new Option('--persistence <mode>', 'what is written to disk').choices(PERSISTENCE).default('NONE'))
      .option('-w, --wait', 'wait until the database is READY')
      .option('--timeout <seconds>', 'how long --wait waits', '300')
      .action(
        action<{ plan: string; region: string; replication?: boolean; persistence: Persistence; wait?: boolean; timeout: string }>(
          io,
          async (ctx, [name], options) => {
            const projectId = ctx.project();
            const replication = options.replication === true;
            const preview = await ctx.client.get('/projects/{projectId}/redis/preview', {
              params: { path: { projectId }, query: { planSlug: options.plan, replication: replication ? 'true' : 'false' } },
            });
            let database: Redis = await ctx.client.post('/projects/{projectId}/redis', {
              params: { path: { projectId } },
              body: { name: name!, planSlug: options.plan, region: options.region, replication, dataPersistence: options.persistence },
            });
            ctx.out.note(chargeNote(preview));
            if (options.wait) database = withoutSecrets(await waitUntilReady(ctx, database.id, options.timeout));
            ctx.out.item(database, FIELDS);
            ctx.out.note(`\`cloud redis get ${database.id} --show-password\` prints the password and the connection URL.`);
          },
        ),
      ),
    'cloud redis create cache --plan redis-256mb --region fra1 --wait',
    'cloud redis create sessions --plan redis-1gb -r nyc1 --replication --persistence AOF_EVERY_1_SECOND --json',
  );

  examples(
    redis
      .command('usage')
      .description('memory, network and commands since the database last started (read at most a minute ago)')
      .argument('<id>', 'the database’s id')
      .action(
        action(io, async (ctx, [id]) => {
          const usage = await ctx.client.get('/projects/{projectId}/redis/{redisId}/usage', redisPath(ctx, id!));
          ctx.out.item(usage, [
            {
              header: 'Memory',
              value: (u) =>
                `${bytes(u.memoryUsedBytes)} of ${bytes(u.memoryLimitBytes)}${u.memoryLimitBytes ? ` (${((100 * u.memoryUsedBytes) / u.memoryLimitBytes).toFixed(1)}%)` : ''}`,
            },
            { header: 'Network in', value: (u) => bytes(u.networkInBytes) },
            { header: 'Network out', value: (u) => bytes(u.networkOutBytes) },
            { header: 'Commands', value: (u) => u.operations },
            { header: 'Read at', value: (u) => (u.sampledAt ? when(u.sampledAt) : 'not yet: every figure is 0 until the database is READY') },
          ]);
        }),
      ),
    'cloud redis usage rds_01h…',
  );

  examples(
    redis
      .command('delete')
      .description('delete a database and stop its billing; its data is gone for good')
      .argument('<id>', 'the database’s id')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [id], options) => {
          const database = await ctx.client.get('/projects/{projectId}/redis/{redisId}', redisPath(ctx, id!));
          await confirm(ctx, `Delete Redis database ${database.name} (${database.id}) and all its data?`, options.yes);
          await ctx.client.delete('/projects/{projectId}/redis/{redisId}', redisPath(ctx, database.id));
          ctx.out.done(`Deleted Redis database ${database.name}`, { id: database.id, deleted: true });
        }),
      ),
    'cloud redis delete rds_01h… --yes',
  );
}
