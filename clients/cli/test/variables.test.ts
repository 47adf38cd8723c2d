import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newWorld } from '../../test/world.ts';
import { EXIT } from '../src/errors.ts';
import { cloud, envFor, freshConfigDir } from './cli.ts';

/** Values a .env file can get wrong: blanks, comment marks, quotes of every kind, escapes, line breaks, interpolation. */
const AWKWARD: Record<string, string> = {
  PLAIN: 'postgres-primary.internal',
  EMPTY: '',
  EQUALS: 'a=b=c',
  PADDED: '  padded value  ',
  HASH: 'a #not a comment',
  APOSTROPHE: "it's",
  DOUBLE: 'say "hi"',
  QUOTED: "'quoted'",
  EVERYTHING: 'it\'s "all"\\here\tand\nthere',
  LINES: 'line one\nline two\n',
  CRLF: 'a\r\nb',
  DOLLAR: '${HOME} $PATH',
  BACKTICKS: '`uname`',
  URL: 'postgres://u:p@db:5432/app?sslmode=require',
  UNICODE: 'naïve ☃',
};

describe('cloud variables', () => {
  it('sets, lists, resolves per environment, exports a .env that imports back to the same values, and deletes', async () => {
    const world = await newWorld('cli-variables');
    const env = envFor(world);
    const projectId = world.projectId;
    const listOf = async (environment: 'default' | 'development' | 'staging' | 'production') =>
      world.client.get('/projects/{projectId}/variables', { params: { path: { projectId }, query: { environment } } });

    const created = await cloud(['variables', 'set', 'PORT', '3000'], { env });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^Created PORT in default \(var_\w+\)\n$/);
    const staged = await cloud(['variables', 'set', 'LOG_LEVEL', 'debug', '-e', 'staging', '-d', 'chatty', '--json'], { env });
    expect(staged.code, staged.stderr).toBe(0);
    expect(staged.json()).toMatchObject({ name: 'LOG_LEVEL', value: 'debug', environment: 'staging', description: 'chatty' });
    expect((await cloud(['variables', 'set', 'PORT', '8080', '--environment', 'production'], { env })).code).toBe(0);
    // The same name in the same environment is an update, not a second variable.
    const updated = await cloud(['variables', 'set', 'PORT', '4000'], { env });
    expect(updated.stdout).toBe('Updated PORT in default\n');
    expect((await listOf('default')).map((v) => [v.name, v.value])).toEqual([['PORT', '4000']]);

    const list = await cloud(['variables', 'list'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^NAME\s+ENVIRONMENT\s+VALUE\s+ID\n/);
    expect(list.stdout).toMatch(/PORT\s+production\s+8080\s+var_/);
    const production = await cloud(['variables', 'list', '-e', 'production', '--json'], { env });
    expect(production.json<Array<{ name: string; environment: string }>>().map((v) => `${v.name}@${v.environment}`)).toEqual(['PORT@production']);

    const ambiguous = await cloud(['variables', 'get', 'PORT'], { env });
    expect(ambiguous.code).toBe(EXIT.usage);
    expect(ambiguous.stderr).toContain('PORT is set in default, production: choose one with --environment');
    const one = await cloud(['variables', 'get', 'PORT', '-e', 'production', '--json'], { env });
    const port = one.json<{ id: string; value: string }>();
    expect(port.value).toBe('8080');
    const byId = await cloud(['variables', 'get', port.id], { env });
    expect(byId.stdout).toMatch(/^ID:\s+var_\w+\nName:\s+PORT\nEnvironment:\s+production\nValue:\s+8080\n/);

    const effective = await cloud(['variables', 'effective', '--environment', 'staging', '--json'], { env });
    expect(
      effective.json<Array<{ name: string; value: string; inherited: boolean }>>().map(({ name, value, inherited }) => ({ name, value, inherited })),
    ).toEqual([
      { name: 'LOG_LEVEL', value: 'debug', inherited: false },
      { name: 'PORT', value: '4000', inherited: true },
    ]);
    const effectiveTable = await cloud(['variables', 'effective', '-e', 'staging'], { env });
    expect(effectiveTable.stdout).toMatch(/^NAME\s+VALUE\s+FROM\nLOG_LEVEL\s+debug\s+staging\nPORT\s+4000\s+default \(inherited\)\n$/);
    expect((await cloud(['variables', 'effective'], { env })).code).toBe(EXIT.usage);

    // Export → import: every awkward value comes back exactly.
    for (const [name, value] of Object.entries(AWKWARD)) {
      const set = await cloud(['variables', 'set', name, value, '-e', 'development'], { env });
      expect(set.code, `${name}: ${set.stderr}`).toBe(0);
    }
    const exported = await cloud(['variables', 'export', '--environment', 'development'], { env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('\nEMPTY=\n');
    expect(exported.stdout).toContain('\nEQUALS=a=b=c\n');
    expect(exported.stdout).toContain("\nPADDED='  padded value  '\n");
    expect(exported.stdout).toContain('\nPLAIN=postgres-primary.internal\n');
    const file = path.join(freshConfigDir(), '.env.development');
    writeFileSync(file, exported.stdout);
    const unchanged = await cloud(['variables', 'import', file, '-e', 'development', '--dry-run', '--json'], { env });
    expect(unchanged.code, unchanged.stderr).toBe(0);
    expect(unchanged.json()).toMatchObject({ dryRun: true, created: [], updated: [], skipped: [], unchanged: Object.keys(AWKWARD).sort() });

    const imported = await cloud(['variables', 'import', '-', '--environment', 'staging'], { env, stdin: exported.stdout });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/^Created:\s+APOSTROPHE, BACKTICKS, CRLF, /);
    const values = (rows: Array<{ name: string; value: string }>) => Object.fromEntries(rows.map((v) => [v.name, v.value]));
    expect(values(await listOf('staging'))).toEqual({ ...AWKWARD, LOG_LEVEL: 'debug' });

    // Again without --overwrite: the names are there already, so nothing changes and the report says so.
    writeFileSync(file, 'PORT=5000\nLOG_LEVEL=info\nNEW_ONE=1\n');
    const again = await cloud(['variables', 'import', file, '-e', 'staging'], { env });
    expect(again.stdout).toMatch(/^Created:\s+PORT, NEW_ONE\nUpdated:\s+-\nUnchanged:\s+-\nSkipped:\s+LOG_LEVEL\n$/);
    expect(again.stderr).toContain('add --overwrite');
    const overwritten = await cloud(['variables', 'import', file, '-e', 'staging', '--overwrite', '--json'], { env });
    expect(overwritten.json()).toEqual({
      environment: 'staging',
      dryRun: false,
      created: [],
      updated: ['LOG_LEVEL'],
      unchanged: ['PORT', 'NEW_ONE'],
      skipped: [],
    });

    writeFileSync(file, 'GOOD=1\nthis line has no equals sign\n');
    const refused = await cloud(['variables', 'import', file, '-e', 'staging'], { env });
    expect(refused.code).toBe(EXIT.rejected);
    expect(refused.stderr).toMatch(/^Error: VALIDATION_ERROR: /);
    expect(refused.stderr).toContain('content.2: Expected NAME=value');
    expect(values(await listOf('staging'))).not.toHaveProperty('GOOD');

    const withEffective = await cloud(['variables', 'export', '-e', 'production', '--effective'], { env });
    expect(withEffective.stdout).toBe('PORT=8080\n');

    const notAsked = await cloud(['variables', 'delete', 'LOG_LEVEL', '-e', 'staging'], { env });
    expect(notAsked.code).toBe(EXIT.usage);
    const deleted = await cloud(['variables', 'delete', 'LOG_LEVEL', '-e', 'staging', '--yes', '--json'], { env });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.json()).toMatchObject({ deleted: true });
    expect(values(await listOf('staging'))).not.toHaveProperty('LOG_LEVEL');
    const gone = await cloud(['variables', 'get', 'LOG_LEVEL', '-e', 'staging'], { env });
    expect(gone.code).toBe(EXIT.notFound);
    expect((await cloud(['variables', 'get', 'var_doesnotexist'], { env })).code).toBe(EXIT.notFound);

    const readOnly = { ...env, CLOUD_API_KEY: await world.keyWith(['variables:read']) };
    expect((await cloud(['variables', 'list', '--json'], { env: readOnly })).code).toBe(0);
    const forbidden = await cloud(['variables', 'set', 'PORT', '1'], { env: readOnly });
    expect(forbidden.code).toBe(EXIT.auth);
    expect(forbidden.stderr).toMatch(/^Error: FORBIDDEN: /);
  });
});
