import type { Project } from './ProjectContext';

type Counter = keyof Project['_count'];

/** How each `_count` figure is named in the panel, and the area it links to. */
export const COUNTERS: ReadonlyArray<{ key: Counter; label: string; segment: string }> = [
  { key: 'servers', label: 'Servers', segment: 'servers' },
  { key: 'domains', label: 'Domains', segment: 'domains' },
  { key: 'apps', label: 'Apps', segment: 'hosting' },
  { key: 'members', label: 'Members', segment: 'members' },
  { key: 'objectStorages', label: 'Buckets', segment: 'object-storage' },
  { key: 'containerRegistries', label: 'Registries', segment: 'container-registry' },
  { key: 'databaseClusters', label: 'Databases', segment: 'databases' },
];
