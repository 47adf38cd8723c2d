import type { Schema } from '@cloudpanel/sdk';
import { Option, type Command } from 'commander';
import { action, collect, confirm, examples, timeoutMs } from '../command.ts';
import type { Context } from '../context.ts';
import { UsageError } from '../errors.ts';
import type { Io } from '../io.ts';
import { when, type Column } from '../output.ts';
import { startProgress } from '../progress.ts';

type Endpoint = Schema<'WebhookEndpoint'>;
type EndpointWithSecret = Schema<'WebhookEndpointWithSecret'>;
type Delivery = Schema<'WebhookDelivery'>;
type Attempt = Delivery['attempts'][number];

const DELIVERY_STATUSES: readonly Delivery['status'][] = ['pending', 'held', 'succeeded', 'failed'];

const status = (e: Endpoint) => (e.pausedReason && e.pausedReason !== 'manual' ? `${e.status} (${e.pausedReason})` : e.status);

const COLUMNS: Column<Endpoint>[] = [
  { header: 'id', value: (e) => e.id },
  { header: 'url', value: (e) => e.url },
  { header: 'status', value: status },
  { header: 'events', value: (e) => e.events.join(',') },
  { header: 'description', value: (e) => e.description },
];

const FIELDS: Column<Endpoint>[] = [
  { header: 'ID', value: (e) => e.id },
  { header: 'URL', value: (e) => e.url },
  { header: 'Status', value: (e) => (e.pausedAt ? `${status(e)} since ${when(e.pausedAt)}` : status(e)) },
  { header: 'Events', value: (e) => e.events.join(', ') },
  { header: 'Description', value: (e) => e.description },
  { header: 'Failures in a row', value: (e) => e.consecutiveFailures },
  { header: 'Old secret signs until', value: (e) => when(e.previousSecretExpiresAt) },
  { header: 'Created', value: (e) => when(e.createdAt) },
];

/** An attempt in a few words: `200 in 35 ms`, or why no answer came. */
function attemptText(attempt: Attempt | undefined): string {
  if (!attempt) return '-';
  if (attempt.responseStatus === null) return `${attempt.error ?? 'no answer'} after ${attempt.durationMs} ms`;
  return `${attempt.responseStatus} in ${attempt.durationMs} ms`;
}

const DELIVERY_COLUMNS: Column<Delivery>[] = [
  { header: 'id', value: (d) => d.id },
  { header: 'event', value: (d) => d.eventType },
  { header: 'status', value: (d) => d.status },
  { header: 'attempts', value: (d) => d.attempts.length },
  { header: 'last answer', value: (d) => attemptText(d.attempts.at(-1)) },
  { header: 'next attempt', value: (d) => when(d.nextAttemptAt) },
  { header: 'created', value: (d) => when(d.createdAt) },
];

const DELIVERY_FIELDS: Column<Delivery>[] = [
  { header: 'Delivery', value: (d) => d.id },
  { header: 'Event', value: (d) => d.eventType },
  { header: 'Status', value: (d) => d.status },
  { header: 'Attempts', value: (d) => d.attempts.length },
  { header: 'Last answer', value: (d) => attemptText(d.attempts.at(-1)) },
];

const projectPath = (ctx: Context) => ({ params: { path: { projectId: ctx.project() } } });
const endpointPath = (ctx: Context, endpointId: string) => ({ params: { path: { projectId: ctx.project(), endpointId } } });

/**
 * Prints an endpoint with the signing secret the API returns this once: on stdout with the rest, the
 * warning on stderr; with --json, the API's data as it is (the secret is in it: that is what it is for).
 */
function printWithSecret(ctx: Context, endpoint: EndpointWithSecret): void {
  ctx.out.note('Save the signing secret now: it is not shown again.');
  ctx.out.item(endpoint, [...FIELDS.slice(0, 2), { header: 'Signing secret', value: (e) => e.secret }, ...FIELDS.slice(2)]);
}

/**
 * Follows one delivery until the attempt after the `after`th has an answer: done when it is a 2xx,
 * failed (exit 9) when not, telling why; a held delivery will not be tried while the endpoint is paused.
 */
async function waitForAttempt(ctx: Context, endpointId: string, delivery: Delivery, timeout: string | undefined): Promise<Delivery> {
  const after = delivery.attempts.length;
  const progress = startProgress(ctx.io, `Waiting for delivery ${delivery.id} to be attempted…`);
  try {
    const settled = await ctx.client.waitFor(
      async () => {
        // There is no read of one delivery: it is the newest, or nearly, of the endpoint's list.
        const page = await ctx.client.get('/projects/{projectId}/webhooks/{endpointId}/deliveries', {
          params: { path: { projectId: ctx.project(), endpointId }, query: { limit: 100 } },
        });
        const found = page.deliveries.find((d) => d.id === delivery.id);
        if (!found) throw new Error(`Delivery ${delivery.id} is not among the endpoint’s latest deliveries`);
        return found;
      },
      {
        until: (d) => d.attempts.length > after && d.attempts.at(-1)!.ok,
        failWhen: (d) => {
          if (d.status === 'held') return 'The endpoint is paused: the delivery is held until `cloud webhooks resume`';
          if (d.attempts.length <= after) return undefined;
          const retry = d.status === 'pending' ? `; it is tried again at ${when(d.nextAttemptAt)}` : '';
          return `The attempt failed: ${attemptText(d.attempts.at(-1))}${retry}`;
        },
        timeoutMs: timeoutMs(timeout, 60),
        intervalMs: 1000,
      },
    );
    progress.stop(`Delivered: ${attemptText(settled.attempts.at(-1))}`);
    return settled;
  } catch (err) {
    progress.stop();
    throw err;
  }
}

export function registerWebhooks(program: Command, io: Io): void {
  const webhooks = program.command('webhooks').description('endpoints that receive the project’s events as signed HTTP POSTs');
  examples(
    webhooks,
    'cloud webhooks create --url https://example.com/hooks --event server.created --event server.deleted',
    'cloud webhooks test whe_01h… --wait',
  );

  examples(
    webhooks
      .command('event-types')
      .description('the event types an endpoint can subscribe to')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.client.get('/webhooks/event-types'), [
            { header: 'type', value: (t) => t.type },
            { header: 'description', value: (t) => t.description },
          ]);
        }),
      ),
    'cloud webhooks event-types',
    'cloud webhooks event-types --json   # with an example of each one’s data',
  );

  examples(
    webhooks
      .command('list')
      .description('list the project’s webhook endpoints')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.client.get('/projects/{projectId}/webhooks', projectPath(ctx)), COLUMNS);
        }),
      ),
    'cloud webhooks list',
  );

  examples(
    webhooks
      .command('get')
      .description('show a webhook endpoint (its signing secret is never shown again)')
      .argument('<id>', 'the endpoint’s id')
      .action(
        action(io, async (ctx, [id]) => {
          ctx.out.item(await ctx.client.get('/projects/{projectId}/webhooks/{endpointId}', endpointPath(ctx, id!)), FIELDS);
        }),
      ),
    'cloud webhooks get whe_01h…',
  );

  examples(
    webhooks
      .command('create')
      .description('subscribe an https:// URL to event types; the signing secret is shown this once')
      .requiredOption('-u, --url <url>', 'where deliveries are POSTed; its host must resolve to public addresses')
      .option('-e, --event <type>', 'an event type (repeatable; see `cloud webhooks event-types`), or * for every type', collect, [])
      .option('-d, --description <text>', 'what the endpoint is for')
      .action(
        action<{ url: string; event: string[]; description?: string }>(io, async (ctx, _args, options) => {
          if (options.event.length === 0) throw new UsageError('Name at least one --event, or --event "*" for every type');
          const endpoint = await ctx.client.post('/projects/{projectId}/webhooks', {
            ...projectPath(ctx),
            body: { url: options.url, events: options.event, description: options.description },
          });
          printWithSecret(ctx, endpoint);
        }),
      ),
    'cloud webhooks create --url https://example.com/hooks --event server.created --event server.deleted',
    'cloud webhooks create -u https://ci.example.com/cloud -e "*" -d "everything, for the audit log" --json',
  );

  examples(
    webhooks
      .command('update')
      .description('change an endpoint’s URL, event types or description; queued deliveries go to the new URL')
      .argument('<id>', 'the endpoint’s id')
      .option('-u, --url <url>', 'the new URL')
      .option('-e, --event <type>', 'the event types, replacing the current ones (repeatable)', collect, [])
      .option('-d, --description <text>', 'the new description')
      .action(
        action<{ url?: string; event: string[]; description?: string }>(io, async (ctx, [id], options) => {
          const body = {
            ...(options.url === undefined ? {} : { url: options.url }),
            ...(options.event.length === 0 ? {} : { events: options.event }),
            ...(options.description === undefined ? {} : { description: options.description }),
          };
          if (Object.keys(body).length === 0) throw new UsageError('Nothing to change: give --url, --event or --description');
          const endpoint = await ctx.client.patch('/projects/{projectId}/webhooks/{endpointId}', { ...endpointPath(ctx, id!), body });
          ctx.out.item(endpoint, FIELDS);
        }),
      ),
    'cloud webhooks update whe_01h… --event "*"',
    'cloud webhooks update whe_01h… --url https://example.com/v2/hooks',
  );

  examples(
    webhooks
      .command('pause')
      .description('hold deliveries until the endpoint is resumed')
      .argument('<id>', 'the endpoint’s id')
      .action(
        action(io, async (ctx, [id]) => {
          const endpoint = await ctx.client.post('/projects/{projectId}/webhooks/{endpointId}/pause', endpointPath(ctx, id!));
          ctx.out.done(`Paused ${endpoint.url}: deliveries are held until \`cloud webhooks resume ${endpoint.id}\``, endpoint);
        }),
      ),
    'cloud webhooks pause whe_01h…',
  );

  examples(
    webhooks
      .command('resume')
      .description('send again: held deliveries go out now, in the order of their events')
      .argument('<id>', 'the endpoint’s id')
      .action(
        action(io, async (ctx, [id]) => {
          const endpoint = await ctx.client.post('/projects/{projectId}/webhooks/{endpointId}/resume', endpointPath(ctx, id!));
          ctx.out.done(`Resumed ${endpoint.url}`, endpoint);
        }),
      ),
    'cloud webhooks resume whe_01h…',
  );

  examples(
    webhooks
      .command('rotate-secret')
      .description('replace the signing secret and show the new one this once; the old one also signs for 24 hours')
      .argument('<id>', 'the endpoint’s id')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [id], options) => {
          const current = await ctx.client.get('/projects/{projectId}/webhooks/{endpointId}', endpointPath(ctx, id!));
          await confirm(ctx, `Rotate the signing secret of ${current.url}? Its receiver must switch to the new one within 24 hours.`, options.yes);
          printWithSecret(ctx, await ctx.client.post('/projects/{projectId}/webhooks/{endpointId}/rotate-secret', endpointPath(ctx, id!)));
        }),
      ),
    'cloud webhooks rotate-secret whe_01h… --yes',
  );

  examples(
    webhooks
      .command('test')
      .description('send a webhook.test event to this endpoint only')
      .argument('<id>', 'the endpoint’s id')
      .option('-w, --wait', 'wait for the first attempt and fail unless the endpoint answers 2xx')
      .option('--timeout <seconds>', 'how long --wait waits', '60')
      .action(
        action<{ wait?: boolean; timeout: string }>(io, async (ctx, [id], options) => {
          let delivery = await ctx.client.post('/projects/{projectId}/webhooks/{endpointId}/test', endpointPath(ctx, id!));
          if (options.wait) delivery = await waitForAttempt(ctx, id!, delivery, options.timeout);
          else ctx.out.note(`Queued; see \`cloud webhooks deliveries ${id}\``);
          ctx.out.item(delivery, DELIVERY_FIELDS);
        }),
      ),
    'cloud webhooks test whe_01h… --wait',
  );

  examples(
    webhooks
      .command('deliveries')
      .description('an endpoint’s deliveries, newest first, with their attempts')
      .argument('<id>', 'the endpoint’s id')
      .addOption(new Option('-s, --status <status>', 'only deliveries in this state').choices(DELIVERY_STATUSES))
      .option('-l, --limit <count>', 'deliveries per page, 1 to 100', '20')
      .option('--cursor <cursor>', 'the page after the one that printed it')
      .action(
        action<{ status?: Delivery['status']; limit: string; cursor?: string }>(io, async (ctx, [id], options) => {
          const limit = Number(options.limit);
          if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new UsageError(`--limit takes a whole number from 1 to 100, not "${options.limit}"`);
          const page = await ctx.client.get('/projects/{projectId}/webhooks/{endpointId}/deliveries', {
            params: {
              path: { projectId: ctx.project(), endpointId: id! },
              query: { limit, ...(options.status ? { status: options.status } : {}), ...(options.cursor ? { cursor: options.cursor } : {}) },
            },
          });
          if (ctx.out.json) return ctx.out.done('', page);
          ctx.out.list(page.deliveries, DELIVERY_COLUMNS, 'No deliveries yet.');
          if (page.nextCursor) ctx.out.note(`More: cloud webhooks deliveries ${id} --cursor ${page.nextCursor}`);
        }),
      ),
    'cloud webhooks deliveries whe_01h…',
    'cloud webhooks deliveries whe_01h… --status failed --json',
  );

  examples(
    webhooks
      .command('redeliver')
      .description('send a delivery again now, with the same webhook-id and a fresh retry schedule')
      .argument('<id>', 'the endpoint’s id')
      .argument('<delivery id>', 'the delivery’s id (see `cloud webhooks deliveries`)')
      .option('-w, --wait', 'wait for the attempt and fail unless the endpoint answers 2xx')
      .option('--timeout <seconds>', 'how long --wait waits', '60')
      .action(
        action<{ wait?: boolean; timeout: string }>(io, async (ctx, [id, deliveryId], options) => {
          let delivery = await ctx.client.post('/projects/{projectId}/webhooks/{endpointId}/deliveries/{deliveryId}/redeliver', {
            params: { path: { projectId: ctx.project(), endpointId: id!, deliveryId: deliveryId! } },
          });
          if (options.wait) delivery = await waitForAttempt(ctx, id!, delivery, options.timeout);
          else ctx.out.note(`Queued; see \`cloud webhooks deliveries ${id}\``);
          ctx.out.item(delivery, DELIVERY_FIELDS);
        }),
      ),
    'cloud webhooks redeliver whe_01h… msg_01h… --wait',
  );

  examples(
    webhooks
      .command('delete')
      .description('delete an endpoint and its delivery history; nothing more is sent to it')
      .argument('<id>', 'the endpoint’s id')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [id], options) => {
          const endpoint = await ctx.client.get('/projects/{projectId}/webhooks/{endpointId}', endpointPath(ctx, id!));
          await confirm(ctx, `Delete the webhook endpoint ${endpoint.url} (${endpoint.id}) and its delivery history?`, options.yes);
          await ctx.client.delete('/projects/{projectId}/webhooks/{endpointId}', endpointPath(ctx, id!));
          ctx.out.done(`Deleted the webhook endpoint ${endpoint.url}`, { id: endpoint.id, deleted: true });
        }),
      ),
    'cloud webhooks delete whe_01h… --yes',
  );
}
