/**
 * The image hub a project connects (SPEC's `image-hub`, Docker-Hub style): repositories and tags
 * of the customer's account, reached with their username and access token, which every call is
 * given (the provider keeps none).
 *
 * Errors: AppError('IMAGE_HUB_CREDENTIAL_INVALID') when the hub refuses the credential;
 * AppError('NOT_FOUND') for a namespace or repository the credential does not reach;
 * AppError('UPSTREAM_ERROR') when the hub fails. Messages never contain the token.
 */

export interface ImageHubCredential {
  username: string;
  accessToken: string;
}

export interface ImageHubRepository {
  namespace: string;
  name: string;
  private: boolean;
  description: string | null;
  pullCount: number;
  starCount: number;
  /** ISO 8601; null for a repository never pushed to. */
  lastUpdated: string | null;
}

export interface ImageHubTag {
  name: string;
  /** Bytes, summed over the image's layers. */
  size: number;
  digest: string | null;
  lastUpdated: string | null;
}

export interface ImageHubProvider {
  readonly kind: 'simulator' | 'dockerhub';
  readonly description: string;
  /** Checks the credential; IMAGE_HUB_CREDENTIAL_INVALID when refused. Answers the account's username as the hub spells it. */
  verify(credential: ImageHubCredential): Promise<{ username: string }>;
  /** The repositories of the user's namespace and of the organisations the user belongs to, newest first. */
  listRepositories(credential: ImageHubCredential): Promise<ImageHubRepository[]>;
  /** Newest first. */
  listTags(credential: ImageHubCredential, namespace: string, repository: string): Promise<ImageHubTag[]>;
}
