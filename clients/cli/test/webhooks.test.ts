import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWorld } from '../../test/world.ts';
import { EXIT } from '../src/errors.ts';
import { cloud, envFor } from './cli.ts';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver on loopback (the test server lets webhooks reach it), answering `status`. */
const received: Received[] = [];
let status = 200;
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  req.on('end', () => {
    received.push({ headers: req.headers, body });
    res.writeHead(status).end(status === 200 ? 'ok' : 'not today');
  });
});
let url: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

/** The requests the receiver got for one delivery (every attempt carries its `webhook-id`), once there are `count`. */
async function requestsOf(deliveryId: string, count = 1): Promise<Received[]> {
  for (let waited = 0; waited < 20_000; waited += 200) {
    const requests = received.filter((r) => r.headers['webhook-id'] === deliveryId);
    if (requests.length >= count) return requests;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the receiver did not get ${count} request(s) of delivery ${deliveryId}`);
}

/** The Standard Webhooks signatures of a request that the secret verifies. */
function signedWith(secret: string, request: Received): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.body}`)
    .digest('base64');
  return String(request.headers['webhook-signature']).split(' ').includes(`v1,${expected}`);
}

describe('cloud webhooks', () => {
  it('creates an endpoint that receives signed deliveries, tests, redelivers, rotates its secret, pauses and deletes it', async () => {
    const world = await newWorld('cli-webhooks');
    const env = envFor(world);
    const projectId = world.projectId;

    const types = await cloud(['webhooks', 'event-types'], { env });
    expect(types.code, types.stderr).toBe(0);
    expect(types.stdout).toMatch(/^TYPE\s+DESCRIPTION\n/);
    expect(types.stdout).toMatch(/\nwebhook\.test\s+A test event/);
    expect((await cloud(['webhooks', 'event-types', '--json'], { env })).json<Array<{ type: string; example: object }>>()).toContainEqual(
      expect.objectContaining({ type: 'variable.created', example: expect.any(Object) }),
    );

    expect((await cloud(['webhooks', 'create', '--url', url], { env })).code).toBe(EXIT.usage);
    const unknownType = await cloud(['webhooks', 'create', '--url', url, '--event', 'no.such_event'], { env });
    expect(unknownType.code).toBe(EXIT.rejected);
    const created = await cloud(['webhooks', 'create', '--url', url, '--event', 'variable.created', '-d', 'the test receiver'], { env });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toBe('Save the signing secret now: it is not shown again.\n');
    const id = /^ID:\s+(whe_\w+)$/m.exec(created.stdout)![1]!;
    const secret = /^Signing secret:\s+(whsec_\S+)$/m.exec(created.stdout)![1]!;
    expect(created.stdout.split(secret)).toHaveLength(2);

    const list = await cloud(['webhooks', 'list'], { env });
    expect(list.stdout).toMatch(/^ID\s+URL\s+STATUS\s+EVENTS\s+DESCRIPTION\n/);
    expect(list.stdout).toContain(`${id}  ${url}  active  variable.created  the test receiver`);
    const got = await cloud(['webhooks', 'get', id, '--json'], { env });
    expect(got.json()).toMatchObject({ id, url, status: 'active', events: ['variable.created'] });
    expect(got.json()).not.toHaveProperty('secret');
    expect(got.stdout).not.toContain(secret);

    // A test event, followed until the receiver has answered; it arrives signed with the secret.
    const tested = await cloud(['webhooks', 'test', id, '--wait', '--json'], { env });
    expect(tested.code, tested.stderr).toBe(0);
    const delivery = tested.json<{ id: string; status: string; eventType: string }>();
    expect(delivery).toMatchObject({ status: 'succeeded', eventType: 'webhook.test' });
    expect(tested.stderr).toMatch(/Delivered: 200 in \d+ ms\n$/);
    const [testRequest] = await requestsOf(delivery.id);
    expect(signedWith(secret, testRequest!)).toBe(true);
    expect(JSON.parse(testRequest!.body)).toMatchObject({ type: 'webhook.test', data: { projectId } });

    // A real event of a subscribed type.
    expect((await cloud(['variables', 'set', 'GREETING', 'hello'], { env })).code).toBe(0);
    const eventDelivery = await world.client.waitFor(
      async () =>
        (await world.client.get('/projects/{projectId}/webhooks/{endpointId}/deliveries', { params: { path: { projectId, endpointId: id } } })).deliveries,
      { until: (rows) => rows.some((d) => d.eventType === 'variable.created'), timeoutMs: 20_000, intervalMs: 300 },
    );
    const [eventRequest] = await requestsOf(eventDelivery.find((d) => d.eventType === 'variable.created')!.id);
    expect(signedWith(secret, eventRequest!)).toBe(true);
    expect(JSON.parse(eventRequest!.body)).toMatchObject({ type: 'variable.created', data: { name: 'GREETING' } });

    const deliveries = await cloud(['webhooks', 'deliveries', id], { env });
    expect(deliveries.code, deliveries.stderr).toBe(0);
    expect(deliveries.stdout).toMatch(/^ID\s+EVENT\s+STATUS\s+ATTEMPTS\s+LAST ANSWER\s+NEXT ATTEMPT\s+CREATED\n/);
    expect(deliveries.stdout).toMatch(new RegExp(`${delivery.id}\\s+webhook\\.test\\s+succeeded\\s+1\\s+200 in \\d+ ms\\s+-\\s+\\d{4}-`));
    const page = await cloud(['webhooks', 'deliveries', id, '--status', 'succeeded', '--limit', '1', '--json'], { env });
    expect(page.json()).toMatchObject({ deliveries: [{ status: 'succeeded' }], nextCursor: expect.any(String) });
    expect((await cloud(['webhooks', 'deliveries', id, '--status', 'lost'], { env })).code).toBe(EXIT.usage);

    // A redelivery carries the same webhook-id, so the receiver can drop the repeat.
    const redelivered = await cloud(['webhooks', 'redeliver', id, delivery.id, '--wait'], { env });
    expect(redelivered.code, redelivered.stderr).toBe(0);
    expect(redelivered.stdout).toMatch(new RegExp(`^Delivery:\\s+${delivery.id}\\nEvent:\\s+webhook\\.test\\nStatus:\\s+succeeded\\nAttempts:\\s+2\\n`));
    expect(await requestsOf(delivery.id, 2)).toHaveLength(2);

    // A receiver that refuses makes --wait fail, saying how it answered.
    status = 500;
    const refused = await cloud(['webhooks', 'test', id, '--wait'], { env });
    status = 200;
    expect(refused.code).toBe(EXIT.waitFailed);
    expect(refused.stderr).toMatch(/Error: WAIT_FAILED: The attempt failed: 500 in \d+ ms; it is tried again at /);

    expect((await cloud(['webhooks', 'rotate-secret', id], { env })).code).toBe(EXIT.usage);
    const rotated = await cloud(['webhooks', 'rotate-secret', id, '--yes', '--json'], { env });
    expect(rotated.code, rotated.stderr).toBe(0);
    const newSecret = rotated.json<{ secret: string; previousSecretExpiresAt: string }>();
    expect(newSecret.secret).toMatch(/^whsec_/);
    expect(newSecret.secret).not.toBe(secret);
    expect(newSecret.previousSecretExpiresAt).toEqual(expect.any(String));
    // For a day both secrets sign, so the receiver can switch without missing a delivery.
    const afterRotation = (await cloud(['webhooks', 'test', id, '--wait', '--json'], { env })).json<{ id: string }>();
    const [rotatedRequest] = await requestsOf(afterRotation.id);
    expect(signedWith(newSecret.secret, rotatedRequest!)).toBe(true);
    expect(signedWith(secret, rotatedRequest!)).toBe(true);

    const paused = await cloud(['webhooks', 'pause', id], { env });
    expect(paused.stdout).toBe(`Paused ${url}: deliveries are held until \`cloud webhooks resume ${id}\`\n`);
    expect(await world.client.get('/projects/{projectId}/webhooks/{endpointId}', { params: { path: { projectId, endpointId: id } } })).toMatchObject({
      status: 'paused',
      pausedReason: 'manual',
    });
    const whilePaused = await cloud(['webhooks', 'test', id], { env });
    expect(whilePaused.code).toBe(EXIT.rejected);
    expect(whilePaused.stderr).toMatch(/^Error: CONFLICT: /);
    const resumed = await cloud(['webhooks', 'resume', id, '--json'], { env });
    expect(resumed.json()).toMatchObject({ status: 'active', pausedReason: null });

    expect((await cloud(['webhooks', 'update', id], { env })).code).toBe(EXIT.usage);
    const updated = await cloud(['webhooks', 'update', id, '--event', '*', '--description', 'everything', '--json'], { env });
    expect(updated.json()).toMatchObject({ events: ['*'], description: 'everything', url });

    const readOnly = { ...env, CLOUD_API_KEY: await world.keyWith(['webhooks:read']) };
    expect((await cloud(['webhooks', 'list', '--json'], { env: readOnly })).json()).toHaveLength(1);
    expect((await cloud(['webhooks', 'create', '--url', url, '--event', '*'], { env: readOnly })).code).toBe(EXIT.auth);

    expect((await cloud(['webhooks', 'delete', id], { env })).code).toBe(EXIT.usage);
    const deleted = await cloud(['webhooks', 'delete', id, '--yes'], { env });
    expect(deleted.stdout).toBe(`Deleted the webhook endpoint ${url}\n`);
    const gone = await cloud(['webhooks', 'get', id], { env });
    expect(gone.code).toBe(EXIT.notFound);
  });
});
