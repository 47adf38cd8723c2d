import { sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { runDunning } from '../../server/billing/dunning';
import { closeMonthForProject } from '../../server/billing/monthlyClose';
import { billingPeriodOf } from '../../server/billing/period';
import { addCard } from '../billingHelpers';
import { queryRows } from '../db';
import { api, expectError, type TestUser } from '../helpers';
import { configureInfra, createServer, listServers, paidProject, type ServerData } from './serverFixtures';

const DAY = 24 * 3_600_000;

beforeEach(() => {
  configureInfra({ INFRA_SIM_PROVISION_SECONDS: '0', INFRA_SIM_ACTION_SECONDS: '0', INFRA_SIM_FAIL: '' });
});

/**
 * A project whose servers were bought last month, whose card then declines the month's invoice:
 * `close` is the start of next month, and dunning runs on an injected clock from there.
 */
async function projectWithUnpaidServers(serverNames: string[]) {
  const { owner, projectId } = await paidProject();
  const servers: ServerData[] = [];
  for (const name of serverNames) servers.push(await createServer(owner, projectId, { name }));
  await queryRows(sql`update billing_items set started_at = started_at - interval '40 days' where project_id = ${projectId}`);
  await queryRows(sql`update ledger_payment_methods set behaviour = 'attach_then_decline'
    where customer_id = (select payment_customer_id from users where id = ${owner.id})`);
  const close = new Date(billingPeriodOf(new Date()).end.getTime() + 5 * 60_000);
  const invoice = await closeMonthForProject(projectId, close);
  expect(invoice?.status).toBe('failed');
  return { owner, projectId, servers, invoiceId: invoice!.id, graceOver: new Date(close.getTime() + 7 * DAY) };
}

function action(user: TestUser, projectId: string, serverId: string, name: string) {
  return api<ServerData>('POST', `/v1/projects/${projectId}/servers/${serverId}/actions`, { cookie: user.cookie, body: { action: name } });
}

async function serverEvents(projectId: string): Promise<Array<{ type: string; serverId: string }>> {
  const rows = await queryRows<{ type: string; payload: { serverId: string } }>(
    sql`select type, payload from events where project_id = ${projectId} and type in ('server.suspended', 'server.resumed') order by created_at, id`,
  );
  return rows.map((r) => ({ type: r.type, serverId: r.payload.serverId }));
}

async function payWithANewCard(owner: TestUser, projectId: string, invoiceId: string) {
  const card = (await addCard(owner, projectId, '5555 5555 5555 4444')).data;
  await api('POST', `/v1/projects/${projectId}/billing/payment-methods/${card.id}/default`, { cookie: owner.cookie }).then((r) => r.data);
  return api<{ status: string }>('POST', `/v1/projects/${projectId}/billing/invoices/${invoiceId}/pay`, { cookie: owner.cookie });
}

describe('a suspended project', () => {
  it('has its running servers powered off and marked, refuses to power them on, and keeps everything', async () => {
    const { owner, projectId, servers, graceOver } = await projectWithUnpaidServers(['web-1', 'web-2']);
    await action(owner, projectId, servers[1]!.id, 'power_off').then((r) => r.data);

    await runDunning(graceOver);
    const project = (await api<{ suspendedAt: string | null }>('GET', `/v1/projects/${projectId}`, { cookie: owner.cookie })).data;
    expect(project.suspendedAt).toBe(graceOver.toISOString());
    const listed = await listServers(owner, projectId);
    expect(listed.map((s) => [s.name, s.status, s.suspendedAt !== null])).toEqual([
      ['web-2', 'OFF', false],
      ['web-1', 'OFF', true],
    ]);
    expect(await serverEvents(projectId)).toEqual([{ type: 'server.suspended', serverId: servers[0]!.id }]);
    expect(await queryRows(sql`select id from infra_sim_machines where deleted_at is not null`)).toEqual([]);

    for (const name of ['power_on', 'power_cycle']) {
      const refused = await action(owner, projectId, servers[0]!.id, name);
      expectError(refused, 402, 'PROJECT_SUSPENDED');
      expect(refused.body).toMatchObject({ error: { message: expect.stringContaining('unpaid invoice') } });
    }
    expectError(await action(owner, projectId, servers[1]!.id, 'power_on'), 402, 'PROJECT_SUSPENDED');
    expect((await listServers(owner, projectId)).map((s) => s.status)).toEqual(['OFF', 'OFF']);

    const deleted = await api('DELETE', `/v1/projects/${projectId}/servers/${servers[1]!.id}`, { cookie: owner.cookie });
    expect(deleted.status).toBe(200);
  });

  it('powers the servers it stopped back on once the invoice is paid, and leaves the others off', async () => {
    const { owner, projectId, servers, invoiceId, graceOver } = await projectWithUnpaidServers(['app-1', 'app-2']);
    await action(owner, projectId, servers[1]!.id, 'power_off').then((r) => r.data);
    await runDunning(graceOver);

    const paid = await payWithANewCard(owner, projectId, invoiceId);
    expect(paid.data.status).toBe('paid');
    const project = (await api<{ suspendedAt: string | null; blockedAt: string | null }>('GET', `/v1/projects/${projectId}`, { cookie: owner.cookie })).data;
    expect(project).toMatchObject({ suspendedAt: null, blockedAt: null });
    const listed = await listServers(owner, projectId);
    expect(listed.map((s) => [s.name, s.status, s.suspendedAt])).toEqual([
      ['app-2', 'OFF', null],
      ['app-1', 'RUNNING', null],
    ]);
    expect(await serverEvents(projectId)).toEqual([
      { type: 'server.suspended', serverId: servers[0]!.id },
      { type: 'server.resumed', serverId: servers[0]!.id },
    ]);
    expect((await action(owner, projectId, servers[1]!.id, 'power_on')).status).toBe(200);
  });

  it('catches up with a provider that failed: servers it could not stop are stopped, and restarted, on a later pass', async () => {
    const { owner, projectId, invoiceId, graceOver } = await projectWithUnpaidServers(['db-1']);
    configureInfra({ INFRA_SIM_FAIL: 'action' });
    await runDunning(graceOver);
    expect((await listServers(owner, projectId)).map((s) => [s.status, s.suspendedAt])).toEqual([['RUNNING', null]]);

    configureInfra({ INFRA_SIM_FAIL: '' });
    await runDunning(new Date(graceOver.getTime() + 15 * 60_000));
    expect((await listServers(owner, projectId)).map((s) => [s.status, s.suspendedAt !== null])).toEqual([['OFF', true]]);

    configureInfra({ INFRA_SIM_FAIL: 'action' });
    expect((await payWithANewCard(owner, projectId, invoiceId)).data.status).toBe('paid');
    expect((await listServers(owner, projectId)).map((s) => [s.status, s.suspendedAt !== null])).toEqual([['OFF', true]]);

    configureInfra({ INFRA_SIM_FAIL: '' });
    await runDunning(new Date(graceOver.getTime() + 30 * 60_000));
    expect((await listServers(owner, projectId)).map((s) => [s.status, s.suspendedAt])).toEqual([['RUNNING', null]]);
  });

  it('is only blocked before the grace period ends: servers keep running, and stay under the owner’s control', async () => {
    const { owner, projectId, servers, graceOver } = await projectWithUnpaidServers(['cache-1']);
    await runDunning(new Date(graceOver.getTime() - 60_000));
    expect((await listServers(owner, projectId)).map((s) => [s.status, s.suspendedAt])).toEqual([['RUNNING', null]]);
    expect((await action(owner, projectId, servers[0]!.id, 'reboot')).status).toBe(200);
  });
});
