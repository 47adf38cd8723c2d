import { describe, expect, it } from 'vitest';
import type { StoredAppService } from '../../../db/schema/apps';
import { AppError } from '../../platform/errors';
import type { GitContentEntry } from '../gitHosts/types';
import { BuildSimulator } from './simulator';
import type { BuildReporter, BuildRequest, SourceReader } from './types';

const SHA = '3f8a9c1d2e4b5a6978c0d1e2f3a4b5c6d7e8f901';

/** A repository at one commit, as files by path; directories are whatever holds a file. */
class InMemorySource implements SourceReader {
  readonly label = `git-host-1:acme/shop@${SHA}`;
  constructor(private readonly files: Record<string, string>) {}

  async listContents(path: string): Promise<GitContentEntry[]> {
    const prefix = path ? `${path}/` : '';
    const children = new Map<string, GitContentEntry>();
    for (const [file, text] of Object.entries(this.files)) {
      if (!file.startsWith(prefix)) continue;
      const [name, ...rest] = file.slice(prefix.length).split('/');
      if (!name) continue;
      const childPath = `${prefix}${name}`;
      children.set(name, rest.length ? { name, path: childPath, type: 'dir', size: null } : { name, path: childPath, type: 'file', size: text.length });
    }
    if (!children.size) throw new AppError('NOT_FOUND', `Directory ${path} not found in acme/shop`);
    return [...children.values()];
  }

  async readFile(path: string): Promise<string | null> {
    return this.files[path] ?? null;
  }
}

/** A source whose host refuses every read. */
class FailingSource implements SourceReader {
  readonly label = `git-host-2:acme/shop@${SHA}`;
  constructor(private readonly failure: Error) {}
  async listContents(): Promise<GitContentEntry[]> {
    throw this.failure;
  }
  async readFile(): Promise<string | null> {
    throw this.failure;
  }
}

function recordingReporter() {
  const events: string[] = [];
  const reporter: BuildReporter = {
    building: async () => {
      events.push('BUILDING');
    },
    log: async (line) => {
      events.push(line);
    },
  };
  return { reporter, events, lines: () => events.filter((event) => event !== 'BUILDING') };
}

function service(overrides: Partial<StoredAppService> = {}): StoredAppService {
  return {
    name: 'api',
    appType: 'WEB',
    sourceDir: '.',
    buildStrategy: 'BUILDPACK',
    buildCommand: '',
    runCommand: '',
    outputDir: null,
    publicPort: 443,
    internalPort: 8080,
    instanceSize: 'apps-s-1vcpu-1gb',
    instances: 1,
    envVars: [],
    ...overrides,
  };
}

function request(source: SourceReader, services: StoredAppService[]): BuildRequest {
  return { deploymentId: 'dep_1', appId: 'app_1', appName: 'shop', region: 'nyc1', commitSha: SHA, services, source };
}

async function build(source: SourceReader, services: StoredAppService[]) {
  const recorder = recordingReporter();
  const outcome = await new BuildSimulator({ stepMs: 0 }).build(request(source, services), recorder.reporter);
  return { outcome, events: recorder.events, lines: recorder.lines() };
}

const NODE_APP = {
  'api/package.json': JSON.stringify({ name: 'api', scripts: { build: 'tsc', start: 'node dist/server.js' } }),
  'api/package-lock.json': '{}',
  'api/src/server.ts': 'export {};',
  'README.md': '# shop',
};

describe('BuildSimulator', () => {
  it('builds and releases a Node.js app, reporting BUILDING once before any log line', async () => {
    const { outcome, events, lines } = await build(new InMemorySource(NODE_APP), [service({ sourceDir: 'api', instances: 2 })]);
    expect(outcome).toEqual({ status: 'LIVE' });
    expect(events[0]).toBe('BUILDING');
    expect(events.filter((event) => event === 'BUILDING')).toHaveLength(1);
    expect(lines).toEqual([
      `Cloning git-host-1:acme/shop@${SHA}`,
      `Checked out commit ${SHA} (2 entries at the repository root)`,
      '[build api] Building the WEB service from api/ with BUILDPACK',
      '[build api] Environment: no variables',
      '[build api] Detected Node.js (api/package.json)',
      '[build api] $ npm ci',
      '[build api] $ npm run build',
      '[build api] Built image shop/api:3f8a9c1',
      '[release api] Starting instance api-1 of 2 (apps-s-1vcpu-1gb) in nyc1',
      '[release api] Running: npm start',
      '[release api] Health check on port 8080: passed',
      '[release api] Starting instance api-2 of 2 (apps-s-1vcpu-1gb) in nyc1',
      '[release api] Running: npm start',
      '[release api] Health check on port 8080: passed',
      '[release api] Public port 443 now routes to port 8080',
      'Deployment dep_1 of shop is live in nyc1',
    ]);
  });

  it('runs the commands the service names instead of the defaults, a line each', async () => {
    const { outcome, lines } = await build(new InMemorySource(NODE_APP), [
      service({ sourceDir: 'api', buildCommand: 'npm run lint\nnpm run compile', runCommand: 'node dist/main.js' }),
    ]);
    expect(outcome).toEqual({ status: 'LIVE' });
    expect(lines).toContain('[build api] $ npm run lint');
    expect(lines).toContain('[build api] $ npm run compile');
    expect(lines).not.toContain('[build api] $ npm run build');
    expect(lines).toContain('[release api] Running: node dist/main.js');
  });

  it('builds with the Dockerfile of sourceDir, keeping ENV and ARG values out of the log', async () => {
    const source = new InMemorySource({
      'worker/Dockerfile':
        'FROM node:22-alpine\n# deps\nARG NPM_TOKEN=abc123\nENV API_KEY=sk_live_123 \\\n    MODE=prod\nRUN npm ci\nCMD ["node", "worker.js"]\n',
    });
    const { outcome, lines } = await build(source, [
      service({ name: 'jobs', appType: 'WORKER', sourceDir: 'worker', buildStrategy: 'DOCKERFILE', publicPort: 0 }),
    ]);
    expect(outcome).toEqual({ status: 'LIVE' });
    expect(lines).toEqual(
      expect.arrayContaining([
        '[build jobs] $ docker build --file worker/Dockerfile worker/',
        '[build jobs] Step 1/5 : FROM node:22-alpine',
        '[build jobs] Step 2/5 : ARG (values not shown)',
        '[build jobs] Step 3/5 : ENV (values not shown)',
        '[build jobs] Step 4/5 : RUN npm ci',
        '[build jobs] Built image shop/jobs:3f8a9c1',
        '[release jobs] Running: the image’s CMD',
      ]),
    );
    expect(lines.join('\n')).not.toMatch(/abc123|sk_live_123|prod/);
    expect(lines.some((line) => line.includes('Public port'))).toBe(false);
  });

  it('fails a DOCKERFILE service whose sourceDir has no Dockerfile', async () => {
    const { outcome, lines } = await build(new InMemorySource(NODE_APP), [service({ sourceDir: 'api', buildStrategy: 'DOCKERFILE' })]);
    const reason = `service api: the DOCKERFILE strategy needs api/Dockerfile, and there is none at ${SHA}`;
    expect(outcome).toEqual({ status: 'FAILED', reason });
    expect(lines.at(-1)).toBe(`Build failed: ${reason}`);
    expect(lines.some((line) => line.startsWith('[release'))).toBe(false);
  });

  it('fails a Dockerfile with no FROM instruction', async () => {
    const { outcome } = await build(new InMemorySource({ Dockerfile: 'RUN echo hi\n' }), [service({ buildStrategy: 'DOCKERFILE' })]);
    expect(outcome).toEqual({ status: 'FAILED', reason: 'service api: Dockerfile has no FROM instruction, so there is no image to build on' });
  });

  it('fails when no buildpack recognises the files, naming what it looks for', async () => {
    const { outcome } = await build(new InMemorySource({ 'api/main.rs': 'fn main() {}', 'api/index.html': '<p>hi</p>' }), [service({ sourceDir: 'api' })]);
    expect(outcome).toEqual({
      status: 'FAILED',
      reason: `service api: no buildpack detected in api/ at ${SHA}: add one of package.json (Node.js), requirements.txt (Python), pyproject.toml (Python), go.mod (Go), composer.json (PHP), Gemfile (Ruby), or use the DOCKERFILE strategy`,
    });
  });

  it('detects each language from its marker file', async () => {
    const cases: [string, string, string][] = [
      ['requirements.txt', 'Python', '$ pip install -r requirements.txt'],
      ['pyproject.toml', 'Python', '$ pip install .'],
      ['go.mod', 'Go', '$ go mod download'],
      ['composer.json', 'PHP', '$ composer install --no-dev'],
      ['Gemfile', 'Ruby', '$ bundle install'],
    ];
    for (const [marker, language, install] of cases) {
      const { outcome, lines } = await build(new InMemorySource({ [marker]: '', Procfile: 'web: ./serve\n' }), [service()]);
      expect(outcome).toEqual({ status: 'LIVE' });
      expect(lines).toContain(`[build api] Detected ${language} (${marker})`);
      expect(lines).toContain(`[build api] ${install}`);
    }
  });

  it('fails a service with nothing to run, and takes its process from the Procfile when there is one', async () => {
    const python = { 'requirements.txt': 'flask\n' };
    const failed = await build(new InMemorySource(python), [service()]);
    expect(failed.outcome).toEqual({ status: 'FAILED', reason: 'service api: nothing to run: set runCommand, or add a Procfile with a "web:" line' });

    const withProcfile = await build(new InMemorySource({ ...python, Procfile: 'web: gunicorn app:app\nworker: celery -A tasks worker\n' }), [
      service(),
      service({ name: 'tasks', appType: 'WORKER', publicPort: 0 }),
    ]);
    expect(withProcfile.outcome).toEqual({ status: 'LIVE' });
    expect(withProcfile.lines).toContain('[release api] Running: gunicorn app:app');
    expect(withProcfile.lines).toContain('[release tasks] Running: celery -A tasks worker');
  });

  it('fails a Node.js service without a start script or runCommand, and one whose package.json is not JSON', async () => {
    const noStart = await build(new InMemorySource({ 'package.json': '{"scripts":{}}' }), [service()]);
    expect(noStart.outcome).toEqual({
      status: 'FAILED',
      reason: 'service api: nothing to run: set runCommand, or add a Procfile with a "web:" line or a "start" script in package.json',
    });
    const broken = await build(new InMemorySource({ 'package.json': '{ nope' }), [service()]);
    expect(broken.outcome).toEqual({ status: 'FAILED', reason: 'service api: package.json is not valid JSON' });
  });

  it('fails when sourceDir does not exist at the commit', async () => {
    const { outcome } = await build(new InMemorySource(NODE_APP), [service({ sourceDir: 'api' }), service({ name: 'web', sourceDir: 'web' })]);
    expect(outcome).toEqual({ status: 'FAILED', reason: `service web: sourceDir "web" does not exist at ${SHA}` });
  });

  it('ends FAILED with the host’s message when the source cannot be read', async () => {
    const refused = new AppError('GIT_CREDENTIAL_INVALID', 'The git host refused the connection’s credential; reconnect it');
    const { outcome, events } = await build(new FailingSource(refused), [service()]);
    expect(outcome).toEqual({ status: 'FAILED', reason: `reading the source failed: ${refused.message}` });
    expect(events).toEqual(['BUILDING', `Cloning git-host-2:acme/shop@${SHA}`, `Build failed: reading the source failed: ${refused.message}`]);
  });

  it('keeps the message of an unexpected read failure out of the reason', async () => {
    const { outcome } = await build(new FailingSource(new Error('connect ECONNREFUSED https://x-access-token:ghs_secret@host/repo')), [service()]);
    expect(outcome).toEqual({ status: 'FAILED', reason: 'reading the source failed: the git host could not be read' });
  });

  it('never logs the value of an environment variable, and says which secrets are set', async () => {
    const envVars = [
      { key: 'NODE_ENV', value: 'production-value-7731', secret: false },
      { key: 'DATABASE_URL', value: 'sealed:v1:k1:c2VjcmV0LWRhdGFiYXNlLXBhc3N3b3Jk', secret: true },
      { key: 'SESSION_SECRET', value: '', secret: true },
    ];
    const { outcome, lines } = await build(new InMemorySource(NODE_APP), [service({ sourceDir: 'api', envVars })]);
    expect(outcome).toEqual({ status: 'LIVE' });
    expect(lines).toContain('[build api] Environment: NODE_ENV, DATABASE_URL (secret, set), SESSION_SECRET (secret, empty)');
    const log = lines.join('\n');
    for (const { value } of envVars.filter((v) => v.value)) expect(log).not.toContain(value);
  });

  it('publishes a STATIC site from files already in the repository', async () => {
    const source = new InMemorySource({ 'site/index.html': '<h1>shop</h1>', 'site/public/index.html': '<h1>shop</h1>' });
    const { outcome, lines } = await build(source, [service({ name: 'site', appType: 'STATIC', sourceDir: 'site', outputDir: 'public', internalPort: 0 })]);
    expect(outcome).toEqual({ status: 'LIVE' });
    expect(lines).toEqual(
      expect.arrayContaining([
        '[build site] Detected static files (site/index.html)',
        '[build site] Collected the site from site/public/',
        '[release site] Serving the site from site/public/',
        '[release site] Public port 443 now routes to the site',
      ]),
    );
    expect(lines.some((line) => line.includes('Health check'))).toBe(false);
  });

  it('fails a STATIC site whose outputDir is neither in the repository nor built, or is not named', async () => {
    const source = new InMemorySource({ 'index.html': '<h1>shop</h1>' });
    const unbuilt = await build(source, [service({ name: 'site', appType: 'STATIC', outputDir: 'dist', internalPort: 0 })]);
    expect(unbuilt.outcome).toEqual({ status: 'FAILED', reason: `service site: outputDir "dist" does not exist at ${SHA} and no buildCommand makes it` });

    const built = await build(source, [service({ name: 'site', appType: 'STATIC', outputDir: 'dist', internalPort: 0, buildCommand: 'make site' })]);
    expect(built.outcome).toEqual({ status: 'LIVE' });

    const unnamed = await build(source, [service({ name: 'site', appType: 'STATIC', outputDir: null, internalPort: 0 })]);
    expect(unnamed.outcome).toEqual({ status: 'FAILED', reason: 'service site: a STATIC service needs an outputDir, the folder the site is built to' });
  });

  it('lets a failing reporter through rather than calling the build failed', async () => {
    const failure = new Error('database gone');
    const reporter: BuildReporter = { building: async () => {}, log: async () => Promise.reject(failure) };
    await expect(new BuildSimulator({ stepMs: 0 }).build(request(new InMemorySource(NODE_APP), [service()]), reporter)).rejects.toBe(failure);
  });
});
