import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { userInfo } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../../platform/errors';
import { freePort, portIsFree } from '../../../platform/ports';
import { getLogger } from '../../../platform/logger';
import { childEnvironment, processes, SupervisedProcess, writeAtomically } from '../../process/supervisedProcess';
import type { SiteServing, WebServingProvider } from '../types';
import {
  IDLE_POOL,
  checkSiteName,
  renderFastcgiParams,
  renderListenConf,
  renderNginxConf,
  renderPhpFpmConf,
  renderPool,
  renderServerBlocks,
  siteFiles,
  webPaths,
  type RunAs,
  type WebPaths,
} from './config';

export interface EmbeddedWebServingOptions {
  /** Absolute path of nginx. */
  nginxBinary: string;
  /** Absolute path of the installed php-fpm, which serves every site whatever PHP version it asked for. */
  phpFpmBinary: string;
  /** `<HOSTING_DATA_DIR>/web`: configuration, pools, sockets, pid files, logs and temp files. */
  dir: string;
  /** Where nginx listens on 127.0.0.1; 0 takes a free port at start. */
  port: number;
  /** A site's own address is `<siteName>.<platformDomain>`. */
  platformDomain: string;
  /** How long nginx and php-fpm may take to start or to take a new configuration. */
  startTimeoutMs?: number;
}

const LOOPBACK = '127.0.0.1';
const DEFAULT_START_TIMEOUT_MS = 20_000;
/** The Host of probes: under `.invalid`, so no site can have it and the default server answers. */
const PROBE_HOST = 'config-probe.invalid';
const UNAVAILABLE = new Set([502, 503, 504]);

/**
 * nginx and php-fpm as two supervised child processes over configuration files in one folder: one
 * pool per site on a unix socket, one server block per hostname. A change is written atomically,
 * tested (`nginx -t`, `php-fpm -t`), then applied with a graceful reload, and reported done only
 * once the new configuration answers; a change either process refuses is rolled back.
 *
 * Every site runs on the one php-fpm binary found (8.2 on this machine): the version a site asked
 * for is recorded in its pool file, and no other binary is pretended to.
 */
export class EmbeddedWebServing implements WebServingProvider {
  readonly kind = 'embedded' as const;
  readonly description: string;
  private readonly paths: WebPaths;
  private readonly runAs: RunAs | null;
  private readonly startTimeoutMs: number;
  private readonly nginx: SupervisedProcess;
  private readonly phpFpm: SupervisedProcess;
  private port: number | null = null;
  /** Changes with every nginx.conf written; the default server answers it in a header. */
  private generation = '';
  private started = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: EmbeddedWebServingOptions) {
    this.paths = webPaths(options.dir);
    this.startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    // php-fpm refuses to run pools as root without -R, and they must run as the user owning the
    // homes: as root, pools and nginx workers are told to stay root rather than become nobody.
    this.runAs = process.getuid?.() === 0 ? { uid: 0, gid: process.getgid?.() ?? 0, user: userInfo().username } : null;
    this.description =
      `Embedded: nginx and ${path.basename(options.phpFpmBinary)} (one pool per site) on ${LOOPBACK}:${options.port === 0 ? 'a free port' : options.port}; ` +
      'every site runs on this PHP whatever version it asked for';
    const serially = <T>(task: () => Promise<T>) => this.serially(task);
    this.phpFpm = new SupervisedProcess(
      {
        name: 'php-fpm',
        binary: options.phpFpmBinary,
        args: () => this.phpFpmArgs(),
        pidFile: this.paths.phpFpmPid,
        marker: this.paths.phpFpmConf,
        titlePrefix: 'php-fpm:',
        logFile: this.paths.phpFpmLog,
        prepare: async () => {
          await rm(this.paths.phpFpmPid, { force: true });
          await this.setAsidePoolsWithoutHome();
        },
        waitReady: (hasExited) => this.waitForPhpFpm(hasExited, path.join(this.paths.socketsDir, `${IDLE_POOL}.sock`)),
      },
      serially,
    );
    this.nginx = new SupervisedProcess(
      {
        name: 'nginx',
        binary: options.nginxBinary,
        args: () => ['-c', this.paths.nginxConf, '-e', this.paths.nginxErrorLog],
        pidFile: this.paths.nginxPid,
        marker: this.paths.nginxConf,
        titlePrefix: 'nginx:',
        logFile: this.paths.nginxErrorLog,
        prepare: () => this.prepareNginx(),
        waitReady: (hasExited) => this.waitForGeneration(hasExited),
      },
      serially,
    );
  }

  start(): Promise<void> {
    return this.serially(() => this.ensureStarted());
  }

  stop(): Promise<void> {
    return this.serially(async () => {
      this.started = false;
      await this.nginx.stop();
      await this.phpFpm.stop();
      getLogger().info({ dir: this.paths.dir }, 'hosting web serving stopped');
    });
  }

  httpPort(): number {
    return this.port ?? this.options.port;
  }

  async applySite(site: SiteServing): Promise<void> {
    // Rendering checks every value, so a refused one fails before anything is touched.
    const serverBlocks = renderServerBlocks(site, this.paths);
    const pool = renderPool(site, this.paths, this.runAs);
    const files = siteFiles(this.paths, site.siteName);
    await this.serially(async () => {
      if (!isDirectory(site.home)) throw upstream(`The home of site ${site.siteName} does not exist`);
      await mkdir(files.phpTemp, { recursive: true, mode: 0o700 });
      await this.ensureStarted();
      const previousPool = await readOrNull(files.pool);
      const previousBlocks = await readOrNull(files.serverBlocks);
      try {
        if (previousPool !== pool) {
          await this.setAsidePoolsWithoutHome();
          await writeAtomically(files.pool, pool);
          await this.testConfig('php-fpm', this.options.phpFpmBinary, ['-t', ...this.phpFpmArgs()]);
          await this.reloadPhpFpm(files.socket);
        }
        if (previousBlocks !== serverBlocks) {
          await writeAtomically(files.serverBlocks, serverBlocks);
          await this.reloadNginx();
        }
      } catch (err) {
        await this.restore([
          [files.pool, previousPool],
          [files.serverBlocks, previousBlocks],
        ]);
        throw upstream(`Site ${site.siteName} could not be served`, err);
      }
      getLogger().info({ siteName: site.siteName, hosts: site.hosts.length, suspended: site.suspended }, 'hosting site applied to the web server');
    });
  }

  async removeSite(siteName: string): Promise<void> {
    const files = siteFiles(this.paths, siteName);
    await this.serially(async () => {
      const hadBlocks = existsSync(files.serverBlocks);
      const hadPool = existsSync(files.pool);
      await rm(files.serverBlocks, { force: true });
      await rm(files.pool, { force: true });
      await rm(files.phpTemp, { recursive: true, force: true });
      if (!this.started) return;
      try {
        // nginx first, so no request is sent to a pool that is going away.
        if (hadBlocks) await this.reloadNginx();
        if (hadPool) {
          await this.setAsidePoolsWithoutHome();
          await this.reloadPhpFpm(null);
        }
      } catch (err) {
        throw upstream(`Site ${siteName} was removed from the configuration but the web server did not reload`, err);
      }
      getLogger().info({ siteName }, 'hosting site removed from the web server');
    });
  }

  async isServing(siteName: string): Promise<boolean> {
    const files = siteFiles(this.paths, siteName);
    if (!this.started) await this.start();
    if (!existsSync(files.serverBlocks) || !(await socketAccepts(files.socket, 2000))) return false;
    const answer = await httpGet(this.httpPort(), `${checkSiteName(siteName)}.${this.options.platformDomain}`, 5000);
    // The generation header is the default server's: nginx does not know the site's address.
    return answer !== null && !UNAVAILABLE.has(answer.status) && answer.headers['x-hosting-config'] === undefined;
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Brings both processes up over the files already in the folder, so a restarted app serves its sites again. */
  private async ensureStarted(): Promise<void> {
    if (this.started) return;
    for (const dir of [this.paths.dir, this.paths.sitesDir, this.paths.poolsDir, this.paths.socketsDir, this.paths.tempDir]) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
    }
    await writeAtomically(this.paths.fastcgiParams, renderFastcgiParams());
    await writeAtomically(this.paths.phpFpmConf, renderPhpFpmConf(this.paths, this.runAs));
    try {
      await this.phpFpm.start();
      await this.nginx.start();
    } catch (err) {
      await this.nginx.stop();
      await this.phpFpm.stop();
      throw err;
    }
    this.started = true;
    getLogger().info({ port: this.port, dir: this.paths.dir }, 'hosting web serving started');
  }

  /**
   * php-fpm refuses to start or reload while any pool's `chdir` is missing, so one home deleted
   * behind the app's back would take every site down: such a pool is renamed out of the include.
   * Its site stops being served until it is applied again.
   */
  private async setAsidePoolsWithoutHome(): Promise<void> {
    const names = await readdir(this.paths.poolsDir).catch(() => []);
    for (const name of names.filter((entry) => entry.endsWith('.conf'))) {
      const file = path.join(this.paths.poolsDir, name);
      const home = /^chdir = "(.*)"$/m.exec((await readOrNull(file)) ?? '')?.[1];
      if (home === undefined || isDirectory(home)) continue;
      await rename(file, `${file}.disabled`);
      getLogger().error({ pool: name, home }, 'PHP pool set aside: its home is missing');
    }
  }

  /** `-R` only as root, where php-fpm otherwise refuses to run pools as root (see RunAs). */
  private phpFpmArgs(): string[] {
    return ['-F', '-y', this.paths.phpFpmConf, '-p', this.paths.dir, ...(this.runAs ? ['-R'] : [])];
  }

  /** Before each nginx start: a port (a new free one when 0 was configured and the last one got taken) and a fresh nginx.conf. */
  private async prepareNginx(): Promise<void> {
    if (this.port === null || (this.options.port === 0 && !(await portIsFree(this.port)))) {
      this.port = this.options.port === 0 ? await freePort() : this.options.port;
    }
    await writeAtomically(this.paths.listenConf, renderListenConf(this.port));
    await this.writeNginxConf();
  }

  private async writeNginxConf(): Promise<void> {
    if (this.port === null) throw upstream('nginx has no port yet');
    this.generation = randomBytes(6).toString('hex');
    await writeAtomically(this.paths.nginxConf, renderNginxConf(this.paths, { port: this.port, generation: this.generation, runAs: this.runAs }));
  }

  /**
   * A new generation of nginx.conf, tested, then SIGHUP: nginx starts new workers and tells the old
   * ones to finish gracefully. Until an old worker has closed its listener it still accepts
   * connections with the old configuration, so the change is live once every old worker is gone or
   * shutting down (nginx renames it so before closing its listener) and the new generation answers.
   */
  private async reloadNginx(): Promise<void> {
    await this.writeNginxConf();
    await this.testConfig('nginx', this.options.nginxBinary, ['-t', '-q', '-c', this.paths.nginxConf, '-e', this.paths.nginxErrorLog]);
    const master = this.nginx.pid();
    const oldWorkers = master === null ? [] : acceptingWorkers(master);
    if (!this.nginx.signal('SIGHUP')) throw upstream('nginx is not running (it is being restarted)');
    const deadline = Date.now() + this.startTimeoutMs;
    while (master !== null && acceptingWorkers(master).some((pid) => oldWorkers.includes(pid))) {
      if (Date.now() > deadline) throw upstream('nginx did not retire its old workers in time');
      await sleep(20);
    }
    await this.waitForGeneration(() => !this.nginx.isRunning());
  }

  /**
   * SIGUSR2 makes the php-fpm master finish its requests, re-execute itself and read every pool
   * again; it writes its pid file once the new configuration is read, so the file is removed first
   * and its return marks the reload. Sockets are kept across it, so requests queue rather than fail.
   */
  private async reloadPhpFpm(socket: string | null): Promise<void> {
    await rm(this.paths.phpFpmPid, { force: true });
    if (!this.phpFpm.signal('SIGUSR2')) throw upstream('php-fpm is not running (it is being restarted)');
    await this.waitForPhpFpm(() => !this.phpFpm.isRunning(), socket);
  }

  private async waitForPhpFpm(hasExited: () => boolean, socket: string | null): Promise<void> {
    const deadline = Date.now() + this.startTimeoutMs;
    while (Date.now() < deadline && !hasExited()) {
      if (existsSync(this.paths.phpFpmPid) && (socket === null || (await socketAccepts(socket, 1000)))) return;
      await sleep(50);
    }
    throw upstream(hasExited() ? 'php-fpm exited while taking its configuration' : 'php-fpm did not take its configuration in time');
  }

  /** Until the default server answers with the generation of the current nginx.conf. */
  private async waitForGeneration(hasExited: () => boolean): Promise<void> {
    const deadline = Date.now() + this.startTimeoutMs;
    while (Date.now() < deadline && !hasExited()) {
      const answer = this.port === null ? null : await httpGet(this.port, PROBE_HOST, 1000);
      if (answer?.headers['x-hosting-config'] === this.generation) return;
      await sleep(50);
    }
    throw upstream(hasExited() ? 'nginx exited while starting' : 'nginx did not take its configuration in time');
  }

  private async testConfig(name: string, binary: string, args: string[]): Promise<void> {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], env: childEnvironment() });
    const output: string[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => output.push(line));
    createInterface({ input: child.stderr }).on('line', (line) => output.push(line));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (code !== 0) throw upstream(`${name} refused the new configuration`, new Error(output.slice(-10).join('\n')));
  }

  /** Puts back what a failed change replaced; the processes never took it, or take the old files again. */
  private async restore(files: [string, string | null][]): Promise<void> {
    try {
      for (const [file, previous] of files) {
        if (previous === null) await rm(file, { force: true });
        else await writeAtomically(file, previous);
      }
      if (this.phpFpm.isRunning()) await this.reloadPhpFpm(null);
      if (this.nginx.isRunning()) await this.reloadNginx();
    } catch (err) {
      getLogger().error({ err }, 'the web server configuration could not be restored after a failed change');
    }
  }
}

/** The nginx workers of a master that still accept connections (not yet `worker process is shutting down`). */
function acceptingWorkers(master: number): number[] {
  return processes((entry) => entry.parent === master && !entry.zombie)
    .filter((entry) => entry.cmdline === 'nginx: worker process')
    .map((entry) => entry.pid);
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}

interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

/** A GET / with the given Host on a fresh connection (no keep-alive: a probe must reach the current workers); null on any failure. */
function httpGet(port: number, host: string, timeoutMs: number): Promise<HttpAnswer | null> {
  return new Promise((resolve) => {
    const req = httpRequest(
      { host: LOOPBACK, port, path: '/', method: 'GET', headers: { host, connection: 'close' }, agent: false, timeout: timeoutMs },
      (res) => {
        res.resume();
        res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
        res.once('error', () => resolve(null));
      },
    );
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', () => resolve(null));
    req.end();
  });
}

function socketAccepts(socket: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const connection = connect({ path: socket });
    const timer = setTimeout(() => {
      connection.destroy();
      resolve(false);
    }, timeoutMs);
    connection.once('connect', () => {
      clearTimeout(timer);
      connection.destroy();
      resolve(true);
    });
    connection.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

function upstream(message: string, cause?: unknown): AppError {
  return new AppError('UPSTREAM_ERROR', message, cause === undefined ? {} : { cause });
}
