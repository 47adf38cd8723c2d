/**
 * The S3-compatible endpoint that object-storage buckets live on, and the credentials (access keys)
 * that reach them. The production adapter speaks the S3 API (`@aws-sdk/client-s3`) and the IAM API
 * of the same endpoint (MinIO, Ceph RGW, a cloud S3); the embedded default runs s3rver on loopback
 * behind a gateway of ours that checks SigV4 signatures and credential scopes and meters traffic.
 *
 * Bucket names are the endpoint's own, global names (S3 rules: 3–63 characters, lower-case letters,
 * digits, hyphens, dots). Errors: AppError('UPSTREAM_ERROR') when the endpoint fails or cannot be
 * reached; AppError('NOT_FOUND') for a bucket or credential it does not know where noted; messages
 * never contain a secret key.
 */

export const CORS_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'] as const;
export type CorsMethod = (typeof CORS_METHODS)[number];

/** SPEC's CORS rule. */
export interface CorsRule {
  allowedOrigins: string[];
  allowedMethods: CorsMethod[];
  allowedHeaders?: string[];
  exposeHeaders?: string[];
  maxAgeSeconds?: number;
}

/** What a bucket is configured with; applied whole, so a retry converges. */
export interface BucketSettings {
  /** Anonymous GET and HEAD of objects (a public-read bucket policy). */
  publicAccess: boolean;
  versioning: boolean;
  corsRules: CorsRule[];
  /** Suspended buckets refuse every request except deletion by the platform. */
  suspended: boolean;
}

export interface ObjectStorageEndpoint {
  /** What S3 clients are given as `endpoint_url`, e.g. `http://127.0.0.1:4569` or `https://s3.fra1.example.com`. */
  url: string;
  /** The SigV4 signing region. */
  region: string;
  /** Whether clients must address buckets in the path (`/bucket/key`) rather than as a subdomain. */
  pathStyle: boolean;
  /** True for the embedded endpoint: a development server, not for production data. */
  development: boolean;
}

export interface BucketUsage {
  storageBytes: number;
  objects: number;
  /** Bytes sent to clients since `since`. */
  egressBytes: number;
  /** Requests answered since `since`. */
  requests: number;
  /** The start of the period the traffic figures count from (the start of the billing month). */
  since: string;
  /** When the figures were measured. */
  measuredAt: string;
}

/** What a credential may do on the buckets it reaches. */
export const CREDENTIAL_ACCESS = ['read', 'write', 'full'] as const;
export type CredentialAccess = (typeof CREDENTIAL_ACCESS)[number];

export interface CredentialScope {
  /** The bucket names it reaches; null reaches every bucket of the project (`projectBuckets`). */
  buckets: string[] | null;
  /** The project's bucket names at the time, which a project-wide credential reaches. */
  projectBuckets: string[];
  access: CredentialAccess;
}

export interface IssuedCredential {
  accessKeyId: string;
  /** Returned once: the caller shows it and keeps only a sealed copy if it must. */
  secretAccessKey: string;
}

export interface ObjectStorageProvider {
  readonly kind: 'embedded' | 's3';
  /** One sentence for /healthz and the panel. */
  readonly description: string;
  endpoint(region: string): ObjectStorageEndpoint;
  /** Creates the bucket (succeeds when it exists already and is ours) and applies the settings. */
  createBucket(name: string, region: string, settings: BucketSettings): Promise<void>;
  applySettings(name: string, settings: BucketSettings): Promise<void>;
  /** Removes every object (and version) and the bucket; succeeds for a bucket already gone. */
  deleteBucket(name: string): Promise<void>;
  usage(name: string, since: Date): Promise<BucketUsage>;
  /** A new access key limited to the scope. */
  issueCredential(label: string, scope: CredentialScope): Promise<IssuedCredential>;
  /** Changes what an existing key reaches; NOT_FOUND for an unknown key. */
  rescopeCredential(accessKeyId: string, scope: CredentialScope): Promise<void>;
  /** Revokes the key; succeeds for a key already gone. */
  revokeCredential(accessKeyId: string): Promise<void>;
}
