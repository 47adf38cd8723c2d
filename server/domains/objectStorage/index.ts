import { isNull } from 'drizzle-orm';
import { buckets } from '../../../db/schema';
import { defineDomain } from '../../platform/domain';
import { getObjectStorageProvider, startEmbeddedObjectStorage, stopEmbeddedObjectStorage } from '../../providers/objectStorage';
import { objectStorageEvents } from './events';
import { objectStorageJobs } from './jobs';
import { objectStorageRouter, storageCredentialsRouter } from './router';
import { objectStorageSuspension } from './suspension';

export const objectStorageDomain = defineDomain({
  name: 'objectStorage',
  routers: { objectStorage: objectStorageRouter, storageCredentials: storageCredentialsRouter },
  jobs: objectStorageJobs,
  events: objectStorageEvents,
  scopes: ['object-storage', 'storage'],
  panel: [{ segment: 'object-storage', label: 'Object storage', icon: 'bucket', section: 'resources', order: 27 }],
  counters: [
    {
      counter: 'objectStorages',
      label: 'bucket',
      blocksProjectDeletion: true,
      table: buckets,
      projectIdColumn: buckets.projectId,
      live: isNull(buckets.deletedAt),
    },
  ],
  suspension: objectStorageSuspension,
  // The embedded endpoint serves customers' S3 clients from app start, not from the first bucket call.
  startup: async () => {
    if (getObjectStorageProvider().kind === 'embedded') await startEmbeddedObjectStorage();
  },
  // Its traffic counters are flushed every few seconds; stopping flushes the rest.
  shutdown: stopEmbeddedObjectStorage,
  providers: () => {
    const provider = getObjectStorageProvider();
    return [{ name: 'objectStorage', kind: provider.kind, description: provider.description }];
  },
});
