import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../platform/errors';
import { freePort, portIsFree } from '../../platform/ports';
import { getLogger } from '../../platform/logger';

export interface EmbeddedRegistryOptions {
  /** Absolute path of `docker-registry`. */
  binary: string;
  /** The registry's directory: config.yml, pid file, http secret, and the blobs under `data/`. */
  dataDir: string;
  realm: string;
  service: string;
  issuer: string;
  /** The token signing certificate (the `rootcertbundle`). */
  certificatePath: string;
  /** Where the registry POSTs its events, and the `Authorization` header it sends along. */
  notifications: { url: string; authorization: string };
  startTimeoutMs: number;
}

const LOOPBACK = '127.0.0.1';
/** How long the registry may finish requests under way once told to stop (`http.draintimeout`). */
const DRAIN_SECONDS = 3;
const KILL_AFTER_MS = (DRAIN_SECONDS + 3) * 1000;
const FIRST_RESTART_DELAY_MS = 1000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A process that ran this long before dying is restarted promptly again: it was not crash-looping. */
const STABLE_AFTER_MS = 60_000;
const OUTPUT_LINES_KEPT = 30;

interface Running {
  process: ChildProcess;
  exited: Promise<void>;
  startedAt: number;
}

/** `2.8.2` from `docker-registry github.com/docker/distribution 2.8.2+ds1`; null when the binary does not say. */
export function registryVersion(binary: string): string | null {
  try {
    const output = execFileSync(binary, ['--version'], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] });
    return /\bv?(\d+\.\d+(?:\.\d+)?)/.exec(output)?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * One `docker-registry serve` process on a loopback port, supervised: started, waited for, started
 * again after it dies (with a growing delay), stopped with SIGTERM then SIGKILL. Start, stop and
 * garbage collection run one at a time.
 */
export class EmbeddedRegistry {
  private running: Running | null = null;
  private port: number | null = null;
  /** Whether the registry should be up: set by start(), cleared by stop(). */
  private wanted = false;
  /** Whether `url` may be used: false while the process is starting, restarting or collecting garbage. */
  private available = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private restartDelayMs = FIRST_RESTART_DELAY_MS;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly output: string[] = [];

  constructor(private readonly options: EmbeddedRegistryOptions) {}

  /** The registry's base URL; null while it cannot be reached. */
  get url(): string | null {
    return this.available && this.port !== null ? `http://${LOOPBACK}:${this.port}` : null;
  }

  private get configPath(): string {
    return path.join(this.options.dataDir, 'config.yml');
  }

  private get pidPath(): string {
    return path.join(this.options.dataDir, 'registry.pid');
  }

  start(): Promise<void> {
    return this.serially(async () => {
      this.wanted = true;
      if (!this.running) await this.launch();
    });
  }

  stop(): Promise<void> {
    return this.serially(async () => {
      this.wanted = false;
      if (this.restartTimer) clearTimeout(this.restartTimer);
      this.restartTimer = null;
      await this.terminate();
      await rm(this.pidPath, { force: true });
    });
  }

  /**
   * Distribution frees the disk of deleted manifests only offline: the registry is stopped, the
   * collector runs over the same storage, and the registry comes back on the same port. Meanwhile
   * `url` is null, so the front door answers 503 with Retry-After and clients retry; requests under
   * way get the drain period to finish.
   */
  garbageCollect(): Promise<void> {
    return this.serially(async () => {
      if (!this.wanted) throw new AppError('UPSTREAM_ERROR', 'The registry is not running');
      await this.terminate();
      try {
        await this.runCollector();
      } finally {
        await this.launch().catch((err: unknown) => {
          // Supervision takes over, as after a crash: the registry must not stay down.
          this.scheduleRestart();
          throw err;
        });
      }
    });
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async launch(): Promise<void> {
    await mkdir(path.join(this.options.dataDir, 'data'), { recursive: true, mode: 0o700 });
    await this.killOrphan();
    if (this.port === null || !(await portIsFree(this.port))) this.port = await freePort();
    await writeFile(this.configPath, configText(this.options, this.port, await this.httpSecret()), { mode: 0o600 });

    const child = spawn(this.options.binary, ['serve', this.configPath], { stdio: ['ignore', 'pipe', 'pipe'], env: registryEnvironment() });
    // 'error' alone is emitted when the binary could not be run at all.
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    const running: Running = { process: child, exited, startedAt: Date.now() };
    this.running = running;
    this.collectOutput(child);
    child.on('error', (err) => getLogger().error({ err, binary: this.options.binary }, 'docker-registry could not be run'));
    child.once('exit', (code, signal) => this.onExit(running, code, signal));
    if (child.pid !== undefined) await writeFile(this.pidPath, `${child.pid}\n`, { mode: 0o600 });

    try {
      await this.waitUntilServing(running);
    } catch (err) {
      await this.terminate();
      throw err;
    }
    this.available = true;
    getLogger().info({ port: this.port, pid: child.pid }, 'docker-registry serving on loopback');
  }

  private onExit(running: Running, code: number | null, signal: NodeJS.Signals | null): void {
    // An exit this class asked for has already cleared `running`.
    if (this.running !== running) return;
    this.running = null;
    this.available = false;
    if (!this.wanted) return;
    if (Date.now() - running.startedAt >= STABLE_AFTER_MS) this.restartDelayMs = FIRST_RESTART_DELAY_MS;
    getLogger().warn({ code, signal, restartInMs: this.restartDelayMs, output: this.output.slice(-5) }, 'docker-registry exited; restarting it');
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    const delay = this.restartDelayMs;
    this.restartDelayMs = Math.min(delay * 2, MAX_RESTART_DELAY_MS);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      void this.serially(async () => {
        if (!this.wanted || this.running) return;
        try {
          await this.launch();
        } catch (err) {
          getLogger().error({ err, restartInMs: this.restartDelayMs }, 'docker-registry did not come back; trying again');
          this.scheduleRestart();
        }
      });
    }, delay);
    this.restartTimer.unref();
  }

  /** Stops the process this instance runs: SIGTERM lets it drain, SIGKILL follows if it does not go. */
  private async terminate(): Promise<void> {
    const running = this.running;
    this.running = null;
    this.available = false;
    if (!running || running.process.exitCode !== null || running.process.signalCode !== null) return;
    running.process.kill('SIGTERM');
    if (await settlesWithin(running.exited, KILL_AFTER_MS)) return;
    getLogger().warn({ pid: running.process.pid }, 'docker-registry did not stop on SIGTERM; killing it');
    running.process.kill('SIGKILL');
    await running.exited;
  }

  /**
   * A registry left running by an app that died without stopping it would hold the storage and a
   * stale events secret. It is killed only when /proc shows it is this binary serving this config.
   */
  private async killOrphan(): Promise<void> {
    let pid: number;
    try {
      pid = Number((await readFile(this.pidPath, 'utf8')).trim());
    } catch {
      return;
    }
    if (!Number.isInteger(pid) || pid <= 0 || pid === this.running?.process.pid || !isAlive(pid)) return;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      return;
    }
    if (path.basename(argv[0] ?? '') !== path.basename(this.options.binary) || !argv.includes(this.configPath)) return;
    getLogger().warn({ pid }, 'killing a docker-registry left over by a previous run over the same data directory');
    signal(pid, 'SIGTERM');
    const deadline = Date.now() + KILL_AFTER_MS;
    while (isAlive(pid) && Date.now() < deadline) await sleep(50);
    if (isAlive(pid)) signal(pid, 'SIGKILL');
    const killDeadline = Date.now() + 3000;
    while (isAlive(pid) && Date.now() < killDeadline) await sleep(50);
    if (isAlive(pid)) throw new AppError('UPSTREAM_ERROR', `A docker-registry left over by a previous run (pid ${pid}) could not be stopped`);
  }

  private async waitUntilServing(running: Running): Promise<void> {
    const deadline = Date.now() + this.options.startTimeoutMs;
    const url = `http://${LOOPBACK}:${this.port}/v2/`;
    let exited = false;
    void running.exited.then(() => (exited = true));
    while (Date.now() < deadline && !exited) {
      try {
        // Token auth on: the API base answers 401 with its challenge once the registry serves.
        const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
        await res.body?.cancel();
        if (res.status === 401) return;
      } catch {
        // Not listening yet.
      }
      await sleep(100);
    }
    const output = this.output.slice(-10);
    throw new AppError('UPSTREAM_ERROR', exited ? 'docker-registry exited while starting' : 'docker-registry did not start in time', {
      cause: new Error(output.join('\n')),
    });
  }

  private async runCollector(): Promise<void> {
    const child = spawn(this.options.binary, ['garbage-collect', this.configPath], { stdio: ['ignore', 'pipe', 'pipe'], env: registryEnvironment() });
    // Every blob marked and swept is printed; only the tail matters, when it fails.
    const tail: string[] = [];
    const keep = (line: string) => {
      tail.push(line);
      if (tail.length > OUTPUT_LINES_KEPT) tail.shift();
    };
    createInterface({ input: child.stdout }).on('line', keep);
    createInterface({ input: child.stderr }).on('line', keep);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (code !== 0) {
      throw new AppError('UPSTREAM_ERROR', `docker-registry garbage-collect exited with ${code}`, { cause: new Error(tail.slice(-10).join('\n')) });
    }
    getLogger().info({ summary: tail.filter((line) => /eligible for deletion|blobs marked/.test(line)) }, 'registry garbage collected');
  }

  /**
   * Distribution signs upload state with `http.secret`; one kept across restarts lets an upload
   * carry on after the registry came back (garbage collection, a crash).
   */
  private async httpSecret(): Promise<string> {
    const file = path.join(this.options.dataDir, 'http.secret');
    try {
      const secret = (await readFile(file, 'utf8')).trim();
      if (secret) return secret;
    } catch {
      // First start.
    }
    const secret = randomBytes(32).toString('hex');
    await writeFile(file, `${secret}\n`, { mode: 0o600 });
    return secret;
  }

  /**
   * The registry's output, kept for the reasons of a failed start or a crash. Its warnings include
   * every refused token and its errors every 404, which are the customers' business: only its own
   * failures (5xx, fatal, plain text such as a panic) reach our log.
   */
  private collectOutput(child: ChildProcess): void {
    const onLine = (line: string) => {
      this.output.push(line);
      if (this.output.length > OUTPUT_LINES_KEPT) this.output.shift();
      const entry = parseLogLine(line);
      if (!entry) {
        if (line.trim()) getLogger().warn({ registryOutput: line.slice(0, 2000) }, 'docker-registry output');
        return;
      }
      const status = typeof entry['http.response.status'] === 'number' ? entry['http.response.status'] : null;
      if (!['error', 'fatal', 'panic'].includes(String(entry.level)) || (status !== null && status < 500)) return;
      getLogger().warn(
        {
          registry: {
            level: entry.level,
            msg: entry.msg,
            error: entry.error ?? entry['err.message'],
            method: entry['http.request.method'],
            status,
          },
        },
        'docker-registry reported an error',
      );
    };
    if (child.stdout) createInterface({ input: child.stdout }).on('line', onLine);
    if (child.stderr) createInterface({ input: child.stderr }).on('line', onLine);
  }
}

function parseLogLine(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null;
  try {
    const parsed: unknown = JSON.parse(line);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Strings are written JSON-quoted, which YAML reads as the same strings, so no path or URL can
 * break the file's structure.
 */
function configText(options: EmbeddedRegistryOptions, port: number, httpSecret: string): string {
  const q = (value: string) => JSON.stringify(value);
  return [
    '# Written by the panel at every start of the registry; edits are lost.',
    'version: "0.1"',
    'log:',
    '  level: warn',
    '  formatter: json',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${q(path.join(options.dataDir, 'data'))}`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: ${q(`${LOOPBACK}:${port}`)}`,
    `  secret: ${q(httpSecret)}`,
    '  relativeurls: true',
    `  draintimeout: ${DRAIN_SECONDS}s`,
    'auth:',
    '  token:',
    `    realm: ${q(options.realm)}`,
    `    service: ${q(options.service)}`,
    `    issuer: ${q(options.issuer)}`,
    `    rootcertbundle: ${q(options.certificatePath)}`,
    'notifications:',
    '  endpoints:',
    '    - name: panel',
    `      url: ${q(options.notifications.url)}`,
    '      headers:',
    `        Authorization: [${q(options.notifications.authorization)}]`,
    '      timeout: 5s',
    '      threshold: 3',
    '      backoff: 1s',
    '',
  ].join('\n');
}

/** Distribution reads every `REGISTRY_*` variable as an override of its configuration (REGISTRY_HTTP_SECRET…); ours mean something else. */
function registryEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('REGISTRY_'))) as NodeJS.ProcessEnv;
}

async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  const timer = sleep(ms, false, { ref: false });
  return Promise.race([promise.then(() => true), timer]);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}
