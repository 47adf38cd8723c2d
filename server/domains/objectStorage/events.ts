import type { EventDeclaration } from '../../platform/domain';

const bucket = { bucketId: 'bkt_7u5y3t1r9e7w5q3a', name: 'assets-prod' };
const by = 'usr_3n5b7v9c1x2z4a6s';

export const objectStorageEvents: readonly EventDeclaration[] = [
  { type: 'bucket.created', description: 'A bucket was bought and made on the endpoint.', example: { ...bucket, tier: 'STARTER', region: 'fra1', by } },
  {
    type: 'bucket.tier_changed',
    description: "A bucket's tier was changed (an upgrade reopens a bucket suspended for its usage).",
    example: { ...bucket, from: 'STARTER', to: 'GROWTH', reopened: false, by },
  },
  { type: 'bucket.cors_replaced', description: "A bucket's CORS configuration was replaced.", example: { ...bucket, rules: 2, by } },
  { type: 'bucket.cdn_enabled', description: 'The CDN was turned on for a public bucket.', example: { ...bucket, by } },
  { type: 'bucket.cdn_disabled', description: 'The CDN was turned off for a bucket.', example: { ...bucket, by } },
  { type: 'bucket.deleted', description: 'A bucket and its objects were deleted and its billing stopped.', example: { ...bucket, by } },
  {
    type: 'bucket.suspended',
    description: 'A bucket was closed because its usage went more than 10% over its tier, or an invoice stayed unpaid past its grace period.',
    example: { ...bucket, tier: 'STARTER', over: ['storageBytes'], reason: 'usage_over_allowance' },
  },
  {
    type: 'bucket.resumed',
    description: 'A bucket closed by a billing suspension is open again now that the invoice is paid.',
    example: { ...bucket, reason: 'invoice_paid' },
  },
  {
    type: 'storage_credential.created',
    description: 'An object-storage access key was issued.',
    example: { credentialId: 'cred_2w4e6r8t0y2u4i6o', name: 'ci-uploader', accessKeyId: 'AKIA5EXAMPLE2QWERTYU', buckets: null, access: 'write', by },
  },
  {
    type: 'storage_credential.rescoped',
    description: 'An object-storage access key was given other buckets or another access.',
    example: { credentialId: 'cred_2w4e6r8t0y2u4i6o', buckets: ['bkt_7u5y3t1r9e7w5q3a'], access: 'read', by },
  },
  {
    type: 'storage_credential.revoked',
    description: 'An object-storage access key was revoked.',
    example: { credentialId: 'cred_2w4e6r8t0y2u4i6o', name: 'ci-uploader', accessKeyId: 'AKIA5EXAMPLE2QWERTYU', by },
  },
];
