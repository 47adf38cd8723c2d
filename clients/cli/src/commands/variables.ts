import { readFileSync } from 'node:fs';
import { ApiError, type Schema } from '@cloudpanel/sdk';
import { Option, type Command } from 'commander';
import { action, confirm, examples } from '../command.ts';
import type { Context } from '../context.ts';
import { UsageError } from '../errors.ts';
import { readStdin, type Io } from '../io.ts';
import { when, type Column } from '../output.ts';

type Variable = Schema<'Variable'>;
export type Environment = Variable['environment'];

/** The deployment environments secrets and variables belong to; `default` applies wherever an environment has no entry of its own. */
export const ENVIRONMENTS: readonly Environment[] = ['default', 'development', 'staging', 'production'];

/** Names of secrets and variables; anything else given where a name or an id goes is an id. */
export const CONFIG_NAME = /^[A-Z][A-Z0-9_]*$/;

export function environmentOption(description: string, fallback?: Environment): Option {
  const option = new Option('-e, --environment <environment>', description).choices(ENVIRONMENTS);
  return fallback === undefined ? option : option.default(fallback);
}

const COLUMNS: Column<Variable>[] = [
  { header: 'name', value: (v) => v.name },
  { header: 'environment', value: (v) => v.environment },
  { header: 'value', value: (v) => v.value },
  { header: 'id', value: (v) => v.id },
];

const FIELDS: Column<Variable>[] = [
  { header: 'ID', value: (v) => v.id },
  { header: 'Name', value: (v) => v.name },
  { header: 'Environment', value: (v) => v.environment },
  { header: 'Value', value: (v) => v.value },
  { header: 'Description', value: (v) => v.description },
  { header: 'Created', value: (v) => `${when(v.createdAt)} by ${v.createdByUser.name}` },
  { header: 'Updated', value: (v) => `${when(v.updatedAt)} by ${v.updatedByUser.name}` },
];

const projectPath = (ctx: Context) => ({ params: { path: { projectId: ctx.project() } } });
const variablePath = (ctx: Context, variableId: string) => ({ params: { path: { projectId: ctx.project(), variableId } } });

async function listVariables(ctx: Context, environment: Environment | undefined): Promise<Variable[]> {
  return ctx.client.get('/projects/{projectId}/variables', { params: { path: { projectId: ctx.project() }, query: environment ? { environment } : {} } });
}

/**
 * A variable by id, or by name: in the environment given, else the one environment that has the
 * name (a name set in several environments needs --environment).
 */
async function findVariable(ctx: Context, ref: string, environment: Environment | undefined): Promise<Variable> {
  if (!CONFIG_NAME.test(ref)) return ctx.client.get('/projects/{projectId}/variables/{variableId}', variablePath(ctx, ref));
  const matches = (await listVariables(ctx, environment)).filter((v) => v.name === ref);
  if (matches.length > 1) {
    throw new UsageError(`${ref} is set in ${matches.map((v) => v.environment).join(', ')}: choose one with --environment`);
  }
  if (!matches[0]) {
    const where = environment ? ` in ${environment}` : '';
    throw new ApiError({ status: 404, code: 'NOT_FOUND', message: `No variable ${ref}${where} in this project; see \`cloud variables list\`` });
  }
  return matches[0];
}

/**
 * A value as a .env file writes it, so that the import endpoint (which reads like dotenv and Docker
 * Compose) gives back exactly this value: bare when nothing in it could be read differently; else
 * single-quoted, which both read literally (no escapes, no `${…}` interpolation in Compose); else,
 * when it holds a single quote or a carriage return (a quoted value's line breaks are read as \n),
 * double-quoted with the escapes the importer undoes.
 */
export function dotenvValue(value: string): string {
  if (/^[A-Za-z0-9_./:@%+,=~^-]*$/.test(value)) return value;
  if (!/['\r]/.test(value)) return `'${value}'`;
  const escapes: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
  return `"${value.replace(/[\\"\n\r\t]/g, (char) => escapes[char]!)}"`;
}

export function registerVariables(program: Command, io: Io): void {
  const variables = program
    .command('variables')
    .description('plaintext configuration per environment, given to deployments (not for credentials: see `cloud secrets`)');
  examples(variables, 'cloud variables set LOG_LEVEL debug --environment staging', 'cloud variables export --environment production > .env.production');

  examples(
    variables
      .command('list')
      .description('list the project’s variables, with their values')
      .addOption(environmentOption('only the entries of this environment (not the `default` ones it inherits)'))
      .action(
        action<{ environment?: Environment }>(io, async (ctx, _args, options) => {
          ctx.out.list(await listVariables(ctx, options.environment), COLUMNS);
        }),
      ),
    'cloud variables list',
    'cloud variables list --environment production --json',
  );

  examples(
    variables
      .command('get')
      .description('show a variable')
      .argument('<id or name>', 'the variable’s id, or its name')
      .addOption(environmentOption('the environment of the name, when it is set in several'))
      .action(
        action<{ environment?: Environment }>(io, async (ctx, [ref], options) => {
          ctx.out.item(await findVariable(ctx, ref!, options.environment), FIELDS);
        }),
      ),
    'cloud variables get LOG_LEVEL --environment staging',
    'cloud variables get var_01h… --json',
  );

  examples(
    variables
      .command('set')
      .description('create a variable, or change the value of the one of that name in the environment')
      .argument('<name>', 'upper-case letters, digits and underscores, starting with a letter')
      .argument('<value>', 'the plaintext value; "" for an empty one; after -- when it starts with -')
      .addOption(environmentOption('where it applies', 'default'))
      .option('-d, --description <text>', 'what it is for; "" removes it')
      .action(
        action<{ environment: Environment; description?: string }>(io, async (ctx, [name, value], options) => {
          const existing = (await listVariables(ctx, options.environment)).find((v) => v.name === name);
          if (existing) {
            const variable = await ctx.client.patch('/projects/{projectId}/variables/{variableId}', {
              ...variablePath(ctx, existing.id),
              body: { value: value!, ...(options.description === undefined ? {} : { description: options.description }) },
            });
            ctx.out.done(`Updated ${variable.name} in ${variable.environment}`, variable);
            return;
          }
          const variable = await ctx.client.post('/projects/{projectId}/variables', {
            ...projectPath(ctx),
            body: { name: name!, value: value!, environment: options.environment, description: options.description },
          });
          ctx.out.done(`Created ${variable.name} in ${variable.environment} (${variable.id})`, variable);
        }),
      ),
    'cloud variables set LOG_LEVEL debug',
    'cloud variables set API_URL https://api.example.com -e production -d "where the front end calls"',
  );

  examples(
    variables
      .command('delete')
      .description('delete a variable; a `default` entry of the same name applies again in its environment')
      .argument('<id or name>', 'the variable’s id, or its name')
      .addOption(environmentOption('the environment of the name, when it is set in several'))
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ environment?: Environment; yes?: boolean }>(io, async (ctx, [ref], options) => {
          const variable = await findVariable(ctx, ref!, options.environment);
          await confirm(ctx, `Delete variable ${variable.name} of ${variable.environment}?`, options.yes);
          await ctx.client.delete('/projects/{projectId}/variables/{variableId}', variablePath(ctx, variable.id));
          ctx.out.done(`Deleted ${variable.name} of ${variable.environment}`, { id: variable.id, deleted: true });
        }),
      ),
    'cloud variables delete LOG_LEVEL --environment staging --yes',
  );

  examples(
    variables
      .command('effective')
      .description('the variables a deployment in an environment receives: its own, and the `default` ones it does not override')
      .addOption(environmentOption('the environment').makeOptionMandatory())
      .action(
        action<{ environment: Environment }>(io, async (ctx, _args, options) => {
          const rows = await ctx.client.get('/projects/{projectId}/variables/effective', {
            params: { path: { projectId: ctx.project() }, query: { environment: options.environment } },
          });
          ctx.out.list(rows, [
            { header: 'name', value: (v) => v.name },
            { header: 'value', value: (v) => v.value },
            { header: 'from', value: (v) => (v.inherited ? 'default (inherited)' : v.environment) },
          ]);
        }),
      ),
    'cloud variables effective --environment production',
  );

  examples(
    variables
      .command('import')
      .description('import a .env file into an environment, all or nothing; names it has already are left alone unless --overwrite')
      .argument('<file>', 'the .env file; - reads stdin')
      .addOption(environmentOption('where the variables go', 'default'))
      .option('--overwrite', 'replace the values of names the environment already has')
      .option('--dry-run', 'only say what the import would do')
      .action(
        action<{ environment: Environment; overwrite?: boolean; dryRun?: boolean }>(io, async (ctx, [file], options) => {
          const content = file === '-' ? await readStdin(ctx.io) : readFileSync(file!, 'utf8');
          const report = await ctx.client.post('/projects/{projectId}/variables/import', {
            ...projectPath(ctx),
            body: { content, environment: options.environment, overwrite: options.overwrite === true, dryRun: options.dryRun === true },
          });
          const names = (list: string[]) => (list.length > 0 ? list.join(', ') : '-');
          ctx.out.item(report, [
            { header: report.dryRun ? 'Would create' : 'Created', value: (r) => names(r.created) },
            { header: report.dryRun ? 'Would update' : 'Updated', value: (r) => names(r.updated) },
            { header: 'Unchanged', value: (r) => names(r.unchanged) },
            { header: 'Skipped', value: (r) => names(r.skipped) },
          ]);
          if (report.dryRun) ctx.out.note(`Nothing was written to ${report.environment} (--dry-run)`);
          else if (report.skipped.length > 0) ctx.out.note(`Names ${report.environment} already had were left alone; add --overwrite to replace them`);
        }),
      ),
    'cloud variables import .env.production --environment production',
    'cat .env | cloud variables import - --overwrite --dry-run',
  );

  examples(
    variables
      .command('export')
      .description('print an environment’s variables as a .env file (`import` reads it back as it was)')
      .addOption(environmentOption('the environment', 'default'))
      .option('--effective', 'include the `default` variables the environment inherits, as a deployment there receives them')
      .action(
        action<{ environment: Environment; effective?: boolean }>(io, async (ctx, _args, options) => {
          const rows = options.effective
            ? await ctx.client.get('/projects/{projectId}/variables/effective', {
                params: { path: { projectId: ctx.project() }, query: { environment: options.environment } },
              })
            : await listVariables(ctx, options.environment);
          if (ctx.out.json) return ctx.out.done('', rows);
          if (rows.length === 0) ctx.out.note(`No variables in ${options.environment}`);
          ctx.io.stdout.write(rows.map((v) => `${v.name}=${dotenvValue(v.value)}\n`).join(''));
        }),
      ),
    'cloud variables export --environment production > .env.production',
    'cloud variables export -e staging --effective',
  );
}
