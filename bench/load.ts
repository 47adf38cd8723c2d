/**
 * The load generator, run by bench/run.ts as its own process (pinned to the core the server does
 * not use). It reads its plan as JSON on stdin, so the plaintext API keys never touch the disk,
 * and answers on stdout with a line when the warm-up is over, then one JSON LoadResult.
 */
import autocannon from 'autocannon';

export interface LoadPlan {
  port: number;
  /** [project id, plaintext API key of that project]. */
  pairs: Array<[string, string]>;
  connections: number;
  warmupSeconds: number;
  seconds: number;
  /** The measured run is split into this many equal segments to show drift over time. */
  segments: number;
}

export interface LoadResult {
  requests: number;
  durationSeconds: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Requests per second in each segment, in order. */
  segmentReqPerSec: number[];
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

// Latencies go into 10 µs buckets up to 10 s: exact enough for p50/p99 of sub-millisecond answers.
const BUCKET_MS = 0.01;
const BUCKETS = 1_000_000;

async function readPlan(): Promise<LoadPlan> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as LoadPlan;
}

function randomRequest(pairs: Array<[string, string]>): autocannon.Request {
  return {
    method: 'GET',
    setupRequest: (request) => {
      const [projectId, key] = pairs[Math.floor(Math.random() * pairs.length)]!;
      return { ...request, path: `/v1/projects/${projectId}`, headers: { ...request.headers, authorization: `Bearer ${key}` } };
    },
  };
}

function run(plan: LoadPlan, seconds: number, onResponse?: (statusCode: number, ms: number) => void): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${plan.port}`,
        connections: plan.connections,
        duration: seconds,
        timeout: 10,
        requests: [randomRequest(plan.pairs)],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    if (onResponse) instance.on('response', (_client, statusCode, _bytes, ms) => onResponse(statusCode, ms));
  });
}

function percentile(histogram: Uint32Array, total: number, p: number): number {
  const rank = Math.ceil(total * p);
  let seen = 0;
  for (let i = 0; i < histogram.length; i += 1) {
    seen += histogram[i]!;
    if (seen >= rank) return Math.round((i + 1) * BUCKET_MS * 100) / 100;
  }
  return histogram.length * BUCKET_MS;
}

async function main(): Promise<void> {
  const plan = await readPlan();
  if (plan.warmupSeconds > 0) await run(plan, plan.warmupSeconds);
  // The first line tells bench/run.ts that the measured part starts now; the result follows it.
  process.stdout.write('measuring\n');

  const histogram = new Uint32Array(BUCKETS);
  const segmentCounts = new Array<number>(plan.segments).fill(0);
  const segmentMs = (plan.seconds * 1000) / plan.segments;
  let count = 0;
  const started = performance.now();
  const result = await run(plan, plan.seconds, (_status, ms) => {
    count += 1;
    histogram[Math.min(BUCKETS - 1, Math.floor(ms / BUCKET_MS))]! += 1;
    const segment = Math.min(plan.segments - 1, Math.floor((performance.now() - started) / segmentMs));
    segmentCounts[segment]! += 1;
  });
  const durationSeconds = (performance.now() - started) / 1000;

  const out: LoadResult = {
    requests: count,
    durationSeconds,
    reqPerSec: count / durationSeconds,
    p50Ms: percentile(histogram, count, 0.5),
    p99Ms: percentile(histogram, count, 0.99),
    segmentReqPerSec: segmentCounts.map((n) => n / (segmentMs / 1000)),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
  };
  process.stdout.write(JSON.stringify(out));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
