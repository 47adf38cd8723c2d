import type { EventDeclaration } from '../../platform/domain';

export const redisEvents: readonly EventDeclaration[] = [
  {
    type: 'redis.created',
    description: 'A Redis database was bought and is being provisioned.',
    example: { redisId: 'rds_4k6m8p2r4t6v8x1z', name: 'cache', plan: 'redis-1gb', region: 'fra1', replication: false, by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'redis.deleted',
    description: 'A Redis database was deleted: its data removed and its billing stopped.',
    example: { redisId: 'rds_4k6m8p2r4t6v8x1z', name: 'cache', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'redis.failed',
    description: 'A Redis database could not be started: its billing stopped and its charge (in minor units) was credited to the balance.',
    example: { redisId: 'rds_4k6m8p2r4t6v8x1z', name: 'cache', credited: 1250 },
  },
  {
    type: 'redis.suspended',
    description: 'A Redis database was made read-only because an invoice stayed unpaid past its grace period.',
    example: { redisId: 'rds_4k6m8p2r4t6v8x1z', name: 'cache', reason: 'invoice_unpaid' },
  },
  {
    type: 'redis.resumed',
    description: 'A Redis database made read-only by a billing suspension takes writes again now that the invoice is paid.',
    example: { redisId: 'rds_4k6m8p2r4t6v8x1z', name: 'cache', reason: 'invoice_paid' },
  },
];
