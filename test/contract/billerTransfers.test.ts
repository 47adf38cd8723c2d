import { sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import type { BillingOverview } from '../../server/domains/billing/schema';
import { addCard, CARDS } from '../billingHelpers';
import { databaseFingerprint, queryRows } from '../db';
import { api, createApiKey, createProject, createUser, expectError, type TestUser } from '../helpers';
import { addMember } from '../membersHelpers';

const billingPath = (projectId: string) => `/v1/projects/${projectId}/billing`;
const transferPath = (projectId: string, transferId: string) => `/v1/projects/${projectId}/billing/biller/transfers/${transferId}`;

function offer(by: TestUser, projectId: string, userId: string) {
  return api<BillingOverview>('POST', `${billingPath(projectId)}/biller`, { cookie: by.cookie, body: { userId } });
}

function answer(by: TestUser, projectId: string, transferId: string, verb: 'accept' | 'decline') {
  return api<BillingOverview>('POST', `${transferPath(projectId, transferId)}/${verb}`, { cookie: by.cookie });
}

async function overviewFor(user: TestUser, projectId: string): Promise<BillingOverview> {
  return (await api<BillingOverview>('GET', billingPath(projectId), { cookie: user.cookie })).data;
}

async function eventsOf(projectId: string, type: string) {
  return queryRows<{ payload: Record<string, unknown> }>(
    sql`select payload from events where project_id = ${projectId} and type = ${type} order by created_at`,
  );
}

describe('handing billing to another member', () => {
  let owner: TestUser;
  let admin: TestUser;
  let viewer: TestUser;
  let projectId: string;

  beforeEach(async () => {
    owner = await createUser('Olga Owner');
    admin = await createUser('Adam Admin');
    viewer = await createUser('Vera Viewer');
    projectId = (await createProject(owner)).projectId;
    await addMember(owner, projectId, admin, 'admin');
    await addMember(owner, projectId, viewer, 'viewer');
    await addCard(owner, projectId, CARDS.ok);
  });

  it('moves nothing until the member accepts: the offer is pending, shown to both, and billing moves on acceptance', async () => {
    const offered = await offer(owner, projectId, admin.id);
    expect(offered.status).toBe(200);
    expect(offered.data.biller.id).toBe(owner.id);
    const pending = offered.data.pendingTransfer!;
    expect(pending).toMatchObject({
      id: expect.stringMatching(/^btr_/),
      from: { id: owner.id, name: 'Olga Owner' },
      to: { id: admin.id, name: 'Adam Admin', email: admin.email },
      proposedBy: { id: owner.id },
    });
    expect(Date.parse(pending.expiresAt) - Date.parse(pending.createdAt)).toBe(7 * 24 * 3_600_000);
    expect((await overviewFor(admin, projectId)).pendingTransfer?.id).toBe(pending.id);
    expect((await eventsOf(projectId, 'billing.biller_changed')).length).toBe(0);

    const accepted = await answer(admin, projectId, pending.id, 'accept');
    expect(accepted.status).toBe(200);
    expect(accepted.data).toMatchObject({ biller: { id: admin.id }, pendingTransfer: null, defaultPaymentMethod: null, billerHasPaymentMethod: false });
    expect(await eventsOf(projectId, 'billing.biller_changed')).toEqual([
      { payload: { userId: admin.id, from: owner.id, by: admin.id, transferId: pending.id } },
    ]);
    const members = (await api<Array<{ userId: string; isBiller: boolean }>>('GET', `/v1/projects/${projectId}/members`, { cookie: owner.cookie })).data;
    expect(members.find((m) => m.isBiller)?.userId).toBe(admin.id);
    expectError(await answer(admin, projectId, pending.id, 'accept'), 409, 'CONFLICT');
  });

  it('lets only the member named accept or decline; declining leaves billing where it was', async () => {
    const { id } = (await offer(owner, projectId, admin.id)).data.pendingTransfer!;
    const elsewhere = await createProject(admin);
    const before = await databaseFingerprint();
    expectError(await answer(owner, projectId, id, 'accept'), 403, 'FORBIDDEN');
    expectError(await answer(owner, projectId, id, 'decline'), 403, 'FORBIDDEN');
    expectError(await answer(viewer, projectId, id, 'accept'), 403, 'FORBIDDEN');
    expectError(await answer(admin, projectId, 'btr_unknown', 'accept'), 404, 'NOT_FOUND');
    expectError(await answer(admin, elsewhere.projectId, id, 'accept'), 404, 'NOT_FOUND');
    expect(await databaseFingerprint()).toEqual(before);

    const declined = await answer(admin, projectId, id, 'decline');
    expect(declined.data).toMatchObject({ biller: { id: owner.id }, pendingTransfer: null });
    expect((await eventsOf(projectId, 'billing.transfer_declined')).length).toBe(1);
    expectError(await answer(admin, projectId, id, 'accept'), 409, 'CONFLICT');
  });

  it('keeps one offer pending at a time; its proposer, the biller or an owner cancels it', async () => {
    const coOwner = await createUser('Cora Co-owner');
    await addMember(owner, projectId, coOwner, 'owner');
    const { id } = (await offer(owner, projectId, admin.id)).data.pendingTransfer!;
    const second = await offer(coOwner, projectId, coOwner.id);
    expectError(second, 409, 'CONFLICT');
    expect(second.body).toMatchObject({ error: { message: expect.stringContaining('already pending') } });
    expectError(await api('DELETE', transferPath(projectId, id), { cookie: viewer.cookie }), 403, 'FORBIDDEN');

    const cancelled = await api('DELETE', transferPath(projectId, id), { cookie: coOwner.cookie });
    expect(cancelled.status).toBe(204);
    expect((await overviewFor(owner, projectId)).pendingTransfer).toBeNull();
    expectError(await answer(admin, projectId, id, 'accept'), 409, 'CONFLICT');
    expectError(await api('DELETE', transferPath(projectId, id), { cookie: owner.cookie }), 409, 'CONFLICT');

    const again = await offer(coOwner, projectId, coOwner.id);
    expect(again.data.pendingTransfer?.to.id).toBe(coOwner.id);
  });

  it('lapses after its time: it can no longer be accepted and a new offer can be made', async () => {
    const { id } = (await offer(owner, projectId, admin.id)).data.pendingTransfer!;
    await queryRows(sql`update biller_transfers set expires_at = now() - interval '1 minute' where id = ${id}`);
    expect((await overviewFor(owner, projectId)).pendingTransfer).toBeNull();
    const late = await answer(admin, projectId, id, 'accept');
    expectError(late, 409, 'CONFLICT');
    expect(late.body).toMatchObject({ error: { message: expect.stringContaining('expired') } });
    expect((await overviewFor(owner, projectId)).biller.id).toBe(owner.id);

    const fresh = await offer(owner, projectId, admin.id);
    expect(fresh.data.pendingTransfer?.id).not.toBe(id);
    expect((await queryRows<{ status: string }>(sql`select status from biller_transfers where id = ${id}`))[0]?.status).toBe('expired');
  });

  it('may be offered by an owner or by the biller, to an owner or admin who does not hold billing yet', async () => {
    const outsider = await createUser();
    const before = await databaseFingerprint();
    expectError(await offer(admin, projectId, admin.id), 403, 'FORBIDDEN');
    expectError(await offer(owner, projectId, viewer.id), 409, 'CONFLICT');
    expectError(await offer(owner, projectId, owner.id), 409, 'CONFLICT');
    expectError(await offer(owner, projectId, outsider.id), 404, 'NOT_FOUND');
    expect(await databaseFingerprint()).toEqual(before);

    // An admin who took billing can hand it back: the biller may offer it, not only owners.
    await answer(admin, projectId, (await offer(owner, projectId, admin.id)).data.pendingTransfer!.id, 'accept');
    const back = await offer(admin, projectId, owner.id);
    expect(back.status).toBe(200);
    await answer(owner, projectId, back.data.pendingTransfer!.id, 'accept');
    expect((await overviewFor(owner, projectId)).biller.id).toBe(owner.id);
  });

  it('is cancelled when the member it names drops below admin or leaves', async () => {
    const { id } = (await offer(owner, projectId, admin.id)).data.pendingTransfer!;
    await api('PATCH', `/v1/projects/${projectId}/members/${admin.id}`, { cookie: owner.cookie, body: { role: 'member' } }).then((r) => r.data);
    expect((await overviewFor(owner, projectId)).pendingTransfer).toBeNull();
    expect(await eventsOf(projectId, 'billing.transfer_cancelled')).toEqual([{ payload: { transferId: id, by: owner.id, reason: 'member_lost_access' } }]);

    const coOwner = await createUser();
    await addMember(owner, projectId, coOwner, 'owner');
    await offer(owner, projectId, coOwner.id);
    await api('DELETE', `/v1/projects/${projectId}/members/${coOwner.id}`, { cookie: coOwner.cookie }).then((r) => r.data);
    expect((await overviewFor(owner, projectId)).pendingTransfer).toBeNull();
  });

  it('works with an API key holding billing:read and billing:write, acting as its creator', async () => {
    const adminKey = await createApiKey(owner, projectId, ['billing:read', 'billing:write']);
    await queryRows(sql`update api_keys set created_by_user_id = ${admin.id} where id = ${adminKey.id}`);
    const { id } = (await offer(owner, projectId, admin.id)).data.pendingTransfer!;
    const accepted = await api<BillingOverview>('POST', `${transferPath(projectId, id)}/accept`, { key: adminKey.key });
    expect(accepted.data.biller.id).toBe(admin.id);
  });
});
