import { spawn } from 'node:child_process';
import { ApiError, type operations, type Schema } from '@cloudpanel/sdk';
import type { Command } from 'commander';
import { CHARGE_FIELDS, chargeNote } from '../charges.ts';
import { integer, oneOf, upperCase } from '../parse.ts';
import { action, confirm, examples } from '../command.ts';
import type { Context } from '../context.ts';
import { UsageError } from '../errors.ts';
import { readStdin, type Io } from '../io.ts';
import { when, type Column } from '../output.ts';
import { bytes } from './storage.ts';

type Registry = Schema<'ContainerRegistry'>;
type Repository = Schema<'ContainerRepository'>;
type RegistrySettings = NonNullable<operations['containerRegistry-update']['requestBody']>['content']['application/json'];
type RepositoryChange = NonNullable<operations['containerRegistry-updateRepository']['requestBody']>['content']['application/json'];
type RegionValue = operations['containerRegistry-create']['requestBody']['content']['application/json']['region'];

// Records rather than arrays, so the compiler checks that each list is exactly what the API accepts.
const MUTABILITY = Object.keys({ MUTABLE: 0, IMMUTABLE: 0 } satisfies Record<Registry['imageTagMutability'], 0>) as Registry['imageTagMutability'][];
const ENCRYPTION = Object.keys({ AES256: 0, KMS: 0 } satisfies Record<Registry['encryptionType'], 0>) as Registry['encryptionType'][];
const VISIBILITY = Object.keys({ PRIVATE: 0, PUBLIC: 0 } satisfies Record<Repository['visibility'], 0>) as Repository['visibility'][];

/** `docker login` needs a username, but the platform's token realm reads only the password (an API key). */
const DOCKER_USERNAME = 'cloud';

const REGISTRY_COLUMNS: Column<Registry>[] = [
  { header: 'id', value: (r) => r.id },
  { header: 'name', value: (r) => r.name },
  { header: 'region', value: (r) => r.region },
  { header: 'endpoint', value: (r) => r.endpoint },
  { header: 'status', value: (r) => r.status },
  { header: 'repositories', value: (r) => r.repositories.length },
  { header: 'created', value: (r) => when(r.createdAt) },
];

const REGISTRY_FIELDS: Column<Registry>[] = [
  { header: 'Id', value: (r) => r.id },
  { header: 'Name', value: (r) => r.name },
  { header: 'Region', value: (r) => r.region },
  { header: 'Endpoint', value: (r) => r.endpoint },
  { header: 'Status', value: (r) => r.status },
  { header: 'Tags', value: (r) => r.imageTagMutability },
  { header: 'Scan on push', value: (r) => r.scanOnPush },
  { header: 'Encryption', value: (r) => (r.encryptionType === 'KMS' ? `KMS ${r.kmsKeyArn}` : r.encryptionType) },
  {
    header: 'Lifecycle',
    value: (r) => (r.lifecycleEnabled ? `keep the last ${r.lifecycleKeepLastN} tagged; untagged deleted after ${r.lifecycleUntaggedAfterDays} days` : 'off'),
  },
  { header: 'Repositories', value: (r) => r.repositories.map((repo) => repo.name).join(', ') },
  { header: 'Created', value: (r) => when(r.createdAt) },
];

const REPOSITORY_COLUMNS: Column<Repository>[] = [
  { header: 'id', value: (r) => r.id },
  { header: 'name', value: (r) => r.name },
  { header: 'visibility', value: (r) => r.visibility },
  { header: 'uri', value: (r) => r.uri },
  { header: 'last push', value: (r) => when(r.lastPushedAt) },
  { header: 'created', value: (r) => when(r.createdAt) },
];

const REPOSITORY_FIELDS: Column<Repository>[] = [
  { header: 'Id', value: (r) => r.id },
  { header: 'Name', value: (r) => r.name },
  { header: 'URI', value: (r) => r.uri },
  { header: 'Visibility', value: (r) => r.visibility },
  {
    header: 'Public egress',
    value: (r) =>
      r.publicEgressCapGb === null
        ? r.publicEgressCapHitAt
          ? `closed when it reached its cap, ${when(r.publicEgressCapHitAt)}`
          : undefined
        : `${r.publicEgressUsedGb} of ${r.publicEgressCapGb} GB this month`,
  },
  { header: 'Tags', value: (r) => r.imageTagMutability },
  { header: 'Scan on push', value: (r) => r.scanOnPush },
  { header: 'Encryption', value: (r) => r.encryptionType },
  {
    header: 'Retention',
    value: (r) => (r.gcEnabled ? `keep the last ${r.gcKeepLastN}${r.gcDeleteUntagged ? `; untagged deleted after ${r.gcUntaggedAfterDays} days` : ''}` : 'off'),
  },
  { header: 'Last push', value: (r) => when(r.lastPushedAt) },
  { header: 'Last pull', value: (r) => when(r.lastPulledAt) },
  { header: 'Created', value: (r) => when(r.createdAt) },
];

const projectPath = (ctx: Context) => ({ params: { path: { projectId: ctx.project() } } });
const registryPath = (ctx: Context, id: string) => ({ params: { path: { projectId: ctx.project(), id } } });
const repositoryPath = (ctx: Context, id: string, repoId: string) => ({ params: { path: { projectId: ctx.project(), id, repoId } } });

/** A registry by id or name; names cannot hold the underscore of an id, so one read settles which. */
async function findRegistry(ctx: Context, ref: string): Promise<Registry> {
  if (ref.startsWith('creg_')) return ctx.client.get('/projects/{projectId}/storage/container-registry/{id}', registryPath(ctx, ref));
  const registry = (await ctx.client.get('/projects/{projectId}/storage/container-registry', projectPath(ctx))).find((r) => r.name === ref);
  if (!registry) throw new ApiError({ status: 404, code: 'NOT_FOUND', message: `No registry ${ref} in this project; see \`cloud registry list\`` });
  return registry;
}

/** A repository of a registry by id or name, from the registry read that carries them. */
async function findRepository(ctx: Context, registryRef: string, ref: string): Promise<{ registry: Registry; repository: Repository }> {
  const registry = await findRegistry(ctx, registryRef);
  const repository = registry.repositories.find((r) => r.id === ref || r.name === ref);
  if (!repository) {
    throw new ApiError({
      status: 404,
      code: 'NOT_FOUND',
      message: `No repository ${ref} in registry ${registry.name}; see \`cloud registry repositories list ${registry.name}\``,
    });
  }
  return { registry, repository };
}

/** Options of the settings a registry is created with and can change; each is sent only when given. */
function settingsOptions(command: Command): Command {
  return command
    .option(
      '--image-tag-mutability <mutability>',
      'MUTABLE, or IMMUTABLE to refuse a push under a tag that names another image',
      oneOf('Tag mutability', MUTABILITY, upperCase),
    )
    .option('--scan-on-push', 'scan every image when it is pushed')
    .option('--no-scan-on-push', 'do not scan pushed images')
    .option(
      '--encryption-type <type>',
      'AES256, or KMS with --kms-key-arn; applies to repositories created afterwards',
      oneOf('The encryption type', ENCRYPTION, upperCase),
    )
    .option('--kms-key-arn <arn>', 'the KMS key, with --encryption-type KMS')
    .option('--lifecycle', 'retention for new repositories: keep the last N tagged images, delete untagged ones')
    .option('--no-lifecycle', 'new repositories keep every image')
    .option('--lifecycle-keep-last-n <n>', 'new repositories keep this many most recent tagged images (1–1000)', integer(1, 1000))
    .option('--lifecycle-untagged-after-days <days>', 'new repositories delete untagged images this many days after their push (1–365)', integer(1, 365));
}

interface SettingsFlags {
  imageTagMutability?: Registry['imageTagMutability'];
  scanOnPush?: boolean;
  encryptionType?: Registry['encryptionType'];
  kmsKeyArn?: string;
  lifecycle?: boolean;
  lifecycleKeepLastN?: number;
  lifecycleUntaggedAfterDays?: number;
}

function settingsOf(flags: SettingsFlags): RegistrySettings {
  const settings: RegistrySettings = {
    imageTagMutability: flags.imageTagMutability,
    scanOnPush: flags.scanOnPush,
    encryptionType: flags.encryptionType,
    kmsKeyArn: flags.kmsKeyArn,
    lifecycleEnabled: flags.lifecycle,
    lifecycleKeepLastN: flags.lifecycleKeepLastN,
    lifecycleUntaggedAfterDays: flags.lifecycleUntaggedAfterDays,
  };
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

/**
 * Runs `docker login` with the key on its stdin, never in its arguments (other users can read a
 * process's arguments). Docker's own output is passed on, to stderr in --json mode so stdout stays JSON.
 */
function dockerLogin(ctx: Context, host: string, password: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker', ['login', host, '--username', DOCKER_USERNAME, '--password-stdin'], { env: ctx.io.env, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.on('data', (data: Buffer) => (ctx.out.json ? ctx.io.stderr : ctx.io.stdout).write(data.toString()));
    child.stderr.on('data', (data: Buffer) => ctx.io.stderr.write(data.toString()));
    child.on('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new UsageError('docker is not on PATH: install it, or add --print to get the command to run where it is') : err),
    );
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`docker login ${host} failed (exit ${code})`))));
    // When docker is missing or exits at once, the write fails; the error or close above reports why.
    child.stdin.on('error', () => {});
    child.stdin.end(password);
  });
}

export function registerRegistry(program: Command, io: Io): void {
  const registry = program.command('registry').description('container registries, their repositories and images; docker login');
  examples(
    registry,
    'cloud registry create acme-images --region fra1',
    'cloud registry repositories create acme-images web',
    'cloud registry docker-login acme-images',
  );

  examples(
    registry
      .command('regions')
      .description('where a registry can be made (fixed for its life)')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.client.get('/projects/{projectId}/storage/container-registry/regions', projectPath(ctx)), [
            { header: 'region', value: (r) => r.value },
            { header: 'name', value: (r) => r.label },
          ]);
        }),
      ),
    'cloud registry regions',
  );

  examples(
    registry
      .command('list')
      .description('list the project’s registries')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.client.get('/projects/{projectId}/storage/container-registry', projectPath(ctx)), REGISTRY_COLUMNS);
        }),
      ),
    'cloud registry list',
  );

  examples(
    registry
      .command('get')
      .description('show a registry and its settings')
      .argument('<registry>', 'the registry’s id or name')
      .action(
        action(io, async (ctx, [ref]) => {
          ctx.out.item(await findRegistry(ctx, ref!), REGISTRY_FIELDS);
        }),
      ),
    'cloud registry get acme-images',
  );

  examples(
    registry
      .command('preview')
      .description('what buying a registry would charge today and monthly')
      .action(
        action(io, async (ctx) => {
          ctx.out.item(await ctx.client.get('/projects/{projectId}/storage/container-registry/preview', projectPath(ctx)), CHARGE_FIELDS);
        }),
      ),
    'cloud registry preview',
  );

  examples(
    settingsOptions(
      registry
        .command('create')
        .description('buy a registry: the saved card is charged the prorated monthly fee now')
        .argument('<name>', 'global, the first part of every image name: 3–63 lower-case letters, digits and hyphens')
        .requiredOption('-r, --region <region>', 'see `cloud registry regions`'),
    ).action(
      action<SettingsFlags & { region: string }>(io, async (ctx, [name], options) => {
        const projectId = ctx.project();
        const preview = await ctx.client.get('/projects/{projectId}/storage/container-registry/preview', { params: { path: { projectId } } });
        const { id } = await ctx.client.post('/projects/{projectId}/storage/container-registry', {
          params: { path: { projectId } },
          // The region is the API's to check against its list: a wrong one answers 422 naming it.
          body: { name: name!, region: options.region as RegionValue, ...settingsOf(options) },
        });
        const created = await ctx.client.get('/projects/{projectId}/storage/container-registry/{id}', { params: { path: { projectId, id } } });
        ctx.out.note(chargeNote(preview));
        ctx.out.item(created, REGISTRY_FIELDS);
      }),
    ),
    'cloud registry create acme-images --region fra1',
    'cloud registry create acme-releases -r ams3 --image-tag-mutability IMMUTABLE --lifecycle-keep-last-n 50 --json',
  );

  examples(
    settingsOptions(
      registry
        .command('update')
        .description('change a registry’s settings: tag mutability and scanning apply to every repository at once, the rest to new ones')
        .argument('<registry>', 'the registry’s id or name'),
    ).action(
      action<SettingsFlags>(io, async (ctx, [ref], options) => {
        const settings = settingsOf(options);
        if (Object.keys(settings).length === 0) throw new UsageError('Nothing to change: give at least one setting (see --help)');
        const { id } = await findRegistry(ctx, ref!);
        ctx.out.item(
          await ctx.client.patch('/projects/{projectId}/storage/container-registry/{id}', { ...registryPath(ctx, id), body: settings }),
          REGISTRY_FIELDS,
        );
      }),
    ),
    'cloud registry update acme-images --image-tag-mutability IMMUTABLE',
    'cloud registry update acme-images --no-scan-on-push --lifecycle-keep-last-n 25',
  );

  examples(
    registry
      .command('delete')
      .description('delete a registry with every repository and image in it, and stop its billing')
      .argument('<registry>', 'the registry’s id or name')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [ref], options) => {
          const found = await findRegistry(ctx, ref!);
          const images = found.repositories.length === 1 ? '1 repository' : `${found.repositories.length} repositories`;
          await confirm(ctx, `Delete registry ${found.name} (${found.id}) with its ${images} and all their images?`, options.yes);
          await ctx.client.delete('/projects/{projectId}/storage/container-registry/{id}', registryPath(ctx, found.id));
          ctx.out.done(`Deleted registry ${found.name}`, { id: found.id, deleted: true });
        }),
      ),
    'cloud registry delete acme-old --yes',
  );

  examples(
    registry
      .command('docker-login')
      .description('log docker in to a registry with an API key, passed on stdin; --print shows the command instead')
      .argument('<registry>', 'the registry’s id or name')
      .option('--password-stdin', 'log in with the API key read from stdin (a narrower one, e.g. registry:read to pull only) instead of this tool’s')
      .option('--print', 'print the docker login command to run (it reads the key from $CLOUD_API_KEY) instead of running it')
      .action(
        action<{ passwordStdin?: boolean; print?: boolean }>(io, async (ctx, [ref], options) => {
          const { endpoint: host, name } = await findRegistry(ctx, ref!);
          if (options.print) {
            // A shell builtin pipes the key in, so it never appears in any process's arguments.
            const command = `printf '%s' "$CLOUD_API_KEY" | docker login ${host} --username ${DOCKER_USERNAME} --password-stdin`;
            ctx.out.note('CLOUD_API_KEY: an API key of this project with registry:read (and registry:write to push)');
            ctx.out.done(command, { command, host, username: DOCKER_USERNAME });
            return;
          }
          const password = options.passwordStdin ? (await readStdin(ctx.io)).split(/\r?\n/)[0]!.trim() : ctx.apiKey;
          if (!password)
            throw new UsageError(
              options.passwordStdin ? 'No API key on stdin' : 'Not signed in: run `cloud auth login`, set CLOUD_API_KEY, or pipe a key with --password-stdin',
            );
          await dockerLogin(ctx, host, password);
          ctx.out.done(`docker is logged in to ${host}: push and pull ${host}/${name}/<repository>:<tag>`, { host, username: DOCKER_USERNAME, loggedIn: true });
        }),
      ),
    'cloud registry docker-login acme-images',
    'printf %s "$PULL_ONLY_KEY" | cloud registry docker-login acme-images --password-stdin',
    'cloud registry docker-login acme-images --print',
  );

  examples(
    registry
      .command('credentials')
      .description('who can reach a repository (API keys with registry scopes, anyone while PUBLIC) and how docker logs in')
      .argument('<registry>', 'the registry’s id or name')
      .argument('<repository>', 'the repository’s id or name')
      .action(
        action(io, async (ctx, [registryRef, ref]) => {
          const { registry: found, repository } = await findRepository(ctx, registryRef!, ref!);
          const access = await ctx.client.get(
            '/projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}/credentials',
            repositoryPath(ctx, found.id, repository.id),
          );
          if (ctx.out.json) return ctx.out.done('', access);
          if (access.error) ctx.io.stderr.write(`The registry could not be reached, so nobody is listed: ${access.error}\n`);
          ctx.out.list(access.users, [
            { header: 'kind', value: (u) => u.kind },
            { header: 'name', value: (u) => u.name },
            { header: 'key', value: (u) => (u.keyPrefix ? `${u.keyPrefix}…` : undefined) },
            { header: 'actions', value: (u) => u.actions.join(',') },
            { header: 'last used', value: (u) => when(u.lastUsedAt) },
            { header: 'expires', value: (u) => (u.kind === 'apiKey' ? (u.expiresAt ? when(u.expiresAt) : 'never') : undefined) },
          ]);
          ctx.out.note(`docker login ${access.login.host} (username: ${access.login.username}; password: ${access.login.passwordHint})`);
        }),
      ),
    'cloud registry credentials acme-images web',
  );

  const repositories = registry.command('repositories').alias('repos').description('a registry’s repositories: visibility, public egress cap and retention');
  examples(repositories, 'cloud registry repositories create acme-images web', 'cloud registry repositories list acme-images');

  examples(
    repositories
      .command('list')
      .description('list a registry’s repositories')
      .argument('<registry>', 'the registry’s id or name')
      .action(
        action(io, async (ctx, [ref]) => {
          const { id } = await findRegistry(ctx, ref!);
          ctx.out.list(await ctx.client.get('/projects/{projectId}/storage/container-registry/{id}/repositories', registryPath(ctx, id)), REPOSITORY_COLUMNS);
        }),
      ),
    'cloud registry repositories list acme-images',
  );

  examples(
    repositories
      .command('get')
      .description('show a repository')
      .argument('<registry>', 'the registry’s id or name')
      .argument('<repository>', 'the repository’s id or name')
      .action(
        action(io, async (ctx, [registryRef, ref]) => {
          const { registry: found, repository } = await findRepository(ctx, registryRef!, ref!);
          ctx.out.item(
            await ctx.client.get('/projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}', repositoryPath(ctx, found.id, repository.id)),
            REPOSITORY_FIELDS,
          );
        }),
      ),
    'cloud registry repositories get acme-images web',
  );

  examples(
    repositories
      .command('create')
      .description('make a repository (a push by a key with registry:write makes a PRIVATE one too)')
      .argument('<registry>', 'the registry’s id or name')
      .argument('<name>', 'lower-case letters and digits, separated by single dots, underscores or hyphens')
      .option(
        '--visibility <visibility>',
        'PRIVATE, or PUBLIC for anonymous pulls (needs --public-egress-cap-gb)',
        oneOf('The visibility', VISIBILITY, upperCase),
        'PRIVATE',
      )
      .option('--public-egress-cap-gb <gb>', 'GB of anonymous pulls a billing month before it closes to PRIVATE (1–10000)', integer(1, 10000))
      .action(
        action<{ visibility: Repository['visibility']; publicEgressCapGb?: number }>(io, async (ctx, [registryRef, name], options) => {
          const { id } = await findRegistry(ctx, registryRef!);
          const repository = await ctx.client.post('/projects/{projectId}/storage/container-registry/{id}/repositories', {
            ...registryPath(ctx, id),
            body: {
              name: name!,
              visibility: options.visibility,
              ...(options.publicEgressCapGb === undefined ? {} : { publicEgressCapGb: options.publicEgressCapGb }),
            },
          });
          ctx.out.note(`docker push ${repository.uri}:<tag>`);
          ctx.out.item(repository, REPOSITORY_FIELDS);
        }),
      ),
    'cloud registry repositories create acme-images web',
    'cloud registry repositories create acme-images sdk --visibility PUBLIC --public-egress-cap-gb 100',
  );

  examples(
    repositories
      .command('update')
      .description('change a repository’s visibility, public egress cap or retention')
      .argument('<registry>', 'the registry’s id or name')
      .argument('<repository>', 'the repository’s id or name')
      .option('--visibility <visibility>', 'PRIVATE (clears the cap) or PUBLIC (needs a cap)', oneOf('The visibility', VISIBILITY, upperCase))
      .option('--public-egress-cap-gb <gb>', 'GB of anonymous pulls a billing month (1–10000); raising it reopens a closed repository', integer(1, 10000))
      .option('--gc', 'apply the retention policy')
      .option('--no-gc', 'keep every image')
      .option('--gc-keep-last-n <n>', 'keep this many most recent tagged images (1–1000)', integer(1, 1000))
      .option('--gc-delete-untagged', 'delete untagged images after --gc-untagged-after-days')
      .option('--no-gc-delete-untagged', 'keep untagged images')
      .option('--gc-untagged-after-days <days>', 'days after its push an untagged image is deleted (1–365)', integer(1, 365))
      .action(
        action<{
          visibility?: Repository['visibility'];
          publicEgressCapGb?: number;
          gc?: boolean;
          gcKeepLastN?: number;
          gcDeleteUntagged?: boolean;
          gcUntaggedAfterDays?: number;
        }>(io, async (ctx, [registryRef, ref], options) => {
          const change: RepositoryChange = Object.fromEntries(
            Object.entries({
              visibility: options.visibility,
              publicEgressCapGb: options.publicEgressCapGb,
              gcEnabled: options.gc,
              gcKeepLastN: options.gcKeepLastN,
              gcDeleteUntagged: options.gcDeleteUntagged,
              gcUntaggedAfterDays: options.gcUntaggedAfterDays,
            } satisfies RepositoryChange).filter(([, value]) => value !== undefined),
          );
          if (Object.keys(change).length === 0) throw new UsageError('Nothing to change: give at least one option (see --help)');
          const { registry: found, repository } = await findRepository(ctx, registryRef!, ref!);
          ctx.out.item(
            await ctx.client.patch('/projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}', {
              ...repositoryPath(ctx, found.id, repository.id),
              body: change,
            }),
            REPOSITORY_FIELDS,
          );
        }),
      ),
    'cloud registry repositories update acme-images sdk --visibility PUBLIC --public-egress-cap-gb 100',
    'cloud registry repositories update acme-images web --gc-keep-last-n 5 --no-gc-delete-untagged',
  );

  examples(
    repositories
      .command('delete')
      .description('delete a repository and every image in it')
      .argument('<registry>', 'the registry’s id or name')
      .argument('<repository>', 'the repository’s id or name')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [registryRef, ref], options) => {
          const { registry: found, repository } = await findRepository(ctx, registryRef!, ref!);
          await confirm(ctx, `Delete repository ${repository.uri} and every image in it?`, options.yes);
          await ctx.client.delete('/projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}', repositoryPath(ctx, found.id, repository.id));
          ctx.out.done(`Deleted repository ${repository.uri}`, { id: repository.id, deleted: true });
        }),
      ),
    'cloud registry repositories delete acme-images web --yes',
  );

  const images = registry.command('images').description('the images of a repository, read from the registry');
  examples(images, 'cloud registry images list acme-images web');

  examples(
    images
      .command('list')
      .description('list a repository’s images, newest push first (an image whose tag moved on has no tags)')
      .argument('<registry>', 'the registry’s id or name')
      .argument('<repository>', 'the repository’s id or name')
      .action(
        action(io, async (ctx, [registryRef, ref]) => {
          const { registry: found, repository } = await findRepository(ctx, registryRef!, ref!);
          const rows = await ctx.client.get(
            '/projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}/images',
            repositoryPath(ctx, found.id, repository.id),
          );
          ctx.out.list(
            rows,
            [
              { header: 'digest', value: (i) => i.digest },
              { header: 'tags', value: (i) => i.tags.join(',') },
              { header: 'size', value: (i) => bytes(i.sizeBytes) },
              { header: 'pushed', value: (i) => when(i.pushedAt) },
              { header: 'last pull', value: (i) => when(i.lastPulledAt) },
              {
                header: 'findings',
                value: (i) =>
                  i.scanFindings
                    ? Object.entries(i.scanFindings)
                        .map(([severity, count]) => `${severity.toLowerCase()} ${count}`)
                        .join(', ') || 'none'
                    : undefined,
              },
              { header: 'expired', value: (i) => (i.expiredAt ? when(i.expiredAt) : undefined) },
            ],
            `No images in ${repository.uri} yet.`,
          );
        }),
      ),
    'cloud registry images list acme-images web',
  );

  examples(
    images
      .command('delete')
      .description('delete an image by digest, with every tag on it (deleting by tag is not supported)')
      .argument('<registry>', 'the registry’s id or name')
      .argument('<repository>', 'the repository’s id or name')
      .argument('<digest>', 'the image’s sha256:… digest (see `cloud registry images list`)')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [registryRef, ref, digest], options) => {
          if (!digest!.startsWith('sha256:'))
            throw new UsageError(`"${digest}" is not a digest: images are deleted by their sha256:… digest, which removes every tag on them`);
          const { registry: found, repository } = await findRepository(ctx, registryRef!, ref!);
          await confirm(ctx, `Delete image ${repository.uri}@${digest} and every tag on it?`, options.yes);
          await ctx.client.delete('/projects/{projectId}/storage/container-registry/{id}/repositories/{repoId}/images/{digest}', {
            params: { path: { projectId: ctx.project(), id: found.id, repoId: repository.id, digest: digest! } },
          });
          ctx.out.done(`Deleted image ${repository.uri}@${digest}`, { digest, deleted: true });
        }),
      ),
    'cloud registry images delete acme-images web sha256:4f5c… --yes',
  );
}
