import type { EventDeclaration } from '../../platform/domain';

const tenant = { tenantId: 'pdb_4r6t8y0u2i4o6p8a', dbName: 'orders' };
const by = 'usr_3n5b7v9c1x2z4a6s';

export const databasesEvents: readonly EventDeclaration[] = [
  {
    type: 'database_tenant.created',
    description: 'A shared PostgreSQL database was bought: its database, roles and pool exist.',
    example: { ...tenant, tier: 'STARTER', poolMode: 'TRANSACTION', by },
  },
  { type: 'database_tenant.password_rotated', description: "A tenant's password was replaced; its open sessions were dropped.", example: { ...tenant, by } },
  {
    type: 'database_tenant.tier_changed',
    description: "A tenant's tier changed; its limits apply at once.",
    example: { ...tenant, from: 'STARTER', to: 'GROWTH', by },
  },
  {
    type: 'database_tenant.deleted',
    description: 'A tenant was deprovisioned: logins refused, pool removed, billing stopped; its database is kept for the retention period.',
    example: { ...tenant, retainedDays: 14, by },
  },
  {
    type: 'database_tenant.storage_limit_reached',
    description: "A tenant's database grew past its tier's storage limit and became read-only.",
    example: { ...tenant, tier: 'MICRO', usedBytes: 2_100_000_000, limitGb: 2 },
  },
  {
    type: 'database_tenant.writable_again',
    description: "A read-only tenant's database is back under its storage limit and writable again.",
    example: { ...tenant, tier: 'MICRO', usedBytes: 1_500_000_000, limitGb: 2 },
  },
  {
    type: 'database_tenant.suspended',
    description: "A tenant's logins are refused: an invoice stayed unpaid past its grace period.",
    example: { ...tenant, reason: 'invoice_unpaid' },
  },
  {
    type: 'database_tenant.resumed',
    description: 'A suspended tenant can log in again now that the invoice is paid.',
    example: { ...tenant, reason: 'invoice_paid' },
  },
];
