import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { ApiError, type operations, type Schema } from '@cloudpanel/sdk';
import type { Command } from 'commander';
import { CHARGE_FIELDS, chargeNote, tierChangeFields, tierChangeNote } from '../charges.ts';
import { oneOf, upperCase } from '../parse.ts';
import { action, collect, confirm, examples, timeoutMs } from '../command.ts';
import type { Context } from '../context.ts';
import { UsageError } from '../errors.ts';
import { readStdin, type Io } from '../io.ts';
import { money, when, type Column } from '../output.ts';
import { startProgress } from '../progress.ts';

type Bucket = Schema<'Bucket'>;
type CorsRule = Schema<'CorsRule'>;
type StorageCredential = Schema<'StorageCredential'>;
type Tier = Bucket['tier'];
type CreateBody = operations['objectStorage-create']['requestBody']['content']['application/json'];
type Access = StorageCredential['access'];

// Records rather than arrays, so the compiler checks that each list is exactly what the API accepts.
const TIERS = Object.keys({ STARTER: 0, GROWTH: 0, SCALE: 0, ENTERPRISE: 0 } satisfies Record<Tier, 0>) as Tier[];
const REGIONS = Object.keys({ fra1: 0, nyc1: 0, sgp1: 0 } satisfies Record<CreateBody['region'], 0>) as CreateBody['region'][];
const ACCESS = Object.keys({ read: 0, write: 0, full: 0 } satisfies Record<Access, 0>) as Access[];

const tierOf = oneOf('The tier', TIERS, upperCase);

const COLUMNS: Column<Bucket>[] = [
  { header: 'id', value: (b) => b.id },
  { header: 'name', value: (b) => b.name },
  { header: 'tier', value: (b) => b.tier },
  { header: 'status', value: (b) => b.status },
  { header: 'region', value: (b) => b.region },
  { header: 'public', value: (b) => b.publicAccess },
  { header: 'cdn', value: (b) => (b.cdnEnabled ? (b.cdnDomain ?? 'provisioning') : false) },
  { header: 'created', value: (b) => when(b.createdAt) },
];

const FIELDS: Column<Bucket>[] = [
  { header: 'Id', value: (b) => b.id },
  { header: 'Name', value: (b) => b.name },
  { header: 'Tier', value: (b) => b.tier },
  { header: 'Status', value: (b) => b.status },
  { header: 'Region', value: (b) => b.region },
  { header: 'Public access', value: (b) => b.publicAccess },
  { header: 'Versioning', value: (b) => b.versioning },
  { header: 'CDN', value: (b) => (b.cdnEnabled ? (b.cdnDomain ?? 'enabled, domain not provisioned yet') : 'off') },
  { header: 'CORS rules', value: (b) => b.corsRules.length },
  { header: 'S3 endpoint', value: (b) => `${b.endpoint.url}${b.endpoint.development ? ' (development: not for production data)' : ''}` },
  { header: 'Signing region', value: (b) => b.endpoint.region },
  { header: 'Path style', value: (b) => b.endpoint.pathStyle },
  { header: 'Created', value: (b) => when(b.createdAt) },
];

const CREDENTIAL_FIELDS: Column<StorageCredential>[] = [
  { header: 'Id', value: (c) => c.id },
  { header: 'Name', value: (c) => c.name },
  { header: 'Access key id', value: (c) => c.accessKeyId },
  { header: 'Access', value: (c) => c.access },
  { header: 'Buckets', value: (c) => bucketNames(c) },
  { header: 'Created', value: (c) => when(c.createdAt) },
];

const bucketNames = (c: StorageCredential) => (c.buckets ? c.buckets.map((b) => b.name).join(',') : 'all (present and future)');
const projectPath = (ctx: Context) => ({ params: { path: { projectId: ctx.project() } } });
const bucketPath = (ctx: Context, bucketId: string) => ({ params: { path: { projectId: ctx.project(), bucketId } } });

/** Bytes in decimal units, as the tiers' allowances are stated: 1500000000 → "1.5 GB". */
export function bytes(count: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let value = count;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : Number(value.toFixed(value < 10 ? 2 : 1))} ${units[unit]}`;
}

const listBuckets = (ctx: Context) => ctx.client.get('/projects/{projectId}/storage/object-storage', projectPath(ctx));

/** A bucket by id or name: the API reads buckets only as a list. */
async function findBucket(ctx: Context, ref: string): Promise<Bucket> {
  const bucket = (await listBuckets(ctx)).find((b) => b.id === ref || b.name === ref);
  if (!bucket) throw new ApiError({ status: 404, code: 'NOT_FOUND', message: `No bucket ${ref} in this project; see \`cloud storage list\`` });
  return bucket;
}

async function findCredential(ctx: Context, ref: string): Promise<StorageCredential> {
  const credentials = await ctx.client.get('/projects/{projectId}/iam', projectPath(ctx));
  const credential = credentials.find((c) => c.id === ref || c.name === ref || c.accessKeyId === ref);
  if (!credential)
    throw new ApiError({ status: 404, code: 'NOT_FOUND', message: `No storage credential ${ref} in this project; see \`cloud storage credentials list\`` });
  return credential;
}

async function bucketIdsOf(ctx: Context, refs: string[]): Promise<string[]> {
  const buckets = await listBuckets(ctx);
  return refs.map((ref) => {
    const bucket = buckets.find((b) => b.id === ref || b.name === ref);
    if (!bucket) throw new ApiError({ status: 404, code: 'NOT_FOUND', message: `No bucket ${ref} in this project; see \`cloud storage list\`` });
    return bucket.id;
  });
}

/** CORS rules from a JSON file or stdin: the array `cors get --json` prints, or `{ "corsRules": [...] }`. */
async function readCorsRules(ctx: Context, file: string): Promise<CorsRule[]> {
  const text = file === '-' ? await readStdin(ctx.io) : readFileSync(file, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file === '-' ? 'stdin' : file} is not JSON: ${(err as Error).message}`);
  }
  const rules = Array.isArray(parsed) ? parsed : (parsed as { corsRules?: unknown } | null)?.corsRules;
  if (!Array.isArray(rules)) throw new UsageError('The CORS file holds an array of rules, or an object with a "corsRules" array');
  // Each rule's fields are the API's to check: a bad one answers 422 naming the field.
  return rules as CorsRule[];
}

export function registerStorage(program: Command, io: Io): void {
  const storage = program.command('storage').description('object storage buckets (S3), their tiers, CORS, CDN and access keys');
  examples(
    storage,
    'cloud storage create assets-prod --region fra1 --tier STARTER',
    'cloud storage credentials create deploy --bucket assets-prod --output deploy.env',
    'eval "$(cloud storage s3-env assets-prod --credential deploy)"',
  );

  examples(
    storage
      .command('list')
      .description('list the project’s buckets')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await listBuckets(ctx), COLUMNS);
        }),
      ),
    'cloud storage list',
  );

  examples(
    storage
      .command('get')
      .description('show a bucket, with the S3 endpoint to give S3 clients')
      .argument('<bucket>', 'the bucket’s id or name')
      .action(
        action(io, async (ctx, [ref]) => {
          ctx.out.item(await findBucket(ctx, ref!), FIELDS);
        }),
      ),
    'cloud storage get assets-prod',
  );

  examples(
    storage
      .command('preview')
      .description('what buying a bucket of a tier would charge today and monthly')
      .option('-t, --tier <tier>', `${TIERS.join(', ')}`, tierOf, 'STARTER')
      .action(
        action<{ tier: Tier }>(io, async (ctx, _args, options) => {
          const preview = await ctx.client.get('/projects/{projectId}/storage/object-storage/preview', {
            params: { path: { projectId: ctx.project() }, query: { provider: 'S3_PROVIDER', tier: options.tier } },
          });
          ctx.out.item(preview, CHARGE_FIELDS);
        }),
      ),
    'cloud storage preview --tier GROWTH',
  );

  examples(
    storage
      .command('create')
      .description('buy a bucket: the saved card is charged the prorated month now')
      .argument('<name>', 'global among all buckets: 3–63 lower-case letters, digits and hyphens')
      .requiredOption('-r, --region <region>', REGIONS.join(', '), oneOf('The region', REGIONS))
      .option('-t, --tier <tier>', `${TIERS.join(', ')} (see \`cloud storage preview\`)`, tierOf, 'STARTER')
      .option('--public-access', 'anyone may GET objects without a credential')
      .option('--versioning', 'keep every version of an object')
      .option('--cdn', 'serve it through the CDN (needs --public-access; metered per GB and request)')
      .option('--cors <file.json>', 'CORS rules to start with (as for `cloud storage cors set`)')
      .action(
        action<{ region: CreateBody['region']; tier: Tier; publicAccess?: boolean; versioning?: boolean; cdn?: boolean; cors?: string }>(
          io,
          async (ctx, [name], options) => {
            const projectId = ctx.project();
            const corsRules = options.cors === undefined ? undefined : await readCorsRules(ctx, options.cors);
            const preview = await ctx.client.get('/projects/{projectId}/storage/object-storage/preview', {
              params: { path: { projectId }, query: { provider: 'S3_PROVIDER', tier: options.tier } },
            });
            await ctx.client.post('/projects/{projectId}/storage/object-storage', {
              params: { path: { projectId } },
              body: {
                name: name!,
                provider: 'S3_PROVIDER',
                region: options.region,
                tier: options.tier,
                publicAccess: options.publicAccess === true,
                versioning: options.versioning === true,
                cdnEnabled: options.cdn === true,
                ...(corsRules ? { corsRules } : {}),
              },
            });
            // Creation answers { deployed: true }; bucket names are global, so the name finds it.
            const bucket = await findBucket(ctx, name!);
            ctx.out.note(chargeNote(preview));
            ctx.out.item(bucket, FIELDS);
          },
        ),
      ),
    'cloud storage create assets-prod --region fra1',
    'cloud storage create site-media -r nyc1 -t GROWTH --public-access --cdn --cors cors.json --json',
  );

  examples(
    storage
      .command('change-tier')
      .description('move a bucket to another tier: an upgrade is charged the prorated difference now, a downgrade credits it back')
      .argument('<bucket>', 'the bucket’s id or name')
      .argument('<tier>', TIERS.join(', '), tierOf)
      .option('--preview', 'only show what the change would charge or credit')
      .action(
        action<{ preview?: boolean }>(io, async (ctx, [ref, tier], options) => {
          const bucket = await findBucket(ctx, ref!);
          const path = bucketPath(ctx, bucket.id);
          const preview = await ctx.client.get('/projects/{projectId}/storage/object-storage/{bucketId}/plan-preview', {
            params: { ...path.params, query: { tier: tier as Tier } },
          });
          if (options.preview) {
            ctx.out.item(preview, tierChangeFields(`${bucket.tier} → ${tier}`));
            return;
          }
          const changed = await ctx.client.patch('/projects/{projectId}/storage/object-storage/{bucketId}/tier', { ...path, body: { tier: tier as Tier } });
          ctx.out.note(tierChangeNote(preview));
          ctx.out.item(changed, FIELDS);
        }),
      ),
    'cloud storage change-tier assets-prod GROWTH --preview',
    'cloud storage change-tier assets-prod GROWTH',
  );

  examples(
    storage
      .command('usage')
      .description('storage, egress and requests this billing month against the tier’s allowances (up to 24 hours old)')
      .argument('<bucket>', 'the bucket’s id or name')
      .action(
        action(io, async (ctx, [ref]) => {
          const bucket = await findBucket(ctx, ref!);
          const usage = await ctx.client.get('/projects/{projectId}/storage/object-storage/{bucketId}/usage', bucketPath(ctx, bucket.id));
          const count = (n: number) => n.toLocaleString('en-US');
          ctx.out.item(usage, [
            { header: 'Storage', value: (u) => `${bytes(u.storageBytes)} of ${bytes(u.allowances.storageBytes)}` },
            { header: 'Egress', value: (u) => `${bytes(u.egressBytes)} of ${bytes(u.allowances.egressBytes)}` },
            { header: 'Requests', value: (u) => `${count(u.requests)} of ${count(u.allowances.requests)}` },
            { header: 'Objects', value: (u) => count(u.objects) },
            { header: 'Since', value: (u) => when(u.periodStart) },
            { header: 'Measured', value: (u) => when(u.measuredAt) },
            {
              header: 'CDN',
              value: (u) =>
                `${u.cdn.enabled ? 'on' : 'off'}; ${money(u.cdn.perGb, u.cdn.currency)} per GB, ${money(u.cdn.perMillionRequests, u.cdn.currency)} per million requests`,
            },
          ]);
        }),
      ),
    'cloud storage usage assets-prod',
  );

  const cors = storage.command('cors').description('the CORS rules browsers on other origins are held to');
  examples(cors, 'cloud storage cors get assets-prod --json > cors.json', 'cloud storage cors set assets-prod cors.json');

  examples(
    cors
      .command('get')
      .description('show a bucket’s CORS rules (--json prints the array `cors set` takes)')
      .argument('<bucket>', 'the bucket’s id or name')
      .action(
        action(io, async (ctx, [ref]) => {
          const bucket = await findBucket(ctx, ref!);
          const list = (values: string[] | undefined) => (values && values.length > 0 ? values.join(',') : undefined);
          ctx.out.list(
            bucket.corsRules,
            [
              { header: 'origins', value: (r) => list(r.allowedOrigins) },
              { header: 'methods', value: (r) => list(r.allowedMethods) },
              { header: 'headers', value: (r) => list(r.allowedHeaders) },
              { header: 'expose', value: (r) => list(r.exposeHeaders) },
              { header: 'max age', value: (r) => (r.maxAgeSeconds === undefined ? undefined : `${r.maxAgeSeconds} s`) },
            ],
            `No CORS rules on ${bucket.name}: browsers on other origins are refused.`,
          );
        }),
      ),
    'cloud storage cors get assets-prod',
  );

  examples(
    cors
      .command('set')
      .description('replace all of a bucket’s CORS rules with those in a JSON file (- reads stdin)')
      .argument('<bucket>', 'the bucket’s id or name')
      .argument('<file.json>', 'an array of rules: allowedOrigins, allowedMethods, allowedHeaders, exposeHeaders, maxAgeSeconds')
      .action(
        action(io, async (ctx, [ref, file]) => {
          const corsRules = await readCorsRules(ctx, file!);
          const bucket = await findBucket(ctx, ref!);
          const saved = await ctx.client.patch('/projects/{projectId}/storage/object-storage/{bucketId}/cors', {
            ...bucketPath(ctx, bucket.id),
            body: { corsRules },
          });
          ctx.out.done(`${bucket.name} has ${saved.corsRules.length} CORS rule${saved.corsRules.length === 1 ? '' : 's'}`, saved);
        }),
      ),
    'cloud storage cors set assets-prod cors.json',
    `echo '[{"allowedOrigins":["https://example.com"],"allowedMethods":["GET","PUT"]}]' | cloud storage cors set assets-prod -`,
  );

  examples(
    cors
      .command('clear')
      .description('remove every CORS rule of a bucket')
      .argument('<bucket>', 'the bucket’s id or name')
      .action(
        action(io, async (ctx, [ref]) => {
          const bucket = await findBucket(ctx, ref!);
          const saved = await ctx.client.patch('/projects/{projectId}/storage/object-storage/{bucketId}/cors', {
            ...bucketPath(ctx, bucket.id),
            body: { corsRules: [] },
          });
          ctx.out.done(`${bucket.name} has no CORS rules`, saved);
        }),
      ),
    'cloud storage cors clear assets-prod',
  );

  const cdn = storage.command('cdn').description('serve a public bucket through the CDN (metered per GB and per request)');
  examples(cdn, 'cloud storage cdn enable site-media --wait');

  examples(
    cdn
      .command('enable')
      .description('turn the CDN on for a public bucket; its domain arrives about 30 seconds later')
      .argument('<bucket>', 'the bucket’s id or name')
      .option('-w, --wait', 'wait until the CDN domain is there')
      .option('--timeout <seconds>', 'how long --wait waits', '120')
      .action(
        action<{ wait?: boolean; timeout: string }>(io, async (ctx, [ref], options) => {
          const bucket = await findBucket(ctx, ref!);
          let state = await ctx.client.patch('/projects/{projectId}/storage/object-storage/{bucketId}/cdn', {
            ...bucketPath(ctx, bucket.id),
            body: { cdnEnabled: true },
          });
          if (options.wait && !state.cdnDomain) {
            const progress = startProgress(ctx.io, `Waiting for the CDN domain of ${bucket.name}…`);
            try {
              const settled = await ctx.client.waitFor(() => findBucket(ctx, bucket.id), {
                until: (b) => b.cdnDomain !== null,
                failWhen: (b) => !b.cdnEnabled && 'The CDN was turned off meanwhile',
                timeoutMs: timeoutMs(options.timeout),
                intervalMs: 2000,
              });
              state = { cdnEnabled: settled.cdnEnabled, cdnDomain: settled.cdnDomain };
              progress.stop(`The CDN serves ${bucket.name} at ${settled.cdnDomain}`);
            } catch (err) {
              progress.stop();
              throw err;
            }
          }
          ctx.out.done(
            state.cdnDomain
              ? `CDN on for ${bucket.name}: ${state.cdnDomain}`
              : `CDN on for ${bucket.name}; its domain arrives in about 30 s (see \`cloud storage get ${bucket.name}\`)`,
            state,
          );
        }),
      ),
    'cloud storage cdn enable site-media --wait',
  );

  examples(
    cdn
      .command('disable')
      .description('turn the CDN off; objects are then served from the S3 endpoint only')
      .argument('<bucket>', 'the bucket’s id or name')
      .action(
        action(io, async (ctx, [ref]) => {
          const bucket = await findBucket(ctx, ref!);
          const state = await ctx.client.patch('/projects/{projectId}/storage/object-storage/{bucketId}/cdn', {
            ...bucketPath(ctx, bucket.id),
            body: { cdnEnabled: false },
          });
          ctx.out.done(`CDN off for ${bucket.name}`, state);
        }),
      ),
    'cloud storage cdn disable site-media',
  );

  examples(
    storage
      .command('delete')
      .description('delete a bucket and every object in it, and stop its billing')
      .argument('<bucket>', 'the bucket’s id or name')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [ref], options) => {
          const bucket = await findBucket(ctx, ref!);
          await confirm(ctx, `Delete bucket ${bucket.name} (${bucket.id}) and every object in it?`, options.yes);
          await ctx.client.delete('/projects/{projectId}/storage/object-storage/{bucketId}', bucketPath(ctx, bucket.id));
          ctx.out.done(`Deleted bucket ${bucket.name}`, { id: bucket.id, deleted: true });
        }),
      ),
    'cloud storage delete assets-old --yes',
  );

  examples(
    storage
      .command('s3-env')
      .description('print shell exports that point aws s3 and the S3 SDKs at a bucket’s endpoint (eval it)')
      .argument('<bucket>', 'the bucket’s id or name')
      .option('-c, --credential <id>', 'a credential reaching the bucket, by id or name: its access key id is exported too')
      .action(
        action<{ credential?: string }>(io, async (ctx, [ref], options) => {
          const bucket = await findBucket(ctx, ref!);
          let credential: StorageCredential | null = null;
          if (options.credential) {
            const reaching = await ctx.client.get('/projects/{projectId}/storage/object-storage/{bucketId}/credentials', bucketPath(ctx, bucket.id));
            credential = reaching.find((c) => c.id === options.credential || c.name === options.credential) ?? null;
            if (!credential)
              throw new UsageError(
                `No credential ${options.credential} reaches ${bucket.name}; see \`cloud storage credentials list --bucket ${bucket.name}\``,
              );
          }
          const lines = [
            `export AWS_ENDPOINT_URL=${bucket.endpoint.url}`,
            `export AWS_REGION=${bucket.endpoint.region}`,
            `export AWS_DEFAULT_REGION=${bucket.endpoint.region}`,
            credential
              ? `export AWS_ACCESS_KEY_ID=${credential.accessKeyId}`
              : `# export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY of a credential reaching it (cloud storage credentials list --bucket ${bucket.name})`,
            // The secret was shown once, when the credential was made; the platform no longer has it to give.
            ...(credential ? [`# export AWS_SECRET_ACCESS_KEY=<the secret shown once when ${credential.name} was created>`] : []),
            ...(bucket.endpoint.pathStyle ? ['# path-style addressing: forcePathStyle: true in the SDKs; s3.addressing_style = path for the aws CLI'] : []),
            ...(bucket.endpoint.development ? ['# the embedded development endpoint: not for production data'] : []),
            `# aws s3 ls s3://${bucket.name}`,
          ];
          ctx.out.done(lines.join('\n'), { bucket: { id: bucket.id, name: bucket.name }, endpoint: bucket.endpoint, credential });
        }),
      ),
    'cloud storage s3-env assets-prod --credential deploy',
    'eval "$(cloud storage s3-env assets-prod)"; source deploy.env; aws s3 ls s3://assets-prod',
  );

  const credentials = storage.command('credentials').description('S3 access keys that reach the project’s buckets');
  examples(credentials, 'cloud storage credentials create deploy --bucket assets-prod --access write --output deploy.env');

  examples(
    credentials
      .command('list')
      .description('list the project’s storage credentials, or those reaching one bucket (secrets are never shown again)')
      .option('-b, --bucket <bucket>', 'only those reaching this bucket (scoped to it or project-wide)')
      .action(
        action<{ bucket?: string }>(io, async (ctx, _args, options) => {
          const rows = options.bucket
            ? await ctx.client.get(
                '/projects/{projectId}/storage/object-storage/{bucketId}/credentials',
                bucketPath(ctx, (await findBucket(ctx, options.bucket)).id),
              )
            : await ctx.client.get('/projects/{projectId}/iam', projectPath(ctx));
          ctx.out.list(rows, [
            { header: 'id', value: (c) => c.id },
            { header: 'name', value: (c) => c.name },
            { header: 'access key id', value: (c) => c.accessKeyId },
            { header: 'access', value: (c) => c.access },
            { header: 'buckets', value: (c) => bucketNames(c) },
            { header: 'legacy', value: (c) => c.legacy },
            { header: 'created', value: (c) => when(c.createdAt) },
          ]);
        }),
      ),
    'cloud storage credentials list',
    'cloud storage credentials list --bucket assets-prod',
  );

  examples(
    credentials
      .command('create')
      .description('issue an access key; its secret is shown this once (or written to --output) and never again')
      .argument('<name>', 'unique among the project’s credentials')
      .option('-b, --bucket <bucket>', 'a bucket it reaches, by id or name (repeatable); none: every bucket, present and future', collect, [])
      .option(
        '-a, --access <access>',
        'read (list, download), write (also upload, delete) or full (also bucket settings)',
        oneOf('The access', ACCESS),
        'write',
      )
      .option('-o, --output <file>', 'write AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY exports to this new file (mode 0600) instead of printing the secret')
      .action(
        action<{ bucket: string[]; access: Access; output?: string }>(io, async (ctx, [name], options) => {
          const bucketIds = options.bucket.length > 0 ? await bucketIdsOf(ctx, options.bucket) : null;
          // The file is made before the key is issued, so a path that cannot be written loses no secret.
          const file = options.output === undefined ? undefined : openSync(options.output, 'wx', 0o600);
          let issued: Schema<'IssuedStorageCredential'>;
          try {
            issued = await ctx.client.post('/projects/{projectId}/iam', { ...projectPath(ctx), body: { name: name!, bucketIds, access: options.access } });
          } catch (err) {
            if (file !== undefined) {
              closeSync(file);
              rmSync(options.output!);
            }
            throw err;
          }
          if (file !== undefined) {
            writeSync(file, `export AWS_ACCESS_KEY_ID=${issued.accessKeyId}\nexport AWS_SECRET_ACCESS_KEY=${issued.secretAccessKey}\n`);
            closeSync(file);
            const { secretAccessKey: _secret, ...credential } = issued;
            ctx.out.note(`The secret access key is in ${options.output}; it is not shown again.`);
            ctx.out.item(credential, CREDENTIAL_FIELDS);
            return;
          }
          ctx.out.note('Save the secret access key now: it is not shown again.');
          ctx.out.item(issued, [
            ...CREDENTIAL_FIELDS.slice(0, 3),
            { header: 'Secret access key', value: (c) => c.secretAccessKey },
            ...CREDENTIAL_FIELDS.slice(3),
          ]);
        }),
      ),
    'cloud storage credentials create deploy --bucket assets-prod --output deploy.env',
    'cloud storage credentials create backups -b db-dumps -a read --json',
  );

  examples(
    credentials
      .command('rescope')
      .description('change the buckets a credential reaches or its access (what is not given stays as it is)')
      .argument('<credential>', 'the credential’s id or name')
      .option('-b, --bucket <bucket>', 'a bucket it reaches, by id or name (repeatable); replaces the list', collect, [])
      .option('--all-buckets', 'reach every bucket of the project, present and future')
      .option('-a, --access <access>', 'read, write or full', oneOf('The access', ACCESS))
      .action(
        action<{ bucket: string[]; allBuckets?: boolean; access?: Access }>(io, async (ctx, [ref], options) => {
          if (options.allBuckets && options.bucket.length > 0) throw new UsageError('Give --bucket or --all-buckets, not both');
          if (!options.allBuckets && options.bucket.length === 0 && !options.access)
            throw new UsageError('Nothing to change: give --bucket, --all-buckets or --access');
          const current = await findCredential(ctx, ref!);
          // Both fields are always sent: the API takes a missing one as its default (every bucket, write access).
          const bucketIds = options.allBuckets
            ? null
            : options.bucket.length > 0
              ? await bucketIdsOf(ctx, options.bucket)
              : (current.buckets?.map((b) => b.id) ?? null);
          const changed = await ctx.client.patch('/projects/{projectId}/iam/{credentialId}', {
            params: { path: { projectId: ctx.project(), credentialId: current.id } },
            body: { bucketIds, access: options.access ?? current.access },
          });
          ctx.out.item(changed, CREDENTIAL_FIELDS);
        }),
      ),
    'cloud storage credentials rescope deploy --access read',
    'cloud storage credentials rescope deploy --bucket assets-prod --bucket site-media',
  );

  examples(
    credentials
      .command('delete')
      .alias('revoke')
      .description('revoke a credential: S3 clients using its key are refused from then on')
      .argument('<credential>', 'the credential’s id or name')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [ref], options) => {
          const credential = await findCredential(ctx, ref!);
          await confirm(ctx, `Revoke storage credential ${credential.name} (${credential.accessKeyId})? Clients using it stop working.`, options.yes);
          await ctx.client.delete('/projects/{projectId}/iam/{credentialId}', { params: { path: { projectId: ctx.project(), credentialId: credential.id } } });
          ctx.out.done(`Revoked storage credential ${credential.name}`, { id: credential.id, deleted: true });
        }),
      ),
    'cloud storage credentials delete deploy --yes',
  );
}
