import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { newWorld, type World } from '../../test/world.ts';
import { EXIT } from '../src/errors.ts';
import type { Io } from '../src/io.ts';
import { buildProgram } from '../src/program.ts';
import { cloud, envFor, freshConfigDir } from './cli.ts';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../../..');

let world: World;
beforeAll(async () => {
  world = await newWorld('cli-core');
});

describe('cloud auth', () => {
  it('login checks the key from stdin and stores it readable by the user only; status shows its prefix; logout forgets it', async () => {
    const configDir = path.join(freshConfigDir(), 'nested', 'cloud');
    const env = { CLOUD_API_URL: world.baseUrl, CLOUD_CONFIG_DIR: configDir };

    const bad = await cloud(['auth', 'login'], { env, stdin: 'cp_not_a_real_key\n' });
    expect(bad.code).toBe(EXIT.auth);
    expect(bad.stderr).toMatch(/^Error: UNAUTHORIZED: /);
    expect(existsSync(path.join(configDir, 'config.json'))).toBe(false);

    const login = await cloud(['auth', 'login'], { env, stdin: `${world.apiKey}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`Signed in to ${world.baseUrl}`);
    expect(login.stdout).not.toContain(world.apiKey);
    const file = path.join(configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(configDir).mode & 0o777).toBe(0o700);
    // The key belongs to the platform it was checked against, so that is stored with it.
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ apiUrl: world.baseUrl, apiKey: world.apiKey, project: world.projectId });

    // Signed in: no key or project in the environment any more.
    const status = await cloud(['auth', 'status', '--json'], { env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.json()).toMatchObject({ apiUrl: world.baseUrl, keySource: 'config', key: `${world.apiKey.slice(0, 12)}…`, project: { id: world.projectId } });
    expect(status.stdout).not.toContain(world.apiKey);
    const listed = await cloud(['servers', 'list', '--json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json()).toEqual([]);

    const logout = await cloud(['auth', 'logout'], { env });
    expect(logout.code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ apiUrl: world.baseUrl, project: world.projectId });
    const after = await cloud(['servers', 'list'], { env });
    expect(after.code).toBe(EXIT.auth);
    const notSignedIn = await cloud(['auth', 'status'], { env });
    expect(notSignedIn.code).toBe(EXIT.usage);
    expect(notSignedIn.stderr).toContain('cloud auth login');
  });

  it('stores the server given with --api-url, and CLOUD_API_KEY wins over the stored key', async () => {
    const configDir = freshConfigDir();
    const login = await cloud(['auth', 'login', '--api-url', world.baseUrl], { env: { CLOUD_CONFIG_DIR: configDir }, stdin: world.apiKey });
    expect(login.code, login.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(configDir, 'config.json'), 'utf8'))).toMatchObject({ apiUrl: world.baseUrl });
    const overridden = await cloud(['auth', 'status', '--json'], { env: { CLOUD_CONFIG_DIR: configDir, CLOUD_API_KEY: 'cp_revoked_or_wrong' } });
    expect(overridden.code).toBe(EXIT.auth);
    expect(JSON.parse(overridden.stderr)).toMatchObject({ error: { status: 401, code: 'UNAUTHORIZED' } });
  });
});

describe('a session for what only sessions may do', () => {
  it('signs in with email and password, keeps the session 0600, and uses it where the API takes no key', async () => {
    const configDir = freshConfigDir();
    const env = { CLOUD_API_URL: world.baseUrl, CLOUD_CONFIG_DIR: configDir, CLOUD_PROJECT: world.projectId };
    const wrong = await cloud(['auth', 'login', '--email', world.email], { env, stdin: 'not the password\n' });
    expect(wrong.code).toBe(EXIT.auth);
    expect(existsSync(path.join(configDir, 'config.json'))).toBe(false);

    const needsSession = await cloud(['databases', 'prices'], { env });
    expect(needsSession.code).toBe(EXIT.usage);
    expect(needsSession.stderr).toContain('cloud auth login --email');

    const login = await cloud(['auth', 'login', '--email', world.email, '--json'], { env, stdin: `${world.password}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(login.json()).toMatchObject({ email: world.email, expiresAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });
    const file = path.join(configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { session: { cookie: string } };
    expect(stored.session.cookie).toMatch(/^panel\.session-token=/);
    expect(login.stdout).not.toContain(stored.session.cookie.split('=')[1]);

    const prices = await cloud(['databases', 'prices', '--json'], { env });
    expect(prices.code, prices.stderr).toBe(0);
    expect(prices.json<unknown[]>().length).toBeGreaterThan(0);
    const status = await cloud(['auth', 'status', '--json'], { env });
    expect(status.json()).toMatchObject({ key: null, session: { email: world.email } });

    await cloud(['auth', 'logout'], { env });
    expect(JSON.parse(readFileSync(file, 'utf8'))).not.toHaveProperty('session');
    expect((await cloud(['databases', 'prices'], { env })).code).toBe(EXIT.usage);
  });
});

describe('choosing a project', () => {
  it('takes --project, then CLOUD_PROJECT, then `projects use`, and says how to choose when none is', async () => {
    const configDir = freshConfigDir();
    const env = { CLOUD_API_URL: world.baseUrl, CLOUD_API_KEY: world.apiKey, CLOUD_CONFIG_DIR: configDir };
    const none = await cloud(['servers', 'list'], { env });
    expect(none.code).toBe(EXIT.usage);
    expect(none.stderr).toContain('--project');

    expect((await cloud(['servers', 'list', '--project', world.projectSlug], { env })).code).toBe(0);
    expect((await cloud(['ssh-keys', 'list', '--json'], { env: { ...env, CLOUD_PROJECT: world.projectSlug } })).json()).toEqual([]);

    const use = await cloud(['projects', 'use', world.projectSlug], { env });
    expect(use.code, use.stderr).toBe(0);
    const got = await cloud(['projects', 'get', '--json'], { env });
    expect(got.json()).toMatchObject({ id: world.projectId, slug: world.projectSlug });
    const other = await cloud(['projects', 'get', '--project', 'someone-elses'], { env });
    expect(other.code).toBe(EXIT.notFound);
  });
});

describe('output and exit codes', () => {
  it('prints tables for people and the API’s data for scripts', async () => {
    const env = envFor(world);
    const table = await cloud(['projects', 'list'], { env });
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+SLUG\s+NAME\s+ROLE\s+SERVERS\s+BLOCKED$/);
    expect(table.stdout).toContain(world.projectSlug);
    const json = await cloud(['projects', 'list', '--json'], { env });
    expect(json.json()).toEqual([expect.objectContaining({ id: world.projectId, slug: world.projectSlug, role: 'owner' })]);
    const empty = await cloud(['ssh-keys', 'list'], { env });
    expect(empty).toMatchObject({ code: 0, stdout: '' });
    expect(empty.stderr).toContain('Nothing here yet');
  });

  it('refuses a bad command line with exit 2 and a hint', async () => {
    const unknown = await cloud(['servers', 'explode'], { env: envFor(world) });
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toContain("unknown command 'explode'");
    const missing = await cloud(['servers', 'create', 'web-1'], { env: envFor(world) });
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain("required option '-s, --size <slug>' not specified");
    const help = await cloud(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: cloud [options] [command]');
    const version = await cloud(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: '1.0.0\n' });
  });

  it('reports an unreachable platform as unavailable (8), after retrying', async () => {
    const down = await cloud(['projects', 'list'], { env: { ...envFor(world), CLOUD_API_URL: 'http://127.0.0.1:9' } });
    expect(down.code).toBe(EXIT.unavailable);
    expect(down.stderr).toContain('no answer from http://127.0.0.1:9; trying again in');
    expect(down.stderr).toContain('Error: NETWORK_ERROR: No answer from the API');
  }, 30_000);
});

/** Every command of the tree, depth first. */
function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

const silentIo = (): Io => ({ stdout: { write: () => true }, stderr: { write: () => true }, stdin: process.stdin, env: {}, home: '/tmp', platform: 'linux' });

describe('help', () => {
  it('shows a description and a worked example on every command', async () => {
    const commands = allCommands(buildProgram(silentIo()));
    expect(commands.length).toBeGreaterThan(60);
    const lacking: string[] = [];
    for (const command of commands) {
      const words: string[] = [];
      for (let c: Command | null = command; c?.parent; c = c.parent) words.unshift(c.name());
      const help = await cloud([...words, '--help']);
      if (help.code !== 0 || !/\nExamples?:\n {2}\$ cloud/.test(help.stdout) || !command.description()) lacking.push(words.join(' ') || 'cloud');
    }
    expect(lacking).toEqual([]);
  });
});

describe('shell completion', () => {
  it('completes commands, subcommands and options in bash', async () => {
    const script = (await cloud(['completion', 'bash'])).stdout;
    const complete = async (words: string[]) => {
      const line = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _cloud; printf '%s\\n' "\${COMPREPLY[@]}"`;
      return (await run('bash', ['-c', line])).stdout.trim().split('\n').filter(Boolean);
    };
    expect(await complete(['cloud', 'ser'])).toEqual(['servers']);
    expect(await complete(['cloud', 'servers', 'po'])).toEqual(['power-on', 'power-off']);
    expect(await complete(['cloud', '--json', 'servers', 'create', '--s'])).toEqual(expect.arrayContaining(['--size', '--ssh-key']));
    expect(await complete(['cloud', 'servers', 'create', '--s'])).not.toContain('--yes');
    expect(await complete(['cloud', 'secrets', ''])).toEqual(expect.arrayContaining(['list', 'set']));
  });

  it.runIf(existsSync('/usr/bin/zsh') || existsSync('/bin/zsh'))('completes them in zsh', async () => {
    const script = (await cloud(['completion', 'zsh'])).stdout;
    // compadd and compdef belong to zsh's completion system; these stand-ins print what would be offered.
    const complete = async (words: string[]) => {
      const line = [
        'compdef() { :; }',
        'compadd() { [[ "$1" == -- ]] && shift; printf "%s\\n" "$@"; }',
        script,
        `words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}; _cloud`,
      ].join('\n');
      return (await run('zsh', ['-f', '-c', line])).stdout.trim().split('\n').filter(Boolean);
    };
    expect(await complete(['cloud', 'ser'])).toEqual(expect.arrayContaining(['servers', 'ssh-keys']));
    expect(await complete(['cloud', 'servers', ''])).toEqual(expect.arrayContaining(['create', 'power-on', 'ssh']));
    expect(await complete(['cloud', 'servers', 'create', '--'])).toEqual(expect.arrayContaining(['--size', '--region', '--wait', '--json']));
  });

  it('refuses a shell it has no script for', async () => {
    const fish = await cloud(['completion', 'fish']);
    expect(fish.code).toBe(EXIT.usage);
    expect(fish.stderr).toContain('choose bash or zsh');
  });
});

describe('the installed binary', () => {
  it('runs as `npx cloud` from the repository on Node’s own TypeScript support', async () => {
    const { stdout } = await run('npx', ['--no-install', 'cloud', '--version'], { cwd: REPO });
    expect(stdout.trim()).toBe('1.0.0');
    const listed = await run('npx', ['--no-install', 'cloud', 'projects', 'list', '--json'], {
      cwd: REPO,
      env: { ...process.env, ...envFor(world) },
    });
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: world.projectId })]);
    const failed = await run('npx', ['--no-install', 'cloud', 'servers', 'get', 'srv_missing'], { cwd: REPO, env: { ...process.env, ...envFor(world) } }).catch(
      (err: { code: number; stderr: string }) => err,
    );
    expect(failed).toMatchObject({ code: EXIT.notFound });
  });
});
