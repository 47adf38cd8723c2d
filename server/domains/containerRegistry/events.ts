import type { EventDeclaration } from '../../platform/domain';

const registry = { registryId: 'creg_4t6y8u0i2o4p6a8s', name: 'acme' };
const repository = { registryId: registry.registryId, repositoryId: 'crepo_1q3w5e7r9t1y3u5i' };
const by = 'usr_3n5b7v9c1x2z4a6s';
const digest = 'sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945';

export const containerRegistryEvents: readonly EventDeclaration[] = [
  { type: 'container_registry.created', description: 'A container registry was bought.', example: { ...registry, region: 'fra1', by } },
  {
    type: 'container_registry.updated',
    description: "A registry's settings changed (tag mutability and scanning apply to every repository).",
    example: { ...registry, changed: ['imageTagMutability'], by },
  },
  {
    type: 'container_registry.deleted',
    description: 'A registry was deleted: its billing stopped and its repositories were deleted.',
    example: { ...registry, repositories: 2, storageBytes: 73400320, by },
  },
  {
    type: 'container_registry.suspended',
    description: 'A registry stopped taking pushes and anonymous pulls: an invoice stayed unpaid past its grace period.',
    example: { ...registry, reason: 'invoice_unpaid' },
  },
  {
    type: 'container_registry.resumed',
    description: 'A suspended registry is open again now that the invoice is paid.',
    example: { ...registry, reason: 'invoice_paid' },
  },
  {
    type: 'container_repository.created',
    description: 'A repository was made, through the API or by a first push (by is null then).',
    example: { ...repository, name: 'web', visibility: 'PRIVATE', by },
  },
  {
    type: 'container_repository.updated',
    description: "A repository's visibility, egress cap or retention changed.",
    example: { ...repository, name: 'web', changed: ['visibility'], visibility: 'PUBLIC', reopened: false, by },
  },
  { type: 'container_repository.deleted', description: 'A repository and its images were deleted.', example: { ...repository, name: 'web', by } },
  {
    type: 'container_repository.egress_cap_hit',
    description: 'Anonymous pulls of a PUBLIC repository reached its egress cap: it was closed to PRIVATE until it is made PUBLIC again or the cap is raised.',
    example: { ...repository, name: 'web', publicEgressCapGb: 50, publicEgressUsedBytes: 50000123456 },
  },
  {
    type: 'container_image.pushed',
    description: 'An image was pushed; scanFindings is set when the repository scans on push.',
    example: { ...repository, repository: 'acme/web', digest, tag: 'v1.4.2', scanFindings: { CRITICAL: 0, HIGH: 1, MEDIUM: 3, LOW: 7, INFORMATIONAL: 2 } },
  },
  {
    type: 'container_image.deleted',
    description: 'An image was deleted by digest, with all its tags.',
    example: { ...repository, repository: 'acme/web', digest, by },
  },
  {
    type: 'container_image.expired',
    description: "The retention policy deleted images; they stay listed until the registry's garbage collection.",
    example: { ...repository, repository: 'acme/web', digests: [digest] },
  },
];
