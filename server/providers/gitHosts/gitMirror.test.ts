import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpFake, FakeHttpError, type FakeRequest, type FakeResponse, type HttpFake } from '../../../test/fakes/httpFake';
import { everythingIn, refusal } from '../../../test/upstreamErrors';
import { gitMirror, mirrorCommands, type MirrorEndpoint } from './gitMirror';

const root = mkdtempSync(join(tmpdir(), 'git-mirror-test-'));
/** Git as the tests run it to set repositories up: no configuration of this machine, a fixed author. */
const gitEnv: NodeJS.ProcessEnv = {
  NODE_ENV: 'test',
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: root,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Ada',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, env: gitEnv, encoding: 'utf8' }).trim();
}

/** `refname sha` lines of a bare repository, sorted. */
function refsOf(gitDir: string): string[] {
  const listed = git(root, '--git-dir', gitDir, 'for-each-ref', '--format=%(refname) %(objectname)');
  return listed === '' ? [] : listed.split('\n').sort();
}

let counter = 0;
/** A bare repository with `main` (two commits), `feature` and the tag `v1`, pushed from a work tree; answers both paths. */
function sourceRepository(): { bare: string; work: string } {
  counter += 1;
  const bare = join(root, `source-${counter}.git`);
  const work = join(root, `work-${counter}`);
  git(root, 'init', '--bare', '--quiet', bare);
  git(root, 'init', '--quiet', work);
  git(work, 'commit', '--quiet', '--allow-empty', '-m', 'First');
  git(work, 'commit', '--quiet', '--allow-empty', '-m', 'Second');
  git(work, 'tag', 'v1');
  git(work, 'checkout', '--quiet', '-b', 'feature');
  git(work, 'commit', '--quiet', '--allow-empty', '-m', 'Feature work');
  git(work, 'checkout', '--quiet', 'main');
  git(work, 'push', '--quiet', bare, 'main', 'feature', 'v1');
  return { bare, work };
}

function emptyRepository(): string {
  counter += 1;
  const bare = join(root, `target-${counter}.git`);
  git(root, 'init', '--bare', '--quiet', bare);
  return bare;
}

const endpoint = (url: string, token: string, name: string): MirrorEndpoint => ({ url, credential: { username: 'x-token-auth', token }, name });
const basic = (token: string) => `Basic ${Buffer.from(`x-token-auth:${token}`).toString('base64')}`;

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('git mirror between local repositories', () => {
  const mirror = gitMirror({ label: 'Git host 2', protocols: ['file'] });

  it('copies every branch and tag into an empty repository', async () => {
    const { bare } = sourceRepository();
    const target = emptyRepository();
    await mirror(endpoint(`file://${bare}`, 'source-token', 'acme/web'), endpoint(`file://${target}`, 'deploy-token', 'platform/web'));
    const refs = refsOf(target);
    expect(refs.map((line) => line.split(' ')[0])).toEqual(['refs/heads/feature', 'refs/heads/main', 'refs/tags/v1']);
    expect(refs).toEqual(refsOf(bare));
  });

  it('brings an earlier copy up to date: new commits, moved tags and deleted branches', async () => {
    const { bare, work } = sourceRepository();
    const target = emptyRepository();
    const source = endpoint(`file://${bare}`, 'source-token', 'acme/web');
    const copy = endpoint(`file://${target}`, 'deploy-token', 'platform/web');
    await mirror(source, copy);

    git(work, 'commit', '--quiet', '--allow-empty', '-m', 'After the copy');
    git(work, 'tag', '--force', 'v1');
    git(work, 'push', '--quiet', '--force', bare, 'main', 'v1', ':feature');
    const pushed = git(work, 'rev-parse', 'HEAD');
    expect(refsOf(target)).not.toEqual(refsOf(bare));

    await mirror(source, copy);
    expect(refsOf(target)).toEqual(refsOf(bare));
    expect(refsOf(target)).toEqual([`refs/heads/main ${pushed}`, `refs/tags/v1 ${pushed}`]);
  });

  it('answers NOT_FOUND for a source that does not exist, and leaves the target alone', async () => {
    const target = emptyRepository();
    const err = await refusal(
      mirror(endpoint(`file://${join(root, 'missing.git')}`, 'source-token', 'acme/missing'), endpoint(`file://${target}`, 'deploy-token', 'p/x')),
    );
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toBe('Repository acme/missing not found on Git host 2');
    expect(refsOf(target)).toEqual([]);
  });

  it('answers UPSTREAM_ERROR when the target cannot be written', async () => {
    const { bare } = sourceRepository();
    const err = await refusal(
      mirror(endpoint(`file://${bare}`, 'source-token', 'acme/web'), endpoint(`file://${join(root, 'no-target.git')}`, 'deploy-token', 'platform/web')),
    );
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('Git host 2 failed while copying acme/web to platform/web');
  });

  it('refuses a protocol it was not given, and an address carrying a credential, without running git', async () => {
    const target = emptyRepository();
    const https = gitMirror({ label: 'Git host 2', protocols: ['https'] });
    const { bare } = sourceRepository();
    expect(
      (await refusal(https(endpoint(`file://${bare}`, 'source-token', 'acme/web'), endpoint('https://example.com/p.git', 'deploy-token', 'p/x')))).code,
    ).toBe('UPSTREAM_ERROR');
    const withPassword = await refusal(
      mirror(endpoint(`file://user:hunter2@localhost${bare}`, 'source-token', 'acme/web'), endpoint(`file://${target}`, 'deploy-token', 'p/x')),
    );
    expect(withPassword.code).toBe('UPSTREAM_ERROR');
    expect(everythingIn(withPassword)).not.toContain('hunter2');
    expect(refsOf(target)).toEqual([]);
  });
});

describe('the git commands of a mirror', () => {
  const source = endpoint('https://git.example.com/acme/web.git', 'customer-secret-token', 'acme/web');
  const target = endpoint('https://git.example.com/platform/copy.git', 'platform-secret-token', 'platform/copy');
  const commands = mirrorCommands('/tmp/m/repository.git', '/tmp/m', source, target, ['https']);

  it('fetches branches and tags from the source and pushes them to the target, pruning what is gone', () => {
    expect(commands.map((command) => command.args)).toEqual([
      ['init', '--bare', '--quiet', '/tmp/m/repository.git'],
      ['--git-dir', '/tmp/m/repository.git', 'fetch', '--quiet', '--no-tags', source.url, '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'],
      ['--git-dir', '/tmp/m/repository.git', 'push', '--quiet', '--prune', target.url, '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'],
    ]);
  });

  it('keeps every credential out of argv and gives each process only its own side’s', () => {
    const argv = commands.flatMap((command) => command.args).join(' ');
    for (const secret of ['customer-secret-token', 'platform-secret-token', basic('customer-secret-token'), basic('platform-secret-token')]) {
      expect(argv).not.toContain(secret);
    }
    const headerOf = (env: Record<string, string>) =>
      Object.entries(env)
        .filter(([name]) => name.startsWith('GIT_CONFIG_VALUE_'))
        .map(([, value]) => value)
        .filter((value) => value.startsWith('Authorization:'));
    const [init, fetch, push] = commands;
    expect(headerOf(init!.env)).toEqual([]);
    expect(headerOf(fetch!.env)).toEqual([`Authorization: ${basic('customer-secret-token')}`]);
    expect(headerOf(push!.env)).toEqual([`Authorization: ${basic('platform-secret-token')}`]);
    expect(JSON.stringify(fetch!.env)).not.toContain(basic('platform-secret-token'));
    expect(JSON.stringify(push!.env)).not.toContain(basic('customer-secret-token'));
  });

  it('runs git without prompts, the machine’s configuration or other protocols', () => {
    for (const { env } of commands) {
      expect(env).toMatchObject({ GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_ALLOW_PROTOCOL: 'https', HOME: '/tmp/m' });
      const keys = Object.entries(env)
        .filter(([name]) => name.startsWith('GIT_CONFIG_KEY_'))
        .map(([, key]) => key);
      expect(keys).toContain('credential.helper');
      expect(Number(env.GIT_CONFIG_COUNT)).toBe(keys.length);
    }
  });
});

/**
 * Git's smart HTTP protocol served by `git http-backend` behind a loopback server that wants each
 * repository's own Basic credential, as the hosts' git endpoints do.
 */
async function startGitHttpServer(repositories: string, tokens: Record<string, string>): Promise<{ url: string; fake: HttpFake<Buffer> }> {
  const fake = createHttpFake({ name: 'git over HTTP', parseBody: 'raw' });
  const serve = async (request: FakeRequest<Buffer>): Promise<FakeResponse> => {
    const repository = request.path.split('/')[1]!;
    const expected = tokens[repository];
    if (!expected || request.headers.authorization !== basic(expected)) {
      throw new FakeHttpError(401, 'HTTP Basic: Access denied\n', { 'www-authenticate': 'Basic realm="git"' });
    }
    return httpBackend(repositories, request);
  };
  fake.route('GET /:repo/info/refs', serve);
  fake.route('POST /:repo/git-upload-pack', serve);
  fake.route('POST /:repo/git-receive-pack', serve);
  const { url } = await fake.listen();
  return { url, fake };
}

/** One CGI request to `git http-backend`: the request in its environment and stdin, the answer's headers and body on its stdout. */
function httpBackend(projectRoot: string, request: FakeRequest<Buffer>): Promise<FakeResponse> {
  const env: NodeJS.ProcessEnv = {
    ...gitEnv,
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: '1',
    REQUEST_METHOD: request.method,
    PATH_INFO: request.path,
    QUERY_STRING: request.url.search.slice(1),
    CONTENT_TYPE: request.headers['content-type'] ?? '',
    CONTENT_LENGTH: String(request.rawBody.length),
    // http-backend takes pushes only from an authenticated user.
    REMOTE_USER: 'x-token-auth',
    REMOTE_ADDR: '127.0.0.1',
  };
  if (request.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = String(request.headers['content-encoding']);
  if (request.headers['git-protocol']) env.GIT_PROTOCOL = String(request.headers['git-protocol']);
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', () => {
      const output = Buffer.concat(chunks);
      const end = output.indexOf('\r\n\r\n');
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of output.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (name === 'status') status = Number(value.split(' ')[0]);
        else headers[name] = value;
      }
      resolve({ status, headers, body: output.subarray(end + 4) });
    });
    child.stdin.end(request.rawBody);
  });
}

describe('git mirror over HTTP with a credential on each side', () => {
  const mirror = gitMirror({ label: 'Git host 3', protocols: ['http'] });
  const repositories = join(root, 'served');
  let server: { url: string; fake: HttpFake<Buffer> };

  beforeAll(async () => {
    mkdirSync(repositories);
    const { bare } = sourceRepository();
    git(root, 'clone', '--quiet', '--bare', bare, join(repositories, 'source.git'));
    git(root, 'init', '--bare', '--quiet', join(repositories, 'copy.git'));
    server = await startGitHttpServer(repositories, { 'source.git': 'customer-token-1234', 'copy.git': 'deploy-token-5678' });
  });

  afterAll(async () => {
    await server.fake.close();
  });

  const source = (token: string) => endpoint(`${server.url}/source.git`, token, 'acme/web');
  const copy = (token: string) => endpoint(`${server.url}/copy.git`, token, 'platform/web');

  it('reads the source with its credential and writes the copy with the other', async () => {
    const before = server.fake.requests.length;
    await mirror(source('customer-token-1234'), copy('deploy-token-5678'));
    expect(refsOf(join(repositories, 'copy.git'))).toEqual(refsOf(join(repositories, 'source.git')));

    const requests = server.fake.requests.slice(before);
    const sent = (repository: string) => new Set(requests.filter((request) => request.path.startsWith(`/${repository}/`)).map((r) => r.headers.authorization));
    expect(sent('source.git')).toEqual(new Set([basic('customer-token-1234')]));
    expect(sent('copy.git')).toEqual(new Set([basic('deploy-token-5678')]));
  });

  it('maps a refused source credential to GIT_CREDENTIAL_INVALID, never repeating it', async () => {
    const err = await refusal(mirror(source('revoked-customer-token'), copy('deploy-token-5678')));
    expect(err.code).toBe('GIT_CREDENTIAL_INVALID');
    expect(err.message).toBe("Git host 3 refused the connection's access token while copying acme/web to platform/web: connect again");
    expect(everythingIn(err)).not.toContain('revoked-customer-token');
    expect(everythingIn(err)).not.toContain(basic('revoked-customer-token').slice('Basic '.length));
  });

  it('maps a refused platform credential to UPSTREAM_ERROR, never repeating it', async () => {
    const err = await refusal(mirror(source('customer-token-1234'), copy('stale-deploy-token')));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe("Git host 3 refused the platform's deployment credential while copying acme/web to platform/web");
    expect(everythingIn(err)).not.toContain('stale-deploy-token');
    expect(everythingIn(err)).not.toContain('customer-token-1234');
  });

  it('gives up on a host that stops answering, as UPSTREAM_ERROR', async () => {
    server.fake.fail({ route: 'GET /:repo/info/refs', delayMs: 120_000 });
    const err = await refusal(
      gitMirror({ label: 'Git host 3', protocols: ['http'], timeoutMs: 1000 })(source('customer-token-1234'), copy('deploy-token-5678')),
    );
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toBe('Git host 3 did not finish copying acme/web to platform/web within 1 s');
  });
});
