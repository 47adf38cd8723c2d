import { ApiError, type Schema } from '@cloudpanel/sdk';
import type { Command } from 'commander';
import { CHARGE_FIELDS, chargeNote } from '../charges.ts';
import { action, confirm, examples } from '../command.ts';
import type { Context } from '../context.ts';
import { UsageError } from '../errors.ts';
import { readSecretLine, readStdin, type Io } from '../io.ts';
import { money, when, type Column } from '../output.ts';
import { CONFIG_NAME, environmentOption, type Environment } from './variables.ts';

type Secret = Schema<'Secret'>;

const COLUMNS: Column<Secret>[] = [
  { header: 'name', value: (s) => s.name },
  { header: 'environment', value: (s) => s.environment },
  { header: 'version', value: (s) => s.version },
  { header: 'updated', value: (s) => when(s.updatedAt) },
  { header: 'id', value: (s) => s.id },
];

const FIELDS: Column<Secret>[] = [
  { header: 'ID', value: (s) => s.id },
  { header: 'Name', value: (s) => s.name },
  { header: 'Environment', value: (s) => s.environment },
  { header: 'Version', value: (s) => s.version },
  { header: 'Description', value: (s) => s.description },
  { header: 'Created', value: (s) => `${when(s.createdAt)} by ${s.createdByUser.name}` },
  { header: 'Updated', value: (s) => `${when(s.updatedAt)} by ${s.updatedByUser.name}` },
];

const projectPath = (ctx: Context) => ({ params: { path: { projectId: ctx.project() } } });
const secretPath = (ctx: Context, secretId: string) => ({ params: { path: { projectId: ctx.project(), secretId } } });

/**
 * The secret as this tool shows it, with `--json` too: metadata only. The create and update answers
 * carry the value (and create a masked one); it is dropped here, whatever answer it comes in.
 */
function metadata<T extends Secret>(secret: T): { secret: Secret; dropped: boolean } {
  const { value: _value, maskedValue: _masked, ...rest } = secret as T & { value?: unknown; maskedValue?: unknown };
  return { secret: rest, dropped: _value !== undefined || _masked !== undefined };
}

const DROPPED_NOTE = 'The API answered a value with the metadata; it is not printed.';

async function listSecrets(ctx: Context, environment: Environment | undefined): Promise<Secret[]> {
  return ctx.client.get('/projects/{projectId}/secrets', { params: { path: { projectId: ctx.project() }, query: environment ? { environment } : {} } });
}

/**
 * A secret by id, or by name: in the environment given, else the one environment that has the name
 * (a name set in several environments needs --environment).
 */
async function findSecret(ctx: Context, ref: string, environment: Environment | undefined): Promise<Secret> {
  if (!CONFIG_NAME.test(ref)) return ctx.client.get('/projects/{projectId}/secrets/{secretId}', secretPath(ctx, ref));
  const matches = (await listSecrets(ctx, environment)).filter((s) => s.name === ref);
  if (matches.length > 1) throw new UsageError(`${ref} is set in ${matches.map((s) => s.environment).join(', ')}: choose one with --environment`);
  if (!matches[0]) {
    const where = environment ? ` in ${environment}` : '';
    throw new ApiError({ status: 404, code: 'NOT_FOUND', message: `No secret ${ref}${where} in this project; see \`cloud secrets list\`` });
  }
  return matches[0];
}

/**
 * The value, typed at the terminal without echo, or all of stdin when it is piped (a file, a
 * certificate). One final line break is dropped: `echo`, heredocs and files end with one that is not
 * part of the value.
 */
async function readValue(io: Io, name: string): Promise<string> {
  const value = io.stdin.isTTY ? await readSecretLine(io, `Value of ${name}: `) : (await readStdin(io)).replace(/\r?\n$/, '');
  if (value === '') throw new UsageError(`No value on stdin: pipe it in, e.g. \`printf %s "$VALUE" | cloud secrets set ${name}\``);
  return value;
}

/**
 * Refuses words after the name: a value typed there is in the shell's history already, and
 * commander's own "too many arguments" error would print it once more.
 */
function valueNotInArgv(handler: (...params: unknown[]) => Promise<void>): (...params: unknown[]) => Promise<void> {
  return async (...params) => {
    if ((params.at(-1) as Command).args.length > 1) {
      throw new UsageError(
        'The value is read from stdin, never from the command line (it would stay in the shell’s history): pipe it in, or type it when asked',
      );
    }
    await handler(...params);
  };
}

export function registerSecrets(program: Command, io: Io): void {
  const secrets = program.command('secrets').description('encrypted configuration given to deployments: values are written from stdin and never shown again');
  examples(secrets, 'cloud secrets list', 'printf %s "$STRIPE_KEY" | cloud secrets set STRIPE_KEY --environment production');

  examples(
    secrets
      .command('list')
      .description('list the project’s secrets (names and versions, never values)')
      .addOption(environmentOption('only the secrets of this environment'))
      .option('--effective', 'with --environment: the set a deployment there receives, with the `default` ones it does not override')
      .action(
        action<{ environment?: Environment; effective?: boolean }>(io, async (ctx, _args, options) => {
          if (options.effective && !options.environment) throw new UsageError('--effective needs --environment');
          const rows = await ctx.client.get('/projects/{projectId}/secrets', {
            params: {
              path: { projectId: ctx.project() },
              query: { ...(options.environment ? { environment: options.environment } : {}), ...(options.effective ? { effective: 'true' as const } : {}) },
            },
          });
          const shown = rows.map((row) => metadata(row));
          if (shown.some((s) => s.dropped)) ctx.out.note(DROPPED_NOTE);
          ctx.out.list(
            shown.map((s) => s.secret),
            COLUMNS,
          );
        }),
      ),
    'cloud secrets list',
    'cloud secrets list --environment production --effective --json',
  );

  examples(
    secrets
      .command('get')
      .description('show a secret’s metadata (its value cannot be read back)')
      .argument('<id or name>', 'the secret’s id, or its name')
      .addOption(environmentOption('the environment of the name, when it is set in several'))
      .action(
        action<{ environment?: Environment }>(io, async (ctx, [ref], options) => {
          const { secret, dropped } = metadata(await findSecret(ctx, ref!, options.environment));
          if (dropped) ctx.out.note(DROPPED_NOTE);
          ctx.out.item(secret, FIELDS);
        }),
      ),
    'cloud secrets get STRIPE_KEY --environment production',
    'cloud secrets get sec_01h… --json',
  );

  examples(
    secrets
      .command('set')
      .description('create a secret, or replace the value of the one of that name in the environment (a new version); the value is read from stdin')
      .argument('<name>', 'upper-case letters, digits and underscores, starting with a letter')
      .addOption(environmentOption('where it applies', 'default'))
      .option('-d, --description <text>', 'what it is for')
      .allowExcessArguments()
      .action(
        valueNotInArgv(
          action<{ environment: Environment; description?: string }>(io, async (ctx, [name], options) => {
            if (!CONFIG_NAME.test(name!))
              throw new UsageError(`"${name}" is not a secret name: upper-case letters, digits and underscores, starting with a letter`);
            const value = await readValue(ctx.io, name!);
            const existing = (await listSecrets(ctx, options.environment)).find((s) => s.name === name);
            const description = options.description === undefined ? {} : { description: options.description };
            const answer = existing
              ? await ctx.client.patch('/projects/{projectId}/secrets/{secretId}', { ...secretPath(ctx, existing.id), body: { value, ...description } })
              : await ctx.client.post('/projects/{projectId}/secrets', {
                  ...projectPath(ctx),
                  body: { name: name!, value, environment: options.environment, ...description },
                });
            const { secret } = metadata(answer);
            ctx.out.done(
              `${existing ? 'Updated' : 'Created'} ${secret.name} in ${secret.environment}, version ${secret.version} (${secret.id}); the value is stored encrypted and is not shown again`,
              secret,
            );
          }),
        ),
      ),
    'cloud secrets set DB_PASSWORD    # type it; nothing is echoed',
    'cloud secrets set TLS_KEY -d "the site’s private key" < tls.key',
    'printf %s "$STRIPE_KEY" | cloud secrets set STRIPE_KEY --environment production',
  );

  examples(
    secrets
      .command('delete')
      .description('delete a secret; its audit trail is kept, packs bought stay billed')
      .argument('<id or name>', 'the secret’s id, or its name')
      .addOption(environmentOption('the environment of the name, when it is set in several'))
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ environment?: Environment; yes?: boolean }>(io, async (ctx, [ref], options) => {
          const secret = await findSecret(ctx, ref!, options.environment);
          await confirm(ctx, `Delete secret ${secret.name} of ${secret.environment}? Deployments stop receiving it from their next start.`, options.yes);
          await ctx.client.delete('/projects/{projectId}/secrets/{secretId}', secretPath(ctx, secret.id));
          ctx.out.done(`Deleted ${secret.name} of ${secret.environment}`, { id: secret.id, deleted: true });
        }),
      ),
    'cloud secrets delete STRIPE_KEY --environment staging --yes',
  );

  examples(
    secrets
      .command('usage')
      .description('how many secrets the project holds against its limit, and the price of a pack of more')
      .action(
        action(io, async (ctx) => {
          ctx.out.item(await ctx.client.get('/projects/{projectId}/secrets/usage', projectPath(ctx)), [
            { header: 'Used', value: (u) => `${u.used} of ${u.limit}` },
            { header: 'Free', value: (u) => u.freeLimit },
            { header: 'Packs bought', value: (u) => `${u.paidPacks} (${u.packSize} secrets each)` },
            { header: 'Pack price', value: (u) => (u.packPrice ? `${money(u.packPrice.monthly, u.packPrice.currency)} a month` : 'not sold here') },
          ]);
        }),
      ),
    'cloud secrets usage',
  );

  examples(
    secrets
      .command('audit')
      .description('who created, updated and deleted a secret, newest first (kept after it is deleted; owners and admins)')
      .argument('<id or name>', 'the secret’s id (a deleted one’s too), or its name')
      .addOption(environmentOption('the environment of the name, when it is set in several'))
      .action(
        action<{ environment?: Environment }>(io, async (ctx, [ref], options) => {
          const secretId = CONFIG_NAME.test(ref!) ? (await findSecret(ctx, ref!, options.environment)).id : ref!;
          ctx.out.list(await ctx.client.get('/projects/{projectId}/secrets/{secretId}/audit', secretPath(ctx, secretId)), [
            { header: 'when', value: (e) => when(e.createdAt) },
            { header: 'action', value: (e) => e.action },
            { header: 'by', value: (e) => `${e.actor.name} <${e.actor.email}>` },
          ]);
        }),
      ),
    'cloud secrets audit STRIPE_KEY --environment production',
    'cloud secrets audit sec_01h… --json',
  );

  examples(
    secrets
      .command('upgrade')
      .description('buy packs of more secrets: the saved card is charged the prorated month now, then monthly')
      .option('-n, --packs <count>', 'packs to buy, 1 to 20 (see `cloud secrets usage` for their size and price)', '1')
      .option('--dry-run', 'only show what buying would charge')
      .action(
        action<{ packs: string; dryRun?: boolean }>(io, async (ctx, _args, options) => {
          const packs = Number(options.packs);
          if (!Number.isInteger(packs) || packs < 1 || packs > 20) throw new UsageError(`--packs takes a whole number from 1 to 20, not "${options.packs}"`);
          const preview = await ctx.client.get('/projects/{projectId}/secrets/upgrade/preview', {
            params: { path: { projectId: ctx.project() }, query: { packs } },
          });
          if (options.dryRun) {
            ctx.out.item(preview, CHARGE_FIELDS);
            return;
          }
          const usage = await ctx.client.post('/projects/{projectId}/secrets/upgrade', { ...projectPath(ctx), body: { packs } });
          ctx.out.note(chargeNote(preview, ' more'));
          ctx.out.done(`The project may now hold ${usage.limit} secrets (${usage.used} used)`, usage);
        }),
      ),
    'cloud secrets upgrade --packs 2 --dry-run',
    'cloud secrets upgrade --packs 2',
  );
}
