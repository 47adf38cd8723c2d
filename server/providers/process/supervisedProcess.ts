import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { chown, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import { findExecutable } from '../redis';

/** A user a child process runs as (set only when the app runs as root and the daemon must not). */
export interface ProcessUser {
  uid: number;
  gid: number;
}

export interface ProcessSpec {
  /** For logs and error messages: `nginx`, `php-fpm`, `pgbouncer`. */
  name: string;
  binary: string;
  args: () => string[];
  /** The pid file the process writes itself (absolute, or relative to `cwd`). */
  pidFile: string;
  /** Part of the command line of a process of ours: its configuration path. */
  marker: string;
  /** How its processes name themselves in /proc (`nginx: worker process`, `php-fpm: pool x`, the binary's path). */
  titlePrefix: string;
  /** Absolute, or relative to `cwd`. */
  logFile: string;
  /**
   * The folder the process starts in. The change of directory happens before the change of user,
   * so a daemon run as another user reaches its files through relative paths even when a parent
   * folder is closed to that user; a leftover process is ours only if it runs in this folder.
   */
  cwd?: string;
  /** Runs the process as this user rather than the app's. */
  user?: ProcessUser;
  prepare(): Promise<void>;
  waitReady(hasExited: () => boolean): Promise<void>;
  /**
   * Asked before each start and restart: true when another process (of another app process on the
   * same host) already serves this configuration. Nothing is started then, and this supervisor
   * stops wanting the process: the other one's owner supervises it.
   */
  servedElsewhere?: () => Promise<boolean>;
}

const KILL_AFTER_MS = 5000;
const FIRST_RESTART_DELAY_MS = 1000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A process that ran this long before dying is restarted promptly again: it was not crash-looping. */
const STABLE_AFTER_MS = 60_000;
const OUTPUT_LINES_KEPT = 30;

interface Running {
  process: ChildProcess;
  pid: number;
  exited: Promise<void>;
  hasExited: boolean;
  startedAt: number;
}

/**
 * One master process and its workers, run in a process group of their own so a stop or a crash
 * takes the workers along (an nginx worker outlives its master and would keep the port). Started
 * again after it dies, with a growing delay; orphans of an app that died without stopping it are
 * found through the pid file and killed before a start.
 *
 * `serially` is the owner's queue: restarts run in it, so they never interleave with the owner's
 * own changes to the configuration; `start` and `stop` are called from inside it.
 */
export class SupervisedProcess {
  private running: Running | null = null;
  private wanted = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private restartDelayMs = FIRST_RESTART_DELAY_MS;
  private readonly output: string[] = [];

  constructor(
    private readonly spec: ProcessSpec,
    private readonly serially: <T>(task: () => Promise<T>) => Promise<T>,
  ) {}

  isRunning(): boolean {
    return this.running !== null && !this.running.hasExited;
  }

  /** The master's pid while it runs. */
  pid(): number | null {
    return this.running && !this.running.hasExited ? this.running.pid : null;
  }

  /** Signals the master alone (reloads); false when it is not running. */
  signal(name: NodeJS.Signals): boolean {
    if (!this.running || this.running.hasExited) return false;
    try {
      process.kill(this.running.pid, name);
      return true;
    } catch {
      return false;
    }
  }

  /** Called inside the owner's queue. Starts nothing when `servedElsewhere` says another process serves it (`isRunning` stays false). */
  async start(): Promise<void> {
    this.wanted = true;
    if (!this.running) await this.launch('start');
  }

  /**
   * The pid its pid file names when that is a live process of this very configuration (its
   * command line, and with a `cwd` its folder): this supervisor's own child, or one another process
   * started over the same folder. Read from /proc, synchronously.
   */
  servingPid(): number | null {
    let pid: number;
    try {
      pid = Number(readFileSync(this.file(this.spec.pidFile), 'utf8').trim());
    } catch {
      return null;
    }
    if (!Number.isInteger(pid) || pid <= 1) return null;
    const entry = processEntry(pid);
    return entry && !entry.zombie && this.isOurs(entry) ? pid : null;
  }

  /** Called inside the owner's queue. */
  async stop(): Promise<void> {
    this.wanted = false;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    await this.terminate();
  }

  private async launch(reason: 'start' | 'restart'): Promise<void> {
    if (await this.spec.servedElsewhere?.()) {
      this.wanted = false;
      // A restart giving up supervision is news; a start finding it served is the usual case of the other processes.
      if (reason === 'restart') getLogger().info(`${this.spec.name} is served by another process of this host; not starting another`);
      return;
    }
    await this.killOrphan();
    await this.spec.prepare();
    this.output.length = 0;
    const child = spawnOwned(this.spec.binary, this.spec.args(), { cwd: this.spec.cwd, user: this.spec.user });
    if (child.pid === undefined) {
      const err = await new Promise<Error>((resolve) => child.once('error', resolve));
      throw upstream(`${this.spec.name} could not be run`, err);
    }
    child.on('error', (err) => getLogger().error({ err }, `${this.spec.name} could not be signalled`));
    const running: Running = { process: child, pid: child.pid, exited: Promise.resolve(), hasExited: false, startedAt: Date.now() };
    running.exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        running.hasExited = true;
        resolve();
        this.onExit(running, code, signal);
      });
    });
    this.running = running;
    this.collectOutput(child);
    try {
      await this.spec.waitReady(() => running.hasExited);
    } catch (err) {
      await this.terminate();
      throw upstream(`${this.spec.name} did not start`, new Error([String(err), ...this.output.slice(-5), ...tailOf(this.file(this.spec.logFile))].join('\n')));
    }
    getLogger().info({ pid: running.pid }, `${this.spec.name} started`);
  }

  private onExit(running: Running, code: number | null, signal: NodeJS.Signals | null): void {
    // Workers left behind by a master that died would keep serving an old configuration.
    signalGroup(running.pid, 'SIGKILL');
    // An exit this class asked for has already cleared `running`.
    if (this.running !== running) return;
    this.running = null;
    if (!this.wanted) return;
    if (Date.now() - running.startedAt >= STABLE_AFTER_MS) this.restartDelayMs = FIRST_RESTART_DELAY_MS;
    getLogger().warn(
      { code, signal, restartInMs: this.restartDelayMs, output: this.output.slice(-5), log: tailOf(this.file(this.spec.logFile)) },
      `${this.spec.name} exited; restarting it`,
    );
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
          await this.launch('restart');
        } catch (err) {
          getLogger().error({ err, restartInMs: this.restartDelayMs }, `${this.spec.name} did not come back; trying again`);
          this.scheduleRestart();
        }
      });
    }, delay);
    this.restartTimer.unref();
  }

  /** SIGTERM to the whole group (a fast stop for nginx, php-fpm and pgbouncer 1.18), SIGKILL if it lingers. */
  private async terminate(): Promise<void> {
    const running = this.running;
    this.running = null;
    if (!running) return;
    if (!running.hasExited) signalGroup(running.pid, 'SIGTERM');
    if (!(await groupGoneWithin(running.pid, KILL_AFTER_MS))) {
      getLogger().warn({ pid: running.pid }, `${this.spec.name} did not stop on SIGTERM; killing it`);
      signalGroup(running.pid, 'SIGKILL');
      await groupGoneWithin(running.pid, KILL_AFTER_MS);
    }
    await running.exited;
  }

  /**
   * A master left by an app that died without stopping it holds the port and the sockets. It is
   * killed, with its group, only when /proc shows it runs this very configuration (and, with a
   * `cwd`, in this very folder).
   */
  private async killOrphan(): Promise<void> {
    let pid: number;
    try {
      pid = Number((await readFile(this.file(this.spec.pidFile), 'utf8')).trim());
    } catch {
      return;
    }
    if (!Number.isInteger(pid) || pid <= 1 || pid === this.running?.pid) return;
    const ours = groupMembers(pid).some((member) => this.isOurs(member));
    if (!ours) return;
    getLogger().warn({ pid }, `killing a ${this.spec.name} left over by a previous run over the same folder`);
    signalGroup(pid, 'SIGTERM');
    if (await groupGoneWithin(pid, KILL_AFTER_MS)) return;
    signalGroup(pid, 'SIGKILL');
    if (!(await groupGoneWithin(pid, KILL_AFTER_MS))) throw upstream(`A ${this.spec.name} left over by a previous run (pid ${pid}) could not be stopped`);
  }

  private isOurs(member: ProcessEntry): boolean {
    return (
      member.cmdline.includes(this.spec.marker) &&
      member.cmdline.startsWith(this.spec.titlePrefix) &&
      (this.spec.cwd === undefined || workingDirectory(member.pid) === path.resolve(this.spec.cwd))
    );
  }

  private file(name: string): string {
    return this.spec.cwd === undefined ? name : path.resolve(this.spec.cwd, name);
  }

  private collectOutput(child: ChildProcess): void {
    const keep = (line: string) => {
      this.output.push(line);
      if (this.output.length > OUTPUT_LINES_KEPT) this.output.shift();
    };
    if (child.stdout) createInterface({ input: child.stdout }).on('line', keep);
    if (child.stderr) createInterface({ input: child.stderr }).on('line', keep);
  }
}

/**
 * The masters run in a group of their own (so that they can be signalled as a whole), which keeps
 * a terminal's Ctrl-C from reaching them; and nothing would stop them if the app were killed. So
 * each is started through util-linux's `setpriv --pdeathsig`, which has the kernel send it SIGTERM
 * when the app dies, however it dies (SIGTERM stops nginx, php-fpm and pgbouncer with their
 * workers). Without setpriv, a master outlives the app until the next start over the same folder
 * kills it.
 *
 * A process that must not run as root gets its user from spawn itself, before setpriv runs: the
 * kernel clears the parent-death signal when a process changes its user, so a daemon switching
 * user on its own (`pgbouncer -u`) would lose it.
 */
const SETPRIV = findExecutable('setpriv');

export function spawnOwned(binary: string, args: string[], options: { cwd?: string; user?: ProcessUser } = {}): ChildProcess {
  const [command, argv] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'TERM', '--', binary, ...args]] : [binary, args];
  return spawn(command, argv, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: childEnvironment(),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.user === undefined ? {} : { uid: options.user.uid, gid: options.user.gid }),
  });
}

export function signalGroup(pgid: number, name: NodeJS.Signals): void {
  try {
    process.kill(-pgid, name);
  } catch {
    // The group is gone.
  }
}

export interface ProcessEntry {
  pid: number;
  parent: number;
  group: number;
  zombie: boolean;
  /** Arguments joined by spaces; nginx and php-fpm rewrite theirs into a title (`nginx: worker process`). */
  cmdline: string;
}

/** The processes matching `wanted`, from /proc (nothing where there is no /proc). */
export function processes(wanted: (entry: Omit<ProcessEntry, 'cmdline'>) => boolean): ProcessEntry[] {
  const found: ProcessEntry[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return found;
  }
  for (const name of entries) {
    const entry = processEntry(Number(name), wanted);
    if (entry) found.push(entry);
  }
  return found;
}

/** One process from /proc; null when it is gone (or `wanted` says no). */
export function processEntry(pid: number, wanted: (entry: Omit<ProcessEntry, 'cmdline'>) => boolean = () => true): ProcessEntry | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields that follow start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const entry = { pid, parent: Number(fields[1]), group: Number(fields[2]), zombie: fields[0] === 'Z' };
    if (!wanted(entry)) return null;
    return { ...entry, cmdline: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() };
  } catch {
    return null;
  }
}

export function groupMembers(pgid: number): ProcessEntry[] {
  return processes((entry) => entry.group === pgid);
}

/** Zombies count as gone: whether they are reaped depends on the machine's init, not on us. */
export async function groupGoneWithin(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (groupMembers(pgid).every((member) => member.zombie)) return true;
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
}

function workingDirectory(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/** The children see PATH alone: nothing of the app's environment (database URLs, secrets) reaches them. */
export function childEnvironment(): NodeJS.ProcessEnv {
  // The cast drops Next's declaration of NODE_ENV as always present: none of the daemons reads it.
  return Object.fromEntries([['PATH', process.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin']]) as NodeJS.ProcessEnv;
}

/** The last lines of a log, for the reason of a failed start. */
export function tailOf(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(-5);
  } catch {
    return [];
  }
}

/**
 * Written beside and renamed over, so a daemon never reads half a file. Mode 0600 unless told;
 * with `owner`, the file is handed to that user before it takes its place (a daemon run as another
 * user must read it).
 */
export async function writeAtomically(file: string, text: string, options: { mode?: number; owner?: ProcessUser } = {}): Promise<void> {
  const temporary = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, text, { mode: options.mode ?? 0o600 });
    if (options.owner) await chown(temporary, options.owner.uid, options.owner.gid);
    await rename(temporary, file);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}

function upstream(message: string, cause?: unknown): AppError {
  return new AppError('UPSTREAM_ERROR', message, cause === undefined ? {} : { cause });
}
