import { randomBytes, randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';

const urls = (process.env.INSTANCE_URLS ?? '').split(',').filter(Boolean);
const appUrl = process.env.INSTANCE_APP_URL ?? '';
const databaseUrl = process.env.INSTANCE_DATABASE_URL ?? '';
if (urls.length !== 2 || !appUrl || !databaseUrl) throw new Error('Run this suite with `npm run test:instances`, which starts the instances');
const [A, B] = urls as [string, string];
const ratePerMinute = Number(process.env.INSTANCE_RATE_LIMIT_PER_MINUTE);

const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
afterAll(() => sql.end({ timeout: 5 }));

interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: { success: boolean; data?: T; error?: { code: string; message: string } };
}

interface Call {
  cookie?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One /v1 call to one instance; cookie-authenticated writes carry the public Origin, as the panel's do. */
async function call<T = unknown>(base: string, method: string, path: string, options: Call = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { origin: appUrl, ...options.headers };
  if (options.cookie) headers.cookie = options.cookie;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer<T>['body'] };
}

interface Customer {
  email: string;
  password: string;
  cookie: string;
}

/** Signs up on one instance and signs in through the panel's sign-in (next-auth) on the other. */
async function customer(signUpOn: string, signInOn: string): Promise<Customer> {
  const email = `scale-${randomBytes(4).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const created = await call(signUpOn, 'POST', '/v1/accounts', { body: { name: 'Scale Test', email, password } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { email, password, cookie: await signIn(signInOn, email, password) };
}

function cookiesOf(res: Response): string[] {
  return res.headers.getSetCookie().map((c) => c.split(';')[0]!);
}

async function signIn(base: string, email: string, password: string): Promise<string> {
  const csrf = await fetch(`${base}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${base}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiesOf(csrf).join('; '), origin: appUrl },
    body: new URLSearchParams({ csrfToken, email, password, json: 'true' }),
  });
  const session = cookiesOf(res).find((c) => c.startsWith('panel.session-token='));
  if (!session) throw new Error(`sign-in on ${base} set no session cookie (status ${res.status})`);
  return session;
}

async function paidProject(owner: Customer): Promise<string> {
  const project = await call<{ projectId: string }>(A, 'POST', '/v1/projects/create', {
    cookie: owner.cookie,
    body: { name: `scale ${randomBytes(3).toString('hex')}` },
  });
  expect(project.status, JSON.stringify(project.body)).toBe(200);
  const projectId = project.body.data!.projectId;
  const card = await call(B, 'POST', `/v1/projects/${projectId}/billing/payment-methods`, {
    cookie: owner.cookie,
    body: { cardNumber: '4242 4242 4242 4242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' },
  });
  expect(card.status, JSON.stringify(card.body)).toBe(201);
  return projectId;
}

async function chargesOf(email: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from ledger_payment_intents i
    join users u on u.payment_customer_id = i.customer_id where u.email = ${email}`;
  return row!.n;
}

async function serversOf(projectId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from servers where project_id = ${projectId}`;
  return row!.n;
}

const serverBody = { name: 'web-1', slug: 's-1vcpu-1gb', provider: 'infra', region: 'fra1', sshKeyIds: [] };

// Each test has a customer of its own: the instances run with small request budgets, one per user.
describe('two web instances and a worker on one PostgreSQL', () => {
  it('serves a session signed in on one instance on the other, and ends it on both at sign-out', async () => {
    const owner = await customer(A, B);
    const onA = await call(A, 'GET', '/v1/projects', { cookie: owner.cookie });
    const onB = await call(B, 'GET', '/v1/projects', { cookie: owner.cookie });
    expect([onA.status, onB.status]).toEqual([200, 200]);

    const other = await customer(B, A);
    const csrf = await fetch(`${B}/api/auth/csrf`, { headers: { cookie: other.cookie } });
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const out = await fetch(`${B}/api/auth/signout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [other.cookie, ...cookiesOf(csrf)].join('; '), origin: appUrl },
      body: new URLSearchParams({ csrfToken, json: 'true' }),
    });
    expect(out.status).toBeLessThan(400);
    expect((await call(A, 'GET', '/v1/projects', { cookie: other.cookie })).status).toBe(401);
  });

  it('makes one server and one charge of 20 identical concurrent creations spread over both instances', async () => {
    const owner = await customer(A, B);
    const projectId = await paidProject(owner);
    const chargesBefore = await chargesOf(owner.email);
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(i % 2 === 0 ? A : B, 'POST', `/v1/projects/${projectId}/servers`, { cookie: owner.cookie, body: serverBody, headers: { 'idempotency-key': key } }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.every((s) => s === 200 || s === 409),
      statuses.join(','),
    ).toBe(true);
    const done = answers.filter((a) => a.status === 200);
    expect(done.length).toBeGreaterThan(0);
    expect(done.filter((a) => a.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status === 409)) expect(refused.body.error?.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect(await serversOf(projectId)).toBe(1);
    expect((await chargesOf(owner.email)) - chargesBefore).toBe(1);

    const again = await call(B, 'POST', `/v1/projects/${projectId}/servers`, { cookie: owner.cookie, body: serverBody, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await serversOf(projectId)).toBe(1);
  });

  it('makes one server and keeps one charge of 20 identical concurrent creations without a key', async () => {
    const owner = await customer(A, B);
    const projectId = await paidProject(owner);
    const chargesBefore = await chargesOf(owner.email);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(i % 2 === 0 ? A : B, 'POST', `/v1/projects/${projectId}/servers`, { cookie: owner.cookie, body: serverBody })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 409)).toBe(true);
    expect(await serversOf(projectId)).toBe(1);
    const [kept] = await sql<{ n: number }[]>`
      select count(*)::int as n from ledger_payment_intents i join users u on u.payment_customer_id = i.customer_id
      where u.email = ${owner.email} and i.amount_refunded < i.amount`;
    expect(kept!.n - chargesBefore).toBeLessThanOrEqual(1);
  });

  it('replays an Idempotency-Key sent to one instance when the retry reaches the other', async () => {
    const owner = await customer(A, B);
    const projectId = await paidProject(owner);
    const key = randomUUID();
    const body = { name: 'replayed-key' };
    const first = await call(A, 'POST', `/v1/projects/${projectId}/ssh-keys/generate`, { cookie: owner.cookie, body, headers: { 'idempotency-key': key } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const retry = await call(B, 'POST', `/v1/projects/${projectId}/ssh-keys/generate`, { cookie: owner.cookie, body, headers: { 'idempotency-key': key } });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    const keys = await call<unknown[]>(B, 'GET', `/v1/projects/${projectId}/ssh-keys`, { cookie: owner.cookie });
    expect(keys.body.data).toHaveLength(1);
  });

  it('shares one rate limit between the instances', async () => {
    const caller = await customer(A, A);
    const seen: Array<{ status: number; remaining: number | null }> = [];
    for (let i = 0; i <= ratePerMinute + 1; i += 1) {
      const answer = await call(i % 2 === 0 ? A : B, 'GET', '/v1/projects', { cookie: caller.cookie });
      const remaining = /r=(\d+)/.exec(answer.headers.get('ratelimit') ?? '')?.[1];
      seen.push({ status: answer.status, remaining: remaining === undefined ? null : Number(remaining) });
      if (answer.status === 429) {
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
        break;
      }
    }
    const limitedAt = seen.findIndex((s) => s.status === 429);
    // Each instance alone saw half the calls: only a shared budget runs out within one budget's worth of calls.
    expect(limitedAt).toBeGreaterThan(0);
    expect(limitedAt).toBeLessThanOrEqual(ratePerMinute);
    // Each instance counts down what the store had left when it took its last lease plus what it holds
    // (README, Rate limits): the other instance's calls show there only from its next lease on.
    for (const parity of [0, 1]) {
      const remainders = seen
        .slice(0, limitedAt)
        .filter((_, i) => i % 2 === parity)
        .map((s) => s.remaining);
      expect(remainders.every((r, i) => r !== null && (i === 0 || r < remainders[i - 1]!))).toBe(true);
    }
  });

  it('runs a job queued by one web instance once, on the worker', async () => {
    const owner = await customer(A, B);
    const projectId = await paidProject(owner);
    const email = `invitee-${randomBytes(3).toString('hex')}@example.com`;
    const invited = await call<{ id: string }>(A, 'POST', `/v1/projects/${projectId}/invitations`, { cookie: owner.cookie, body: { email, role: 'member' } });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const invitationId = invited.body.data!.id;
    const queued = await sql<{ id: string }[]>`select id from pgboss.job where name = 'invitations.expire' and data->>'invitationId' = ${invitationId}`;
    expect(queued).toHaveLength(1);

    // The job waits for the invitation's expiry: bring both forward instead of waiting days.
    await sql`update invitations set expires_at = now() - interval '1 second' where id = ${invitationId}`;
    await sql`update pgboss.job set start_after = now() where id = ${queued[0]!.id}`;
    let state = '';
    for (let i = 0; i < 60 && state !== 'completed'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const [job] = await sql<{ state: string }[]>`select state from pgboss.job where id = ${queued[0]!.id}`;
      state = job?.state ?? '';
    }
    expect(state).toBe('completed');
    const [job] = await sql<{ retry_count: number }[]>`select retry_count from pgboss.job where id = ${queued[0]!.id}`;
    expect(job!.retry_count).toBe(0);
    const invitation = await call<{ status: string }>(B, 'GET', `/v1/invitations/${invitationId}`);
    expect(invitation.body.data?.status).toBe('EXPIRED');
  });
});
