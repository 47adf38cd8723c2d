import { containerRegistries, containerRepositories } from '../../../db/schema';
import { getRegistryProvider } from '../../providers/registry';
import type { Registry, Repository } from './schema';

export type RegistryRow = typeof containerRegistries.$inferSelect;
export type RepositoryRow = typeof containerRepositories.$inferSelect;

/** Decimal gigabytes: caps and usage are in GB of 10^9 bytes, as egress is billed. */
export const BYTES_PER_GB = 1_000_000_000;

/** The registry's name for a repository, the path after the host. */
export function fullName(registryName: string, repositoryName: string): string {
  return `${registryName}/${repositoryName}`;
}

export function toRepositoryView(registry: Pick<RegistryRow, 'name'>, row: RepositoryRow): Repository {
  return {
    id: row.id,
    registryId: row.registryId,
    name: row.name,
    uri: `${getRegistryProvider().host()}/${fullName(registry.name, row.name)}`,
    visibility: row.visibility,
    publicEgressCapGb: row.publicEgressCapGb,
    publicEgressUsedGb: Math.round((row.publicEgressUsedBytes / BYTES_PER_GB) * 1000) / 1000,
    publicEgressCapHitAt: row.publicEgressCapHitAt?.toISOString() ?? null,
    imageTagMutability: row.imageTagMutability,
    scanOnPush: row.scanOnPush,
    encryptionType: row.encryptionType,
    gcEnabled: row.gcEnabled,
    gcKeepLastN: row.gcKeepLastN,
    gcDeleteUntagged: row.gcDeleteUntagged,
    gcUntaggedAfterDays: row.gcUntaggedAfterDays,
    lastPushedAt: row.lastPushedAt?.toISOString() ?? null,
    lastPulledAt: row.lastPulledAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

export function toRegistryView(row: RegistryRow, repositories: readonly RepositoryRow[]): Registry {
  return {
    id: row.id,
    name: row.name,
    region: row.region,
    endpoint: getRegistryProvider().host(),
    status: row.billingSuspendedAt ? 'suspended' : 'active',
    imageTagMutability: row.imageTagMutability,
    scanOnPush: row.scanOnPush,
    encryptionType: row.encryptionType,
    kmsKeyArn: row.kmsKeyArn,
    lifecycleEnabled: row.lifecycleEnabled,
    lifecycleKeepLastN: row.lifecycleKeepLastN,
    lifecycleUntaggedAfterDays: row.lifecycleUntaggedAfterDays,
    repositories: repositories.map((repository) => toRepositoryView(row, repository)),
    createdAt: row.createdAt.toISOString(),
  };
}
