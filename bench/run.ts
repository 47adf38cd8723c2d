/**
 * `npm run bench`: GET /v1/projects/{projectId} under sustained load, our compiled production
 * server (dist/server.js, with all seven `_count` counters registered) against a bare node:http +
 * postgres.js baseline, on a fresh PostgreSQL database that is dropped at the end. See
 * bench/README.md for what is measured and the targets.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { build } from 'esbuild';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import * as schema from '../db/schema';
import { newId } from '../db/schema/ids';
import { generateApiKey } from '../server/platform/auth/tokens';
import type { ProjectCounter } from '../server/platform/counters';
import type { LoadPlan, LoadResult } from './load';
import { formatSummary, summarizeProfile, type ProfileSummary } from './profile';
import { freePort } from '../test/processes';

const ROOT = process.cwd();
const OUTPUT_DIR = path.join(ROOT, 'bench', '.output');
/** The baseline and the load generator, compiled like the server: no transpiler in any measured process. */
const BIN_DIR = path.join(OUTPUT_DIR, 'bin');
const PROJECTS = 1000;
const CONNECTIONS = 64;
const SEGMENTS = 3;
const SERVER_CORE = '0';
const LOAD_CORE = '1';
const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;

const TARGET_RATIO = 0.45;
const TARGET_P99_MS = 30;
const TARGET_PEAK_RSS_MB = 350;
const TARGET_STABILITY = 0.9;
/** The most the rate limits may cost: the ratio to the baseline falls by no more than this share. */
const TARGET_BUDGET_COST = 0.1;

/**
 * The project counters no domain registers yet, each counted in a stand-in table created in the
 * bench database and registered by bench/register-standins.mjs (see bench/README.md).
 */
const STANDIN_COUNTERS: Array<{ counter: ProjectCounter; label: string; table: string }> = [
  { counter: 'domains', label: 'domain', table: 'bench_standin_domains' },
  { counter: 'apps', label: 'app', table: 'bench_standin_apps' },
  { counter: 'objectStorages', label: 'object storage', table: 'bench_standin_object_storages' },
  { counter: 'containerRegistries', label: 'container registry', table: 'bench_standin_container_registries' },
  { counter: 'databaseClusters', label: 'database cluster', table: 'bench_standin_database_clusters' },
];
/** Other work on the machine above this many cores makes a run's figures unreliable. */
const NOISE_CORES = 0.2;

interface Seeded {
  projectId: string;
  slug: string;
  /** Plaintext, kept in memory only (handed to the load generator over a pipe). */
  key: string;
}

interface Probe {
  label: string;
  path: string;
  headers: Record<string, string>;
}

interface ProbeAnswer {
  label: string;
  status: number;
  body: unknown;
  requestId: string | null;
}

interface TargetResult extends LoadResult {
  name: string;
  peakRssMb: number;
  /** Server CPU time (user + system) per answered request during the measured run. */
  cpuUsPerRequest: number;
  /** CPU time of the PostgreSQL backends serving the bench database, per answered request. */
  databaseCpuUsPerRequest: number;
  /**
   * CPU the rest of the machine used meanwhile (everything but the server, the load generator
   * and the PostgreSQL backends of the bench database), in cores: well above zero means noise.
   */
  otherLoadCores: number;
  firstSegmentReqPerSec: number;
  lastSegmentReqPerSec: number;
}

interface TargetCheck {
  name: string;
  value: number;
  threshold: string;
  pass: boolean;
}

const live = new Set<ChildProcess>();
let interrupted = false;

function log(message: string): void {
  console.log(`[bench] ${message}`);
}

function envSeconds(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number of seconds`);
  return value;
}

function hasTaskset(): boolean {
  return spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).status === 0;
}

function clockTicksPerSecond(): number {
  const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const ticks = Number(out.stdout?.trim());
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
}

/** The Next build and dist/ as `npm start` would run them: rebuilt when missing or older than the sources. */
function ensureBuild(): void {
  const result = spawnSync(process.execPath, [path.join('scripts', 'start.mjs'), '--build-only'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('the build failed');
}

/**
 * The Node options `npm start` runs the server with (package.json: "node <options> scripts/start.mjs"),
 * so the bench measures the server as production runs it; BENCH_NODE_OPTIONS replaces them for an experiment.
 */
function productionNodeOptions(): string[] {
  const override = process.env.BENCH_NODE_OPTIONS;
  if (override !== undefined) return override.split(/\s+/).filter(Boolean);
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const match = /^node\s+(.*?)\s*scripts\/start\.mjs\b/.exec(pkg.scripts?.start ?? '');
  return (match?.[1] ?? '').split(/\s+/).filter(Boolean);
}

/** Compiles the baseline and the load generator to bench/.output/bin/ (they are not part of dist/). */
async function buildBenchBinaries(): Promise<void> {
  await build({
    absWorkingDir: ROOT,
    entryPoints: { baseline: 'bench/baseline.ts', load: 'bench/load.ts' },
    outdir: BIN_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    packages: 'external',
    logLevel: 'warning',
  });
}

async function seed(databaseUrl: string): Promise<Seeded[]> {
  const client = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const db = drizzle(client, { schema });
    await migrate(db, { migrationsFolder: path.join(ROOT, 'db', 'migrations') });
    const run = randomBytes(3).toString('hex');
    const rows = Array.from({ length: PROJECTS }, (_, i) => {
      const userId = newId('usr');
      const projectId = newId('prj');
      return { i, userId, projectId, slug: `bench-${run}-${i}`, apiKey: generateApiKey() };
    });
    await db.insert(schema.users).values(
      rows.map((r) => ({
        id: r.userId,
        email: `bench-${run}-${r.i}@example.com`,
        name: `Bench User ${r.i}`,
        // Nobody signs in during the bench; a value that is no valid argon2 hash cannot be used to.
        passwordHash: 'bench:no-login',
      })),
    );
    await db
      .insert(schema.projects)
      .values(rows.map((r) => ({ id: r.projectId, name: `Bench ${r.i}`, slug: r.slug, createdByUserId: r.userId, billerUserId: r.userId })));
    await db.insert(schema.memberships).values(rows.map((r) => ({ projectId: r.projectId, userId: r.userId, role: 'owner' as const })));
    await db.insert(schema.apiKeys).values(
      rows.map((r) => ({
        id: newId('key'),
        projectId: r.projectId,
        createdByUserId: r.userId,
        name: 'bench',
        prefix: r.apiKey.prefix,
        keyHash: r.apiKey.hash,
        scopes: ['projects:read'],
      })),
    );
    for (const { table } of STANDIN_COUNTERS) {
      // Empty, like the servers table: the seeded projects own no resources, so every counter reads 0.
      await client.unsafe(`create table "${table}" (
        id text primary key,
        project_id text not null references projects(id) on delete cascade,
        deleted_at timestamptz
      )`);
      await client.unsafe(`create index "${table}_project_idx" on "${table}" (project_id)`);
    }
    return rows.map((r) => ({ projectId: r.projectId, slug: r.slug, key: r.apiKey.key }));
  } finally {
    await client.end({ timeout: 5 });
  }
}

function startProcess(args: string[], env: NodeJS.ProcessEnv, pinTo: string | null, stdio: 'server' | 'loader'): ChildProcess {
  if (interrupted) throw new Error('interrupted');
  const command = pinTo ? 'taskset' : process.execPath;
  const argv = pinTo ? ['-c', pinTo, process.execPath, ...args] : args;
  const child = spawn(command, argv, {
    cwd: ROOT,
    env,
    stdio: stdio === 'server' ? ['ignore', 'inherit', 'inherit'] : ['pipe', 'pipe', 'inherit'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

async function waitReady(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error('the server exited before it was ready');
    // Both servers answer an unauthenticated project read with 401 once they serve requests.
    const status = await fetch(`http://127.0.0.1:${port}/v1/projects/ready-probe`)
      .then((res) => res.status)
      .catch(() => 0);
    if (status === 401) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the server did not answer within ${READY_TIMEOUT_MS / 1000} s`);
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function probes(seeded: Seeded[]): Probe[] {
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const [a, b, c] = seeded as [Seeded, Seeded, Seeded];
  return [
    { label: 'own project by id', path: `/v1/projects/${a.projectId}`, headers: bearer(a.key) },
    { label: 'own project by id (X-API-Key)', path: `/v1/projects/${b.projectId}`, headers: { 'x-api-key': b.key } },
    { label: 'own project by slug', path: `/v1/projects/${c.slug}`, headers: bearer(c.key) },
    { label: "another project's key", path: `/v1/projects/${a.projectId}`, headers: bearer(b.key) },
    { label: 'unknown project', path: '/v1/projects/prj_doesnotexist', headers: bearer(a.key) },
    { label: 'no credentials', path: `/v1/projects/${a.projectId}`, headers: {} },
    { label: 'unknown key', path: `/v1/projects/${a.projectId}`, headers: bearer(`cpk_${'x'.repeat(43)}`) },
  ];
}

async function ask(port: number, list: Probe[]): Promise<ProbeAnswer[]> {
  const answers: ProbeAnswer[] = [];
  for (const probe of list) {
    const res = await fetch(`http://127.0.0.1:${port}${probe.path}`, { headers: probe.headers });
    const text = await res.text();
    answers.push({ label: probe.label, status: res.status, body: text ? JSON.parse(text) : null, requestId: res.headers.get('x-request-id') });
  }
  return answers;
}

function compareAnswers(ours: ProbeAnswer[], baseline: ProbeAnswer[]): string[] {
  const problems: string[] = [];
  ours.forEach((answer, i) => {
    const other = baseline[i]!;
    if (!answer.requestId) problems.push(`${answer.label}: ours sent no X-Request-Id`);
    if (answer.status !== other.status || !isDeepStrictEqual(answer.body, other.body)) {
      problems.push(`${answer.label}: ours ${answer.status} ${JSON.stringify(answer.body)} vs baseline ${other.status} ${JSON.stringify(other.body)}`);
    }
  });
  return problems;
}

function readProcStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

interface CpuSnapshot {
  at: number;
  machine: number;
  server: number;
  loader: number;
  database: number;
}

/** Busy CPU seconds of the whole machine since boot (all but idle and I/O wait). */
function machineBusySeconds(ticksPerSecond: number): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, n) => sum + n, 0);
  return (total - (fields[3] ?? 0) - (fields[4] ?? 0)) / ticksPerSecond;
}

async function databaseBackends(admin: postgres.Sql, dbName: string): Promise<number[]> {
  const rows = await admin<{ pid: number }[]>`select pid from pg_stat_activity where datname = ${dbName}`;
  return rows.map((r) => r.pid);
}

function snapshot(pids: { server: number; loader: number; backends: readonly number[] }, ticksPerSecond: number): CpuSnapshot {
  return {
    at: performance.now(),
    machine: machineBusySeconds(ticksPerSecond),
    server: cpuSeconds(pids.server, ticksPerSecond),
    loader: cpuSeconds(pids.loader, ticksPerSecond),
    database: pids.backends.reduce((sum, pid) => sum + cpuSeconds(pid, ticksPerSecond), 0),
  };
}

function cpuSeconds(pid: number, ticksPerSecond: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th overall.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return 0;
  }
}

interface LoadHooks {
  /** The warm-up is over and the measured run starts. */
  onMeasuring(loaderPid: number): void;
  /** The measured run is over; the load generator is still alive (its CPU can still be read). */
  onFinished(): void;
}

/** Runs the load generator: a warm-up, then the measured run. */
function runLoad(plan: LoadPlan, pinned: boolean, hooks: LoadHooks): Promise<LoadResult> {
  const child = startProcess([path.join(BIN_DIR, 'load.mjs')], process.env, pinned ? LOAD_CORE : null, 'loader');
  return new Promise((resolve, reject) => {
    let out = '';
    let measuring = false;
    let finished = false;
    const limit = setTimeout(() => child.kill('SIGKILL'), (plan.warmupSeconds + plan.seconds + 120) * 1000);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const newline = out.indexOf('\n');
      if (newline === -1) return;
      if (!measuring) {
        measuring = true;
        hooks.onMeasuring(child.pid!);
      }
      if (!finished && out.length > newline + 1) {
        finished = true;
        hooks.onFinished();
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(limit);
      const json = out.slice(out.indexOf('\n') + 1);
      if (code === 0 && measuring && json) resolve(JSON.parse(json) as LoadResult);
      else reject(new Error(`the load generator failed (exit ${code})`));
    });
    child.stdin!.end(JSON.stringify(plan));
  });
}

async function measureTarget(options: {
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  port: number;
  pinned: boolean;
  plan: LoadPlan;
  list: Probe[];
  ticksPerSecond: number;
  admin: postgres.Sql;
  dbName: string;
}): Promise<{ result: TargetResult; answers: ProbeAnswer[] }> {
  const { name, port, pinned, plan, ticksPerSecond } = options;
  log(`${name}: starting`);
  const server = startProcess(options.args, options.env, pinned ? SERVER_CORE : null, 'server');
  try {
    await waitReady(port, server);
    const pid = server.pid!;
    const answers = await ask(port, options.list);
    let peakSampled = readProcStatus(pid, 'VmRSS');
    const sampler = setInterval(() => {
      peakSampled = Math.max(peakSampled, readProcStatus(pid, 'VmRSS'));
    }, 1000);
    log(`${name}: warm-up ${plan.warmupSeconds} s, then ${plan.seconds} s at ${plan.connections} connections`);
    const pids = { server: pid, loader: 0, backends: [] as number[] };
    let first: CpuSnapshot | undefined;
    let firstDatabase: Promise<number> | undefined;
    let last: CpuSnapshot | undefined;
    const load = await runLoad(plan, pinned, {
      onMeasuring(loader) {
        pids.loader = loader;
        first = snapshot(pids, ticksPerSecond);
        // The pool's connections are all open once the warm-up is over.
        firstDatabase = databaseBackends(options.admin, options.dbName).then((backends) => {
          pids.backends = backends;
          return snapshot(pids, ticksPerSecond).database;
        });
      },
      onFinished() {
        last = snapshot(pids, ticksPerSecond);
      },
    }).finally(() => clearInterval(sampler));
    const start = first!;
    const end = last!;
    const serverCpu = end.server - start.server;
    const databaseCpu = end.database - (await firstDatabase!);
    const otherCpu = end.machine - start.machine - serverCpu - (end.loader - start.loader) - databaseCpu;
    const perRequest = (seconds: number) => (load.requests > 0 ? (seconds * 1e6) / load.requests : 0);
    return {
      answers,
      result: {
        ...load,
        name,
        peakRssMb: Math.max(peakSampled, readProcStatus(pid, 'VmHWM')),
        cpuUsPerRequest: perRequest(serverCpu),
        databaseCpuUsPerRequest: perRequest(databaseCpu),
        otherLoadCores: Math.max(0, otherCpu / ((end.at - start.at) / 1000)),
        firstSegmentReqPerSec: load.segmentReqPerSec[0] ?? 0,
        lastSegmentReqPerSec: load.segmentReqPerSec.at(-1) ?? 0,
      },
    };
  } finally {
    await stopProcess(server);
    log(`${name}: stopped`);
  }
}

/** The main thread's profile: any worker thread writes one of its own. */
function mainThreadProfile(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  // CPU.<date>.<time>.<pid>.<thread id>.<sequence>.cpuprofile; the main thread is thread 0.
  const files = readdirSync(dir)
    .filter((f) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(f))
    .sort();
  return files.length ? path.join(dir, files.at(-1)!) : undefined;
}

function printTable(targets: TargetResult[], segmentLabel: string): void {
  const ours = targets[0]!;
  const rows: Array<[string, (r: TargetResult) => string]> = [
    ['req/s', (r) => r.reqPerSec.toFixed(0)],
    ['p50 latency (ms)', (r) => r.p50Ms.toFixed(2)],
    ['p99 latency (ms)', (r) => r.p99Ms.toFixed(2)],
    ['peak RSS (MB)', (r) => r.peakRssMb.toFixed(0)],
    ['server CPU per request (µs)', (r) => r.cpuUsPerRequest.toFixed(0)],
    ['PostgreSQL CPU per request (µs)', (r) => r.databaseCpuUsPerRequest.toFixed(0)],
    ...(ours.segmentReqPerSec.map((_, i) => [`req/s, ${segmentLabel} ${i + 1}`, (r: TargetResult) => (r.segmentReqPerSec[i] ?? 0).toFixed(0)]) as Array<
      [string, (r: TargetResult) => string]
    >),
    ['last / first', (r) => (r.firstSegmentReqPerSec > 0 ? r.lastSegmentReqPerSec / r.firstSegmentReqPerSec : 0).toFixed(3)],
    ['requests', (r) => String(r.requests)],
    ['non-2xx / errors / timeouts', (r) => `${r.non2xx} / ${r.errors} / ${r.timeouts}`],
    ['other load on the machine (cores)', (r) => r.otherLoadCores.toFixed(2)],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const columns = Math.max(14, ...targets.map((t) => t.name.length));
  console.log(`\n${''.padEnd(width)}${targets.map((t) => `  ${t.name.padStart(columns)}`).join('')}`);
  for (const [label, value] of rows) console.log(`${label.padEnd(width)}${targets.map((t) => `  ${value(t).padStart(columns)}`).join('')}`);
}

async function main(): Promise<void> {
  const profile = process.argv.includes('--profile') || process.env.BENCH_PROFILE === '1';
  const seconds = envSeconds('BENCH_SECONDS', 180);
  const warmupSeconds = Math.min(10, Math.max(2, Math.round(seconds / 6)));
  const segmentLabel = seconds === 180 ? 'minute' : 'third';
  const pinned = hasTaskset();
  if (pinned) spawnSync('taskset', ['-pc', LOAD_CORE, String(process.pid)], { stdio: 'ignore' });
  else log('taskset (util-linux) not found: running WITHOUT CPU pinning; server and load generator share the cores');
  const ticksPerSecond = clockTicksPerSecond();

  ensureBuild();
  mkdirSync(OUTPUT_DIR, { recursive: true });
  await buildBenchBinaries();
  const nodeOptions = productionNodeOptions();

  const adminUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = `bench_${randomBytes(4).toString('hex')}`;
  const benchUrl = new URL(adminUrl);
  benchUrl.pathname = `/${dbName}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'panel-bench-'));
  const profileDir = path.join(OUTPUT_DIR, 'profile');
  try {
    await admin.unsafe(`create database "${dbName}"`);
    log(`database ${dbName}: seeding ${PROJECTS} projects, owners, memberships and API keys`);
    const seeded = await seed(benchUrl.toString());
    const list = probes(seeded);
    const basePlan = {
      pairs: seeded.map((s): [string, string] => [s.projectId, s.key]),
      connections: CONNECTIONS,
      warmupSeconds,
      seconds,
      segments: SEGMENTS,
    };

    if (profile) rmSync(profileDir, { recursive: true, force: true });
    const measureOurs = async (name: string, withoutBudgets: boolean) => {
      const port = await freePort();
      return measureTarget({
        name,
        args: [
          ...nodeOptions,
          ...(profile && !withoutBudgets ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
          '--import',
          pathToFileURL(path.join(ROOT, 'bench', 'register-standins.mjs')).href,
          path.join('dist', 'server.js'),
        ],
        env: {
          ...process.env,
          NODE_ENV: 'production',
          BENCH_STANDIN_COUNTERS: JSON.stringify(STANDIN_COUNTERS),
          BENCH_WITHOUT_BUDGETS: withoutBudgets ? '1' : '',
          LOG_LEVEL: 'warn',
          DATABASE_URL: benchUrl.toString(),
          HOST: '127.0.0.1',
          PORT: String(port),
          APP_URL: `http://127.0.0.1:${port}`,
          DATA_DIR: dataDir,
          AUTH_SECRET: randomBytes(32).toString('hex'),
          NEXT_TELEMETRY_DISABLED: '1',
        },
        port,
        pinned,
        plan: { ...basePlan, port },
        list,
        ticksPerSecond,
        admin,
        dbName,
      });
    };
    const ours = await measureOurs('ours', false);
    const unlimited = await measureOurs('ours without budgets', true);

    const baselinePort = await freePort();
    const baseline = await measureTarget({
      name: 'baseline',
      args: [path.join(BIN_DIR, 'baseline.mjs')],
      env: { ...process.env, NODE_ENV: 'production', DATABASE_URL: benchUrl.toString(), HOST: '127.0.0.1', PORT: String(baselinePort) },
      port: baselinePort,
      pinned,
      plan: { ...basePlan, port: baselinePort },
      list,
      ticksPerSecond,
      admin,
      dbName,
    });

    const parityProblems = [...compareAnswers(ours.answers, baseline.answers), ...compareAnswers(unlimited.answers, baseline.answers)];
    const r = ours.result;
    const u = unlimited.result;
    const b = baseline.result;
    const ratio = b.reqPerSec > 0 ? r.reqPerSec / b.reqPerSec : 0;
    const ratioWithoutBudgets = b.reqPerSec > 0 ? u.reqPerSec / b.reqPerSec : 0;
    const budgetCost = ratioWithoutBudgets > 0 ? 1 - ratio / ratioWithoutBudgets : 0;
    const stability = r.firstSegmentReqPerSec > 0 ? r.lastSegmentReqPerSec / r.firstSegmentReqPerSec : 0;
    const checks: TargetCheck[] = [
      { name: 'req/s ours / baseline', value: ratio, threshold: `>= ${TARGET_RATIO}`, pass: ratio >= TARGET_RATIO },
      {
        name: `what request budgets cost: fall of that ratio from ours without budgets (${ratioWithoutBudgets.toFixed(3)})`,
        value: budgetCost,
        threshold: `<= ${TARGET_BUDGET_COST}`,
        pass: budgetCost <= TARGET_BUDGET_COST,
      },
      { name: `p99 latency at ${CONNECTIONS} connections (ms)`, value: r.p99Ms, threshold: `< ${TARGET_P99_MS}`, pass: r.p99Ms < TARGET_P99_MS },
      {
        name: `peak RSS of the server (MB; baseline's ${b.peakRssMb.toFixed(0)})`,
        value: r.peakRssMb,
        threshold: `<= ${TARGET_PEAK_RSS_MB}`,
        pass: r.peakRssMb <= TARGET_PEAK_RSS_MB,
      },
      {
        name: `last ${segmentLabel} / first ${segmentLabel} req/s`,
        value: stability,
        threshold: `>= ${TARGET_STABILITY}`,
        pass: stability >= TARGET_STABILITY,
      },
    ];

    console.log(
      `\nGET /v1/projects/{id}, ${CONNECTIONS} connections, ${seconds} s per target after ${warmupSeconds} s warm-up, ${PROJECTS} projects/keys, ` +
        (pinned ? `server on core ${SERVER_CORE}, load generator on core ${LOAD_CORE}` : 'NOT pinned (no taskset)') +
        (profile ? ', ours under --cpu-prof (slower)' : ''),
    );
    console.log(
      `ours: node ${nodeOptions.map((o) => `${o} `).join('')}dist/server.js (compiled), ${process.version}, _count with 7 counters (${STANDIN_COUNTERS.length} on bench stand-in tables); ` +
        'baseline: node bench/.output/bin/baseline.mjs',
    );
    console.log('ours without budgets: the same server with a rate-limit store that allows every step (bench/register-standins.mjs)');
    printTable([r, u, b], segmentLabel);
    const busiest = Math.max(r.otherLoadCores, u.otherLoadCores, b.otherLoadCores);
    if (busiest > NOISE_CORES) {
      console.log(`\nNOTE: other work on the machine took up to ${busiest.toFixed(2)} cores during a measured run; the figures are noisy.`);
    }
    console.log('');
    for (const check of checks) {
      console.log(`${check.pass ? 'PASS' : 'FAIL'}  ${check.name}: ${check.value.toFixed(check.value < 10 ? 3 : 1)} (target ${check.threshold})`);
    }
    if (parityProblems.length === 0) console.log(`answers identical to the baseline's on ${list.length} probes (success, 401 and 404 cases)`);
    else for (const problem of parityProblems) console.log(`ANSWER MISMATCH  ${problem}`);

    let profileSummary: ProfileSummary | undefined;
    const profileFile = profile ? mainThreadProfile(profileDir) : undefined;
    if (profile && !profileFile) console.log('\nno .cpuprofile was written (did the server exit cleanly?)');
    if (profileFile) {
      profileSummary = summarizeProfile(profileFile);
      console.log(`\nCPU profile of ours (${path.relative(ROOT, profileFile)}):\n${formatSummary(profileSummary)}`);
    }

    const outFile = path.join(OUTPUT_DIR, 'results.json');
    writeFileSync(
      outFile,
      JSON.stringify(
        {
          at: new Date().toISOString(),
          endpoint: 'GET /v1/projects/{projectId}',
          node: process.version,
          connections: CONNECTIONS,
          seconds,
          warmupSeconds,
          projects: PROJECTS,
          pinned,
          profiled: profile,
          ours: r,
          oursWithoutBudgets: u,
          baseline: b,
          ratio,
          ratioWithoutBudgets,
          budgetCost,
          checks,
          parityProblems,
          profile: profileSummary,
        },
        null,
        2,
      ),
    );
    log(`results written to ${path.relative(ROOT, outFile)}`);
  } finally {
    await Promise.all([...live].map(stopProcess));
    await admin.unsafe(`drop database if exists "${dbName}" with (force)`).catch((err: unknown) => log(`could not drop ${dbName}: ${String(err)}`));
    await admin.end({ timeout: 5 });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

process.on('SIGINT', () => {
  if (interrupted) process.exit(130);
  interrupted = true;
  log('interrupted: stopping the servers and dropping the database');
  for (const child of live) child.kill('SIGTERM');
});

main().then(
  () => process.exit(interrupted ? 130 : 0),
  (err: unknown) => {
    if (interrupted) process.exit(130);
    console.error(`[bench] failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
