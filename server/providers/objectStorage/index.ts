import { getConfig } from '../../platform/config';
import { EmbeddedObjectStorageProvider } from './embedded/provider';
import type { ObjectStorageProvider } from './types';

export type {
  BucketSettings,
  BucketUsage,
  CorsMethod,
  CorsRule,
  CredentialAccess,
  CredentialScope,
  IssuedCredential,
  ObjectStorageEndpoint,
  ObjectStorageProvider,
} from './types';
export { CORS_METHODS, CREDENTIAL_ACCESS } from './types';
export { startEmbeddedObjectStorage, stopEmbeddedObjectStorage } from './embedded/runtime';

/** One provider per process, shared through globalThis: the Next bundle and the server load this module separately. */
const holder = globalThis as unknown as { __objectStorageProvider?: ObjectStorageProvider };

/** The object-storage provider named by OBJECT_STORAGE_PROVIDER, made once per process. */
export function getObjectStorageProvider(): ObjectStorageProvider {
  holder.__objectStorageProvider ??= makeObjectStorageProvider();
  return holder.__objectStorageProvider;
}

function makeObjectStorageProvider(): ObjectStorageProvider {
  const config = getConfig();
  switch (config.OBJECT_STORAGE_PROVIDER) {
    case 'embedded':
      return new EmbeddedObjectStorageProvider();
  }
}

/** Test hook: the next call makes the provider again, from the configuration as it is then. */
export function resetObjectStorageProviderForTests(): void {
  holder.__objectStorageProvider = undefined;
}
