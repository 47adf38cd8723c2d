import { describe, expect, it } from 'vitest';
import { newWorld } from '../../test/world.ts';
import { EXIT } from '../src/errors.ts';
import { cloud, envFor, type CliResult, type CliRun } from './cli.ts';

describe('cloud secrets', () => {
  it('writes values from stdin only, never prints one, resolves names per environment, hits the limit, buys a pack and deletes', async () => {
    const world = await newWorld('cli-secrets');
    const env = envFor(world);
    const projectId = world.projectId;
    const values = ['s3cr3t-first-value', 's3cr3t-second-value', 'prod-only-s3cr3t', 'value-in-argv'];
    // Every run's output, to check at the end that no value ever appeared in any of it.
    const outputs: string[] = [];
    const run = async (args: string[], options: CliRun = {}): Promise<CliResult> => {
      const result = await cloud(args, { env, ...options });
      outputs.push(result.stdout, result.stderr);
      return result;
    };

    const empty = await run(['secrets', 'usage', '--json']);
    expect(empty.json()).toMatchObject({ used: 0, limit: 5, packSize: 5, paidPacks: 0 });

    const created = await run(['secrets', 'set', 'API_TOKEN', '-d', 'the partner API'], { stdin: `${values[0]}\n` });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^Created API_TOKEN in default, version 1 \(sec_\w+\); the value is stored encrypted and is not shown again\n$/);

    // Setting it again is a new version of the same secret; --json prints the metadata, without the value the API answered.
    const updated = await run(['secrets', 'set', 'API_TOKEN', '--json'], { stdin: values[1] });
    expect(updated.code, updated.stderr).toBe(0);
    const secret = updated.json<Record<string, unknown>>();
    expect(secret).toMatchObject({ name: 'API_TOKEN', environment: 'default', version: 2, description: 'the partner API' });
    expect(secret).not.toHaveProperty('value');
    expect(secret).not.toHaveProperty('maskedValue');
    const secretId = secret.id as string;
    expect(await world.client.get('/projects/{projectId}/secrets/{secretId}', { params: { path: { projectId, secretId } } })).toMatchObject({ version: 2 });

    const production = await run(['secrets', 'set', 'API_TOKEN', '--environment', 'production'], { stdin: `${values[2]}\n` });
    expect(production.stdout).toMatch(/^Created API_TOKEN in production, version 1 /);

    // A value on the command line would be in the shell's history: refused before anything is sent.
    const inArgv = await run(['secrets', 'set', 'LEAKY', values[3]!], { stdin: 'from stdin' });
    expect(inArgv.code).toBe(EXIT.usage);
    expect(inArgv.stderr).toMatch(/^Error: The value is read from stdin, never from the command line/);
    const noValue = await run(['secrets', 'set', 'LEAKY'], { stdin: '' });
    expect(noValue.code).toBe(EXIT.usage);
    expect(noValue.stderr).toContain('No value on stdin');
    expect((await run(['secrets', 'set', 'lower_case'], { stdin: 'x' })).code).toBe(EXIT.usage);
    const names = async () => (await world.client.get('/projects/{projectId}/secrets', { params: { path: { projectId } } })).map((s) => s.name);
    expect(await names()).toEqual(['API_TOKEN', 'API_TOKEN']);

    const list = await run(['secrets', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^NAME\s+ENVIRONMENT\s+VERSION\s+UPDATED\s+ID\nAPI_TOKEN\s+default\s+2\s+\d{4}-.* UTC\s+sec_\w+\nAPI_TOKEN\s+production\s+1\s/);
    const effective = await run(['secrets', 'list', '-e', 'production', '--effective', '--json']);
    expect(effective.json<Array<{ name: string; environment: string }>>().map((s) => `${s.name}@${s.environment}`)).toEqual(['API_TOKEN@production']);
    expect((await run(['secrets', 'list', '--effective'])).code).toBe(EXIT.usage);

    const ambiguous = await run(['secrets', 'get', 'API_TOKEN']);
    expect(ambiguous.code).toBe(EXIT.usage);
    expect(ambiguous.stderr).toContain('API_TOKEN is set in default, production: choose one with --environment');
    const got = await run(['secrets', 'get', 'API_TOKEN', '-e', 'default']);
    expect(got.stdout).toMatch(
      /^ID:\s+sec_\w+\nName:\s+API_TOKEN\nEnvironment:\s+default\nVersion:\s+2\nDescription:\s+the partner API\nCreated:\s+.* by Grace Hopper\n/,
    );
    const gotJson = await run(['secrets', 'get', secretId, '--json']);
    expect(gotJson.json()).toMatchObject({ id: secretId, name: 'API_TOKEN', version: 2 });

    const audit = await run(['secrets', 'audit', 'API_TOKEN', '-e', 'default']);
    expect(audit.stdout).toMatch(/^WHEN\s+ACTION\s+BY\n.* UTC\s+UPDATED\s+Grace Hopper <[^>]+>\n.* UTC\s+CREATED\s+Grace Hopper/);

    // Five secrets is the free limit: the sixth is refused until a pack is bought.
    for (const name of ['DB_PASSWORD', 'SMTP_PASSWORD', 'SIGNING_KEY']) expect((await run(['secrets', 'set', name], { stdin: 'x'.repeat(12) })).code).toBe(0);
    const overLimit = await run(['secrets', 'set', 'ONE_TOO_MANY'], { stdin: 'value' });
    expect(overLimit.code).toBe(EXIT.payment);
    expect(overLimit.stderr).toMatch(/^Error: SECRET_LIMIT_REACHED: /);

    const preview = await run(['secrets', 'upgrade', '--packs', '1', '--dry-run']);
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toMatch(/^Due today:\s+\$\d+\.\d\d\nTax:\s+\S+.*\nCredit applied:\s+\$0\.00\nThen monthly:\s+\$3\.00\nNext bill:\s+\d{4}-/);
    expect(await world.client.get('/projects/{projectId}/secrets/usage', { params: { path: { projectId } } })).toMatchObject({ limit: 5, paidPacks: 0 });
    expect((await run(['secrets', 'upgrade', '--packs', '21'])).code).toBe(EXIT.usage);
    const bought = await run(['secrets', 'upgrade', '--packs', '1']);
    expect(bought.code, bought.stderr).toBe(0);
    expect(bought.stderr).toMatch(/^Charged \$\d+\.\d\d today, then \$3\.00 a month more\n$/);
    expect(bought.stdout).toBe('The project may now hold 10 secrets (5 used)\n');
    expect(await world.client.get('/projects/{projectId}/secrets/usage', { params: { path: { projectId } } })).toMatchObject({ limit: 10, paidPacks: 1 });
    expect((await run(['secrets', 'set', 'ONE_TOO_MANY'], { stdin: 'value' })).code).toBe(0);
    const usage = await run(['secrets', 'usage']);
    expect(usage.stdout).toBe('Used:         6 of 10\nFree:         5\nPacks bought: 1 (5 secrets each)\nPack price:   $3.00 a month\n');

    const notAsked = await run(['secrets', 'delete', secretId]);
    expect(notAsked.code).toBe(EXIT.usage);
    const deleted = await run(['secrets', 'delete', secretId, '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe('Deleted API_TOKEN of default\n');
    const gone = await run(['secrets', 'get', secretId]);
    expect(gone.code).toBe(EXIT.notFound);
    expect(gone.stderr).toMatch(/^Error: NOT_FOUND: /);
    // The trail outlives the secret.
    const trail = await run(['secrets', 'audit', secretId, '--json']);
    expect(trail.json<Array<{ action: string }>>().map((e) => e.action)).toEqual(['DELETED', 'UPDATED', 'CREATED']);

    const readOnly = { ...env, CLOUD_API_KEY: await world.keyWith(['secrets:read']) };
    expect((await run(['secrets', 'list', '--json'], { env: readOnly })).code).toBe(0);
    const forbidden = await run(['secrets', 'set', 'API_TOKEN'], { env: readOnly, stdin: values[0] });
    expect(forbidden.code).toBe(EXIT.auth);
    expect(forbidden.stderr).toMatch(/^Error: FORBIDDEN: /);

    for (const output of outputs) for (const value of values) expect(output).not.toContain(value);
  });
});
