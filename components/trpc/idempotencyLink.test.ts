import { createTRPCClient, TRPCClientError, type Operation, type TRPCLink } from '@trpc/client';
import { observable } from '@trpc/server/observable';
import { describe, expect, it } from 'vitest';
import type { AppRouter } from '@/server/app';
import { idempotencyHeaders, idempotencyKeyLink } from './idempotencyLink';

type Reply = { data: unknown } | { refusal: string } | 'network failure';

/** Stands in for the server: records the key of every call and answers as the test says. */
function fakeServer(reply: (op: Operation) => Reply | Promise<Reply> = () => ({ data: { projectId: 'prj_1', projectSlug: 'shop' } })) {
  const keys: unknown[] = [];
  const link: TRPCLink<AppRouter> =
    () =>
    ({ op }) =>
      observable((observer) => {
        keys.push(op.context.idempotencyKey);
        void Promise.resolve(reply(op)).then((answer) => {
          if (answer === 'network failure') observer.error(TRPCClientError.from(new TypeError('fetch failed')));
          else if ('refusal' in answer) {
            const appError = { code: answer.refusal, message: answer.refusal };
            observer.error(TRPCClientError.from({ error: { message: answer.refusal, code: -32600, data: { appError } } }));
          } else {
            observer.next({ result: { type: 'data', data: answer.data } });
            observer.complete();
          }
        });
      });
  return { link, keys };
}

function panelClient(server: ReturnType<typeof fakeServer>) {
  return { client: createTRPCClient<AppRouter>({ links: [idempotencyKeyLink(), server.link] }) };
}

const create = (client: ReturnType<typeof panelClient>['client'], name = 'Shop') => client.projects.create.mutate({ name });

describe('idempotencyKeyLink', () => {
  it('sends reads without a key', async () => {
    const server = fakeServer(() => ({ data: [] }));
    const { client } = panelClient(server);
    await client.projects.list.query({});
    expect(server.keys).toEqual([undefined]);
  });

  it('keys each submission apart: other input, another key', async () => {
    const server = fakeServer();
    const { client } = panelClient(server);
    await create(client, 'Shop');
    await create(client, 'Store');
    const [first, second] = server.keys;
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect(second).toMatch(/^[0-9a-f]{32}$/);
    expect(second).not.toBe(first);
  });

  it('sends a double click with the first click’s key, and the same form sent again once answered with a new one', async () => {
    let finish!: () => void;
    const running = new Promise<void>((resolve) => (finish = resolve));
    const server = fakeServer(async () => {
      await running;
      return { data: { projectId: 'prj_1', projectSlug: 'shop' } };
    });
    const { client } = panelClient(server);
    const clicks = [create(client), create(client)];
    finish();
    await Promise.all(clicks);
    expect(server.keys[1]).toBe(server.keys[0]);
    await create(client);
    expect(server.keys[2]).not.toBe(server.keys[0]);
  });

  it('keeps the key for a click still unanswered when its sibling was answered', async () => {
    const replies: Reply[] = [
      { data: { projectId: 'prj_1', projectSlug: 'shop' } },
      { refusal: 'IDEMPOTENCY_IN_PROGRESS' },
      { data: { projectId: 'prj_1', projectSlug: 'shop' } },
    ];
    const server = fakeServer(() => replies.shift()!);
    const { client } = panelClient(server);
    const clicks = await Promise.allSettled([create(client), create(client)]);
    expect(clicks.map((c) => c.status)).toEqual(['fulfilled', 'rejected']);
    await create(client);
    expect(new Set(server.keys).size).toBe(1);
  });

  it('retries with the same key after a lost request or IDEMPOTENCY_IN_PROGRESS, however late', async () => {
    const replies: Reply[] = ['network failure', { refusal: 'IDEMPOTENCY_IN_PROGRESS' }, { data: { projectId: 'prj_1', projectSlug: 'shop' } }];
    const server = fakeServer(() => replies.shift()!);
    const { client } = panelClient(server);
    await expect(create(client)).rejects.toThrow();
    await expect(create(client)).rejects.toThrow();
    await create(client);
    expect(new Set(server.keys).size).toBe(1);
  });

  it('settles a submission with the server’s refusal: sent again (a card changed), it is a new one', async () => {
    const replies: Reply[] = [{ refusal: 'CARD_DECLINED' }, { data: { projectId: 'prj_1', projectSlug: 'shop' } }];
    const server = fakeServer(() => replies.shift()!);
    const { client } = panelClient(server);
    await expect(create(client)).rejects.toThrow();
    await create(client);
    expect(server.keys[1]).not.toBe(server.keys[0]);
  });

  it('puts the key in the Idempotency-Key header of the write', () => {
    const op = { id: 1, type: 'mutation', path: 'projects.create', input: {}, context: { idempotencyKey: 'abc' }, signal: null } satisfies Operation;
    expect(idempotencyHeaders(op)).toEqual({ 'Idempotency-Key': 'abc' });
    expect(idempotencyHeaders({ ...op, context: {} })).toEqual({});
  });
});
