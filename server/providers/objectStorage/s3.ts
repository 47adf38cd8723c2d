import { createHash, randomBytes } from 'node:crypto';
import {
  CreateAccessKeyCommand,
  CreateUserCommand,
  DeleteAccessKeyCommand,
  DeleteUserCommand,
  DeleteUserPolicyCommand,
  GetUserCommand,
  IAMClient,
  IAMServiceException,
  NoSuchEntityException,
  ListAccessKeysCommand,
  ListUsersCommand,
  PutUserPolicyCommand,
} from '@aws-sdk/client-iam';
import {
  BucketAlreadyExists,
  BucketAlreadyOwnedByYou,
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteBucketCorsCommand,
  DeleteBucketPolicyCommand,
  DeleteObjectsCommand,
  GetBucketVersioningCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  NoSuchBucket,
  PutBucketCorsCommand,
  PutBucketPolicyCommand,
  PutBucketVersioningCommand,
  S3Client,
  S3ServiceException,
  type BucketLocationConstraint,
  type ObjectIdentifier,
} from '@aws-sdk/client-s3';
import { AppError, invalidField } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import type { BucketSettings, BucketUsage, CredentialAccess, CredentialScope, IssuedCredential, ObjectStorageEndpoint, ObjectStorageProvider } from './types';

export interface S3ObjectStorageOptions {
  /** The S3 API as clients reach it, e.g. `https://s3.fra1.example.com`. */
  endpoint: string;
  /** The SigV4 signing region of the S3 API (MinIO's `MINIO_SITE_REGION`, Ceph's zonegroup name). */
  region: string;
  /** Path-style addressing (`/bucket/key`): MinIO and Ceph without wildcard DNS need it. */
  pathStyle: boolean;
  /** An administrator of the endpoint: owns every bucket and manages the IAM users. */
  accessKeyId: string;
  secretAccessKey: string;
  /** The IAM Query API: Ceph RGW serves it on the S3 endpoint itself, AWS on `https://iam.amazonaws.com`. */
  iamEndpoint: string;
  /** The signing region of the IAM API; the S3 region unless given (AWS signs IAM in `us-east-1`). */
  iamRegion?: string;
  /**
   * The administrator as bucket policies name it, exempted from a suspension's Deny. Asked of IAM
   * (GetUser without a name) unless given; give it where that call does not describe the caller.
   */
  adminArn?: string;
  /** Per request, in milliseconds. */
  timeoutMs?: number;
}

/**
 * IAM users this adapter creates live under this path, so listing them to find a key's owner never
 * walks the administrator's other users and a person reading the IAM console sees where they came from.
 */
export const CREDENTIAL_USER_PATH = '/objectstorage/';
/** The one inline policy each credential's user carries: rescoping replaces it whole. */
export const CREDENTIAL_POLICY_NAME = 'object-storage-scope';

/** S3's rule for bucket names; checked here too because a name lands inside policy ARNs, where `*` would widen a scope. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** DeleteObjects takes at most this many keys per request. */
const DELETE_BATCH = 1000;

const READ_ACTIONS = {
  bucket: ['s3:ListBucket', 's3:GetBucketLocation'],
  object: ['s3:GetObject'],
};
const WRITE_ACTIONS = {
  bucket: [...READ_ACTIONS.bucket, 's3:ListBucketMultipartUploads'],
  object: [...READ_ACTIONS.object, 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
};
/**
 * Full access adds the subresources a customer manages for themselves (versions, tags, lifecycle),
 * and read access to the settings the platform applies. Writing those settings (policy, CORS,
 * versioning) stays with the platform: they are applied whole from our records and billed, and a
 * key that could rewrite the bucket policy could lift a suspension.
 */
const FULL_ACTIONS = {
  bucket: [
    ...WRITE_ACTIONS.bucket,
    's3:ListBucketVersions',
    's3:GetBucketVersioning',
    's3:GetBucketCORS',
    's3:GetBucketPolicy',
    's3:GetLifecycleConfiguration',
    's3:PutLifecycleConfiguration',
  ],
  object: [
    ...WRITE_ACTIONS.object,
    's3:GetObjectVersion',
    's3:DeleteObjectVersion',
    's3:GetObjectTagging',
    's3:PutObjectTagging',
    's3:DeleteObjectTagging',
    's3:GetObjectVersionTagging',
    's3:PutObjectVersionTagging',
    's3:DeleteObjectVersionTagging',
  ],
};
const ACTIONS: Record<CredentialAccess, { bucket: string[]; object: string[] }> = { read: READ_ACTIONS, write: WRITE_ACTIONS, full: FULL_ACTIONS };

type Statement = Record<string, unknown>;

export function createS3ObjectStorageProvider(options: S3ObjectStorageOptions): ObjectStorageProvider {
  return new S3ObjectStorageProvider(options);
}

/**
 * Buckets and credentials on a production S3-compatible endpoint with an IAM API (Ceph RGW from
 * Squid on, AWS). Every bucket belongs to the administrator; a credential is an IAM user of its own
 * with one inline policy naming its buckets. Nothing is kept in memory but the administrator's ARN:
 * a key's user is found by listing the users under `CREDENTIAL_USER_PATH`, so a restart loses nothing.
 *
 * Traffic is not metered here: S3 has no API for bytes sent or requests answered per bucket (AWS
 * sells it as CloudWatch request metrics, Ceph keeps it in the admin ops usage log, MinIO in
 * Prometheus counters that reset with the server), so `usage` answers 0 egress and 0 requests and a
 * production deployment meters traffic where it leaves, at its CDN or edge.
 */
class S3ObjectStorageProvider implements ObjectStorageProvider {
  readonly kind = 's3' as const;
  readonly description: string;
  readonly #endpoint: string;
  readonly #region: string;
  readonly #pathStyle: boolean;
  // True private fields: a logged or serialised provider must never carry the administrator's secret.
  readonly #secret: string;
  readonly #s3: S3Client;
  readonly #iam: IAMClient;
  #adminArn: Promise<string> | undefined;

  constructor(options: S3ObjectStorageOptions) {
    this.#endpoint = options.endpoint.replace(/\/+$/, '');
    this.#region = options.region;
    this.#pathStyle = options.pathStyle;
    this.#secret = options.secretAccessKey;
    if (options.adminArn) this.#adminArn = Promise.resolve(options.adminArn);
    const credentials = { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey };
    const timeoutMs = options.timeoutMs ?? 30_000;
    // Without throwOnRequestTimeout the SDK only prints a warning when the time is up and keeps waiting.
    const requestHandler = { requestTimeout: timeoutMs, connectionTimeout: timeoutMs, throwOnRequestTimeout: true };
    this.#s3 = new S3Client({
      endpoint: this.#endpoint,
      region: options.region,
      forcePathStyle: options.pathStyle,
      credentials,
      requestHandler,
      // The SDK's default CRC32 trailers and checksums are refused by Ceph before Squid and older MinIO.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    this.#s3.middlewareStack.add(
      (next) => async (args) => {
        addContentMd5(args.request);
        return next(args);
      },
      // Before signing, so the header is signed with the rest.
      { step: 'build', name: 'contentMd5OfControlDocuments' },
    );
    this.#iam = new IAMClient({ endpoint: options.iamEndpoint.replace(/\/+$/, ''), region: options.iamRegion ?? options.region, credentials, requestHandler });
    this.description = `S3 endpoint ${new URL(this.#endpoint).host} (region ${options.region}), credentials issued through its IAM API`;
  }

  endpoint(): ObjectStorageEndpoint {
    // One endpoint serves every catalogue region: buckets are placed where the endpoint stands.
    return { url: this.#endpoint, region: this.#region, pathStyle: this.#pathStyle, development: false };
  }

  async createBucket(name: string, _region: string, settings: BucketSettings): Promise<void> {
    checkBucketName(name);
    try {
      await this.#s3.send(
        new CreateBucketCommand({
          Bucket: name,
          // AWS refuses `us-east-1` as a constraint; every other endpoint wants its own region or nothing.
          // The SDK types the constraint as AWS's region list; a Ceph zonegroup or MinIO site name is just as valid.
          ...(this.#region !== 'us-east-1' && { CreateBucketConfiguration: { LocationConstraint: this.#region as BucketLocationConstraint } }),
        }),
      );
    } catch (err) {
      if (err instanceof BucketAlreadyExists) throw new AppError('CONFLICT', `The bucket name ${name} is taken on the object storage endpoint`);
      if (!(err instanceof BucketAlreadyOwnedByYou)) throw this.#failure('create the bucket', err);
    }
    await this.applySettings(name, settings);
  }

  async applySettings(name: string, settings: BucketSettings): Promise<void> {
    checkBucketName(name);
    try {
      // The policy first: a suspension must take hold even when a later step fails.
      await this.#applyPolicy(name, settings);
      await this.#applyVersioning(name, settings.versioning);
      await this.#applyCors(name, settings);
    } catch (err) {
      if (err instanceof NoSuchBucket) throw new AppError('NOT_FOUND', `Bucket ${name} not found on the object storage endpoint`);
      throw this.#failure('apply the bucket settings', err);
    }
  }

  async deleteBucket(name: string): Promise<void> {
    checkBucketName(name);
    try {
      await this.#empty(name);
      await this.#s3.send(new DeleteBucketCommand({ Bucket: name }));
    } catch (err) {
      if (err instanceof NoSuchBucket) return;
      throw this.#failure('delete the bucket', err);
    }
  }

  async usage(name: string, since: Date): Promise<BucketUsage> {
    checkBucketName(name);
    let storageBytes = 0;
    let objects = 0;
    let token: string | undefined;
    try {
      do {
        const page = await this.#s3.send(new ListObjectsV2Command({ Bucket: name, ContinuationToken: token }));
        for (const object of page.Contents ?? []) {
          storageBytes += object.Size ?? 0;
          objects += 1;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    } catch (err) {
      if (err instanceof NoSuchBucket) throw new AppError('NOT_FOUND', `Bucket ${name} not found on the object storage endpoint`);
      throw this.#failure('measure the bucket', err);
    }
    // See the class comment: S3 exposes no per-bucket traffic.
    return { storageBytes, objects, egressBytes: 0, requests: 0, since: since.toISOString(), measuredAt: new Date().toISOString() };
  }

  async issueCredential(label: string, scope: CredentialScope): Promise<IssuedCredential> {
    const policy = credentialPolicy(scope);
    const userName = credentialUserName(label);
    try {
      await this.#iam.send(new CreateUserCommand({ UserName: userName, Path: CREDENTIAL_USER_PATH }));
    } catch (err) {
      throw this.#failure('create the credential', err);
    }
    try {
      // The policy goes on before the key exists, so the key never reaches more than its scope.
      if (policy) await this.#iam.send(new PutUserPolicyCommand({ UserName: userName, PolicyName: CREDENTIAL_POLICY_NAME, PolicyDocument: policy }));
      const created = await this.#iam.send(new CreateAccessKeyCommand({ UserName: userName }));
      const key = created.AccessKey;
      if (!key?.AccessKeyId || !key.SecretAccessKey)
        throw new AppError('UPSTREAM_ERROR', 'The object storage endpoint created an access key without answering it');
      return { accessKeyId: key.AccessKeyId, secretAccessKey: key.SecretAccessKey };
    } catch (err) {
      await this.#removeUser(userName, []).catch((cleanup: unknown) => {
        getLogger().warn(
          { err: this.#failure('remove a half-created credential', cleanup), userName },
          'object storage: a half-created IAM user is left behind',
        );
      });
      throw err instanceof AppError ? err : this.#failure('create the credential', err);
    }
  }

  async rescopeCredential(accessKeyId: string, scope: CredentialScope): Promise<void> {
    const policy = credentialPolicy(scope);
    try {
      const userName = await this.#ownerOf(accessKeyId);
      if (userName === undefined) throw new AppError('NOT_FOUND', `Access key ${accessKeyId} not found on the object storage endpoint`);
      if (policy) {
        await this.#iam.send(new PutUserPolicyCommand({ UserName: userName, PolicyName: CREDENTIAL_POLICY_NAME, PolicyDocument: policy }));
      } else {
        await this.#iam.send(new DeleteUserPolicyCommand({ UserName: userName, PolicyName: CREDENTIAL_POLICY_NAME })).catch(ignore(noSuchEntity));
      }
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (err instanceof NoSuchEntityException) throw new AppError('NOT_FOUND', `Access key ${accessKeyId} not found on the object storage endpoint`);
      throw this.#failure('rescope the credential', err);
    }
  }

  async revokeCredential(accessKeyId: string): Promise<void> {
    try {
      const userName = await this.#ownerOf(accessKeyId);
      if (userName !== undefined) await this.#removeUser(userName, [accessKeyId]);
    } catch (err) {
      throw this.#failure('revoke the credential', err);
    }
  }

  async #applyVersioning(name: string, enabled: boolean): Promise<void> {
    if (!enabled) {
      // A bucket never versioned stays so: suspending would turn on versioning's null-version bookkeeping for nothing.
      const current = await this.#s3.send(new GetBucketVersioningCommand({ Bucket: name }));
      if (current.Status !== 'Enabled') return;
    }
    await this.#s3.send(new PutBucketVersioningCommand({ Bucket: name, VersioningConfiguration: { Status: enabled ? 'Enabled' : 'Suspended' } }));
  }

  async #applyCors(name: string, settings: BucketSettings): Promise<void> {
    if (settings.corsRules.length === 0) {
      await this.#s3.send(new DeleteBucketCorsCommand({ Bucket: name })).catch(ignore(s3Error('NoSuchCORSConfiguration')));
      return;
    }
    await this.#s3.send(
      new PutBucketCorsCommand({
        Bucket: name,
        CORSConfiguration: {
          CORSRules: settings.corsRules.map((rule) => ({
            AllowedOrigins: rule.allowedOrigins,
            AllowedMethods: rule.allowedMethods,
            ...(rule.allowedHeaders?.length && { AllowedHeaders: rule.allowedHeaders }),
            ...(rule.exposeHeaders?.length && { ExposeHeaders: rule.exposeHeaders }),
            ...(rule.maxAgeSeconds !== undefined && { MaxAgeSeconds: rule.maxAgeSeconds }),
          })),
        },
      }),
    );
  }

  /** Public reading and suspension are both statements of the one policy a bucket has. */
  async #applyPolicy(name: string, settings: BucketSettings): Promise<void> {
    const statements: Statement[] = [];
    if (settings.publicAccess) {
      statements.push({ Sid: 'PublicRead', Effect: 'Allow', Principal: { AWS: ['*'] }, Action: ['s3:GetObject'], Resource: [`arn:aws:s3:::${name}/*`] });
    }
    if (settings.suspended) {
      statements.push({
        Sid: 'Suspended',
        Effect: 'Deny',
        // Everyone but the administrator, who must still be able to lift the suspension or delete the bucket.
        NotPrincipal: { AWS: [await this.#administrator()] },
        Action: ['s3:*'],
        Resource: [`arn:aws:s3:::${name}`, `arn:aws:s3:::${name}/*`],
      });
    }
    if (statements.length === 0) {
      await this.#s3.send(new DeleteBucketPolicyCommand({ Bucket: name })).catch(ignore(s3Error('NoSuchBucketPolicy')));
      return;
    }
    await this.#s3.send(new PutBucketPolicyCommand({ Bucket: name, Policy: JSON.stringify({ Version: '2012-10-17', Statement: statements }) }));
  }

  /** The administrator's ARN, asked of IAM once (GetUser without a name describes the caller). */
  #administrator(): Promise<string> {
    this.#adminArn ??= this.#iam.send(new GetUserCommand({})).then((answer) => {
      if (!answer.User?.Arn) throw new AppError('UPSTREAM_ERROR', 'The object storage endpoint did not name its administrator');
      return answer.User.Arn;
    });
    // A failure is not remembered: the next suspension asks again.
    this.#adminArn.catch(() => (this.#adminArn = undefined));
    return this.#adminArn;
  }

  /** Every version and delete marker, in pages of at most DeleteObjects' limit. */
  async #empty(name: string): Promise<void> {
    let keyMarker: string | undefined;
    let versionMarker: string | undefined;
    for (;;) {
      const page = await this.#s3.send(
        new ListObjectVersionsCommand({ Bucket: name, KeyMarker: keyMarker, VersionIdMarker: versionMarker, MaxKeys: DELETE_BATCH }),
      );
      const batch: ObjectIdentifier[] = [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])]
        .filter((entry): entry is typeof entry & { Key: string } => entry.Key !== undefined)
        .map((entry) => ({ Key: entry.Key, ...(entry.VersionId && { VersionId: entry.VersionId }) }));
      for (let start = 0; start < batch.length; start += DELETE_BATCH) {
        const answer = await this.#s3.send(
          new DeleteObjectsCommand({ Bucket: name, Delete: { Objects: batch.slice(start, start + DELETE_BATCH), Quiet: true } }),
        );
        const refused = answer.Errors?.[0];
        if (refused)
          throw new AppError(
            'UPSTREAM_ERROR',
            `The object storage endpoint refused to delete ${refused.Key ?? 'an object'} of ${name}: ${refused.Code ?? 'unknown error'}`,
          );
      }
      if (!page.IsTruncated) return;
      keyMarker = page.NextKeyMarker;
      versionMarker = page.NextVersionIdMarker;
    }
  }

  /** The user owning a key, among the users this adapter made; undefined when no one holds it. */
  async #ownerOf(accessKeyId: string): Promise<string | undefined> {
    let marker: string | undefined;
    do {
      const page = await this.#iam.send(new ListUsersCommand({ PathPrefix: CREDENTIAL_USER_PATH, Marker: marker }));
      for (const user of page.Users ?? []) {
        if (!user.UserName) continue;
        const keys = await this.#iam.send(new ListAccessKeysCommand({ UserName: user.UserName })).catch(ignore(noSuchEntity));
        if (keys?.AccessKeyMetadata?.some((key) => key.AccessKeyId === accessKeyId)) return user.UserName;
      }
      marker = page.IsTruncated ? page.Marker : undefined;
    } while (marker);
    return undefined;
  }

  /** IAM refuses to delete a user holding keys or policies, so they go first; each step tolerates an earlier partial run. */
  async #removeUser(userName: string, keys: string[]): Promise<void> {
    const listed = await this.#iam.send(new ListAccessKeysCommand({ UserName: userName })).catch(ignore(noSuchEntity));
    const all = new Set([...keys, ...(listed?.AccessKeyMetadata ?? []).flatMap((key) => (key.AccessKeyId ? [key.AccessKeyId] : []))]);
    for (const key of all) await this.#iam.send(new DeleteAccessKeyCommand({ UserName: userName, AccessKeyId: key })).catch(ignore(noSuchEntity));
    await this.#iam.send(new DeleteUserPolicyCommand({ UserName: userName, PolicyName: CREDENTIAL_POLICY_NAME })).catch(ignore(noSuchEntity));
    await this.#iam.send(new DeleteUserCommand({ UserName: userName })).catch(ignore(noSuchEntity));
  }

  #failure(action: string, err: unknown): AppError {
    if (err instanceof AppError) return err;
    const redact = (text: string) => text.split(this.#secret).join('[redacted]');
    if (err instanceof S3ServiceException || err instanceof IAMServiceException) {
      const status = err.$metadata.httpStatusCode;
      return new AppError(
        'UPSTREAM_ERROR',
        redact(`The object storage endpoint failed to ${action}: ${err.name}${status ? ` (HTTP ${status})` : ''}: ${err.message}`),
      );
    }
    const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return new AppError('UPSTREAM_ERROR', redact(`The object storage endpoint could not be reached to ${action}: ${reason}`));
  }
}

/** The inline policy a credential's user carries; null when the scope reaches no bucket (IAM refuses an empty policy). */
export function credentialPolicy(scope: CredentialScope): string | null {
  const buckets = scope.buckets ?? scope.projectBuckets;
  buckets.forEach(checkBucketName);
  if (buckets.length === 0) return null;
  const actions = ACTIONS[scope.access];
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      { Sid: 'Buckets', Effect: 'Allow', Action: actions.bucket, Resource: buckets.map((bucket) => `arn:aws:s3:::${bucket}`) },
      { Sid: 'Objects', Effect: 'Allow', Action: actions.object, Resource: buckets.map((bucket) => `arn:aws:s3:::${bucket}/*`) },
    ],
  });
}

/** `os-<label>-<random>`: the label tells a person in the IAM console whose it is, the suffix keeps equal labels apart. */
export function credentialUserName(label: string): string {
  const slug = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `os-${slug || 'credential'}-${randomBytes(6).toString('hex')}`;
}

function checkBucketName(name: string): void {
  if (!BUCKET_NAME.test(name) || name.includes('..')) throw invalidField('name', `${JSON.stringify(name)} is not an S3 bucket name`);
}

const noSuchEntity = (err: unknown) => err instanceof NoSuchEntityException;

/** S3 errors the SDK has no class for arrive under the endpoint's code. */
const s3Error = (code: string) => (err: unknown) => err instanceof S3ServiceException && err.name === code;

/** A rejection handler that treats the upstream error it recognises as "already done". */
function ignore(test: (err: unknown) => boolean): (err: unknown) => undefined {
  return (err) => {
    if (test(err)) return undefined;
    throw err;
  };
}

/**
 * The integrity header every S3 implementation accepts on the bodies that need one (DeleteObjects,
 * PutBucketCors): older MinIO and Ceph want Content-MD5 and ignore the SDK's CRC32. This adapter
 * only ever sends small XML and JSON documents, so hashing them all costs nothing.
 */
function addContentMd5(request: unknown): void {
  if (typeof request !== 'object' || request === null || !('headers' in request) || !('body' in request)) return;
  const { headers, body } = request;
  if (typeof headers !== 'object' || headers === null) return;
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) return;
  Object.assign(headers, { 'content-md5': createHash('md5').update(body).digest('base64') });
}
