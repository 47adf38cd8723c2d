import { getConfig } from '../../platform/config';
import { EmbeddedObjectStorageProvider } from './embedded/provider';
import { createS3ObjectStorageProvider } from './s3';
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
    case 's3': {
      const {
        OBJECT_STORAGE_S3_ENDPOINT: endpoint,
        OBJECT_STORAGE_S3_ACCESS_KEY_ID: accessKeyId,
        OBJECT_STORAGE_S3_SECRET_ACCESS_KEY: secretAccessKey,
      } = config;
      if (!endpoint || !accessKeyId || !secretAccessKey) {
        throw new Error(
          'OBJECT_STORAGE_S3_ENDPOINT, OBJECT_STORAGE_S3_ACCESS_KEY_ID and OBJECT_STORAGE_S3_SECRET_ACCESS_KEY are required when OBJECT_STORAGE_PROVIDER=s3',
        );
      }
      return createS3ObjectStorageProvider({
        endpoint,
        region: config.OBJECT_STORAGE_S3_REGION,
        pathStyle: config.OBJECT_STORAGE_S3_PATH_STYLE,
        accessKeyId,
        secretAccessKey,
        iamEndpoint: config.OBJECT_STORAGE_S3_IAM_ENDPOINT ?? endpoint,
        iamRegion: config.OBJECT_STORAGE_S3_IAM_REGION,
        adminArn: config.OBJECT_STORAGE_S3_ADMIN_ARN,
        timeoutMs: config.OBJECT_STORAGE_S3_TIMEOUT_MS,
      });
    }
  }
}

/** Test hook: the next call makes the provider again, from the configuration as it is then. */
export function resetObjectStorageProviderForTests(): void {
  holder.__objectStorageProvider = undefined;
}
