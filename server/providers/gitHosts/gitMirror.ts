import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import { redact } from '../upstreamHttp';

/**
 * Mirrors a repository's branches and tags from a source to a target with the `git` binary, each
 * side reached with its own credential. A credential travels only in the environment of the one
 * git process that talks to its side (an `Authorization` header by `http.extraHeader`), never in
 * argv, a URL, a message or a log line. Git runs without system or user configuration, prompts or
 * credential helpers, and may use only the protocols given.
 *
 * The source is read with the caller's credential: its refusal is GIT_CREDENTIAL_INVALID (a grant
 * to renew) and a source it does not reach NOT_FOUND. The target is written with the platform's
 * own credential: every failure there is UPSTREAM_ERROR.
 */

/** Sent as HTTP Basic, which both hosts' git endpoints take for their tokens. */
export interface GitCredential {
  username: string;
  token: string;
}

export interface MirrorEndpoint {
  /** Where git reaches the repository; it carries no credential. */
  url: string;
  credential: GitCredential;
  /** Names the repository in messages: `acme/web`. */
  name: string;
}

/** Brings the target's branches and tags to the source's exactly: new ones made, moved ones forced, gone ones deleted. */
export type MirrorRepository = (source: MirrorEndpoint, target: MirrorEndpoint) => Promise<void>;

export interface GitMirrorOptions {
  /** Starts every message: "Git host 2". */
  label: string;
  /** The URL schemes git may use, `https` in production. */
  protocols: readonly string[];
  /** For the whole mirror, fetch and push together. */
  timeoutMs?: number;
}

export interface GitCommand {
  /** The side the command talks to, whose credential its environment carries; null for local work. */
  side: 'source' | 'target' | null;
  args: string[];
  env: Record<string, string>;
}

/** Branches and tags only: hosts keep other refs (merge requests, pipelines) that they refuse to take in a push. */
const REFSPECS = ['+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'];
/** A large repository over a slow link, not a hung one. */
const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** Git's stderr kept for the log: the tail, where its reason is. */
const STDERR_LIMIT = 16_384;
/** What git may take from the server's environment: the way out (proxies) and the certificates it trusts. */
const INHERITED_ENV = [
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
  'ALL_PROXY',
  'all_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
];

/** How git and the hosts word a refused credential: a 401 makes git ask for one, which it may not. */
const AUTH_REFUSED =
  /authentication failed|could not read (username|password)|terminal prompts disabled|access denied|returned error: 40[13]|invalid username or password/i;
const NOT_FOUND = /not found|does not appear to be a git repository|could not be found|returned error: 404/i;

/** The mirror as production runs it: a temporary bare repository, fetched into and pushed from, then removed. */
export function gitMirror(options: GitMirrorOptions): MirrorRepository {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return async (source, target) => {
    for (const endpoint of [source, target]) checkUrl(options, endpoint);
    const deadline = Date.now() + timeoutMs;
    const home = await mkdtemp(join(tmpdir(), 'git-mirror-'));
    try {
      for (const command of mirrorCommands(join(home, 'repository.git'), home, source, target, options.protocols)) {
        const outcome = await run(command, deadline);
        if (outcome !== null) throw failure(options.label, timeoutMs, command, source, target, outcome);
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  };
}

/** The git commands of one mirror: make the bare repository, fetch the source's refs into it, push them to the target. */
export function mirrorCommands(gitDir: string, home: string, source: MirrorEndpoint, target: MirrorEndpoint, protocols: readonly string[]): GitCommand[] {
  return [
    { side: null, args: ['init', '--bare', '--quiet', gitDir], env: environment(home, protocols, null) },
    {
      side: 'source',
      args: ['--git-dir', gitDir, 'fetch', '--quiet', '--no-tags', source.url, ...REFSPECS],
      env: environment(home, protocols, source.credential),
    },
    {
      side: 'target',
      args: ['--git-dir', gitDir, 'push', '--quiet', '--prune', target.url, ...REFSPECS],
      env: environment(home, protocols, target.credential),
    },
  ];
}

function environment(home: string, protocols: readonly string[], credential: GitCredential | null): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ALLOW_PROTOCOL: protocols.join(':'),
  };
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  const config: Array<[string, string]> = [
    ['init.defaultBranch', 'main'],
    ['gc.auto', '0'],
    // An empty helper clears any configured one, so no stored credential is ever offered.
    ['credential.helper', ''],
  ];
  if (credential) config.push(['http.extraHeader', `Authorization: ${basicAuthorization(credential)}`]);
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

function basicAuthorization(credential: GitCredential): string {
  return `Basic ${Buffer.from(`${credential.username}:${credential.token}`).toString('base64')}`;
}

/** Only the protocols allowed, and no credential in the URL, where it would reach argv. */
function checkUrl(options: GitMirrorOptions, endpoint: MirrorEndpoint): void {
  const url = URL.canParse(endpoint.url) ? new URL(endpoint.url) : null;
  if (!url || !options.protocols.includes(url.protocol.replace(/:$/, '')) || url.username !== '' || url.password !== '') {
    throw new AppError('UPSTREAM_ERROR', `${options.label} named no usable git address for ${endpoint.name}`);
  }
}

type Outcome = { reason: 'exit'; stderr: string } | { reason: 'timeout' } | { reason: 'spawn'; error: string };

/** Null when the command succeeded; a timeout kills its whole process group (git and its remote helper). */
function run(command: GitCommand, deadline: number): Promise<Outcome | null> {
  return new Promise((resolve) => {
    // Next's global typing asks every environment for NODE_ENV; git is given only what it needs.
    const child = spawn('git', command.args, { env: command.env as NodeJS.ProcessEnv, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let timedOut = false;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_LIMIT);
    });
    const timer = setTimeout(
      () => {
        timedOut = true;
        if (child.pid !== undefined) killGroup(child.pid);
      },
      Math.max(0, deadline - Date.now()),
    );
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ reason: 'spawn', error: err.code ?? err.name });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (timedOut) resolve({ reason: 'timeout' });
      else resolve(code === 0 ? null : { reason: 'exit', stderr });
    });
  });
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group ended on its own between the timer firing and the kill.
  }
}

function failure(label: string, timeoutMs: number, command: GitCommand, source: MirrorEndpoint, target: MirrorEndpoint, outcome: Outcome): AppError {
  const secrets = [source, target].flatMap(({ credential }) => [credential.token, basicAuthorization(credential).slice('Basic '.length)]);
  const said = outcome.reason === 'exit' ? outcome.stderr.trim() : '';
  const detail = redact(outcome.reason === 'spawn' ? `git could not start: ${outcome.error}` : outcome.reason === 'timeout' ? 'timed out' : said, secrets);
  const work = `copying ${source.name} to ${target.name}`;
  getLogger().warn({ side: command.side, detail }, `${label} failed while ${work}`);
  const cause = new Error(detail);
  if (outcome.reason === 'timeout')
    return new AppError('UPSTREAM_ERROR', `${label} did not finish ${work} within ${Math.round(timeoutMs / 1000)} s`, { cause });
  if (outcome.reason === 'spawn')
    return new AppError('UPSTREAM_ERROR', `${label} could not be reached while ${work}: git could not start on this server`, { cause });
  if (command.side === 'source') {
    if (AUTH_REFUSED.test(said)) {
      return new AppError('GIT_CREDENTIAL_INVALID', `${label} refused the connection's access token while ${work}: connect again`, { cause });
    }
    if (NOT_FOUND.test(said)) return new AppError('NOT_FOUND', `Repository ${source.name} not found on ${label}`, { cause });
    return new AppError('UPSTREAM_ERROR', `${label} failed while reading ${source.name} for ${work}`, { cause });
  }
  if (command.side === 'target' && AUTH_REFUSED.test(said)) {
    return new AppError('UPSTREAM_ERROR', `${label} refused the platform's deployment credential while ${work}`, { cause });
  }
  return new AppError('UPSTREAM_ERROR', `${label} failed while ${work}`, { cause });
}
