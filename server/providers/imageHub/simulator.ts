import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError, notFound } from '../../platform/errors';
import type { ImageHubCredential, ImageHubProvider, ImageHubRepository, ImageHubTag } from './types';

/**
 * The image hub, simulated: a small Docker-Hub style world of users, organisations, repositories
 * and tags, all code constants (nothing in it changes). A user reaches their own namespace and
 * those of their organisations; anyone may read the tags of a public repository, as on the hub.
 */

interface SimulatedUser {
  username: string;
  /** SHA-256 of each access token that signs in as the user; the tokens themselves are not kept. */
  tokenHashes: readonly string[];
  organisations: readonly string[];
}

interface SimulatedRepository extends ImageHubRepository {
  /** Newest first. */
  tags: readonly ImageHubTag[];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The demo account's username and access token, for connecting the hub in a development panel. */
export const SIMULATED_IMAGE_HUB_USER = { username: 'demo', accessToken: 'dckr_pat_demo_simulator' } as const;

const USERS: readonly SimulatedUser[] = [
  { username: SIMULATED_IMAGE_HUB_USER.username, tokenHashes: [sha256(SIMULATED_IMAGE_HUB_USER.accessToken)], organisations: ['acmelabs'] },
  { username: 'globexadmin', tokenHashes: [sha256('dckr_pat_globex_simulator')], organisations: ['globex'] },
];

const MB = 1024 * 1024;

function tag(repository: string, name: string, sizeMb: number, lastUpdated: string): ImageHubTag {
  return { name, size: Math.round(sizeMb * MB), digest: `sha256:${sha256(`${repository}:${name}:${lastUpdated}`)}`, lastUpdated };
}

function repository(
  namespace: string,
  name: string,
  details: { private: boolean; description: string | null; pullCount: number; starCount: number; tags: readonly ImageHubTag[] },
): SimulatedRepository {
  return { namespace, name, ...details, lastUpdated: details.tags[0]?.lastUpdated ?? null };
}

const REPOSITORIES: readonly SimulatedRepository[] = [
  repository('demo', 'hello-node', {
    private: false,
    description: 'A tiny Node.js web server',
    pullCount: 1_284,
    starCount: 3,
    tags: [
      tag('demo/hello-node', 'latest', 48.2, '2025-06-02T09:25:00.000Z'),
      tag('demo/hello-node', '1.0.0', 48.2, '2025-06-02T09:24:00.000Z'),
      tag('demo/hello-node', '0.9.0', 47.9, '2025-05-20T15:00:00.000Z'),
    ],
  }),
  repository('demo', 'private-api', {
    private: true,
    description: 'Internal API, private',
    pullCount: 57,
    starCount: 0,
    tags: [tag('demo/private-api', 'latest', 121.5, '2025-05-30T11:00:00.000Z'), tag('demo/private-api', '2.3.1', 121.5, '2025-05-30T10:58:00.000Z')],
  }),
  repository('demo', 'scratch', { private: false, description: null, pullCount: 0, starCount: 0, tags: [] }),
  repository('acmelabs', 'storefront', {
    private: false,
    description: 'The Acme Labs shop front',
    pullCount: 20_511,
    starCount: 42,
    tags: [
      tag('acmelabs/storefront', 'latest', 210.4, '2025-06-04T08:10:00.000Z'),
      tag('acmelabs/storefront', 'v1.2.0', 210.4, '2025-06-04T08:09:00.000Z'),
      tag('acmelabs/storefront', 'v1.1.0', 205.1, '2025-04-30T10:15:00.000Z'),
    ],
  }),
  repository('acmelabs', 'worker', {
    private: true,
    description: 'Background jobs',
    pullCount: 912,
    starCount: 1,
    tags: [tag('acmelabs/worker', 'latest', 95.7, '2025-05-12T07:30:00.000Z')],
  }),
  repository('globex', 'website', {
    private: false,
    description: 'Globex marketing site',
    pullCount: 3_020,
    starCount: 7,
    tags: [tag('globex/website', 'latest', 32.0, '2025-03-01T10:10:00.000Z')],
  }),
  repository('globex', 'billing', {
    private: true,
    description: null,
    pullCount: 14,
    starCount: 0,
    tags: [tag('globex/billing', 'latest', 150.3, '2025-02-18T16:45:00.000Z')],
  }),
];

export class ImageHubSimulator implements ImageHubProvider {
  readonly kind = 'simulator' as const;
  readonly description = `Simulated image hub: seeded demo repositories (sign in as ${SIMULATED_IMAGE_HUB_USER.username} with the token ${SIMULATED_IMAGE_HUB_USER.accessToken})`;

  async verify(credential: ImageHubCredential): Promise<{ username: string }> {
    return { username: signIn(credential).username };
  }

  async listRepositories(credential: ImageHubCredential): Promise<ImageHubRepository[]> {
    const namespaces = namespacesOf(signIn(credential));
    return REPOSITORIES.filter((repo) => namespaces.includes(repo.namespace))
      .map(withoutTags)
      .sort((a, b) => (b.lastUpdated ?? '').localeCompare(a.lastUpdated ?? '') || `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
  }

  async listTags(credential: ImageHubCredential, namespace: string, repositoryName: string): Promise<ImageHubTag[]> {
    const namespaces = namespacesOf(signIn(credential));
    const found = REPOSITORIES.find((repo) => repo.namespace === namespace.toLowerCase() && repo.name === repositoryName.toLowerCase());
    // A private repository of someone else's answers as one that does not exist, as the hub does.
    if (!found || (found.private && !namespaces.includes(found.namespace))) throw notFound(`Repository ${namespace}/${repositoryName}`);
    return found.tags.map((entry) => ({ ...entry }));
  }
}

/** The user a credential signs in as; IMAGE_HUB_CREDENTIAL_INVALID for a wrong username or token, without saying which. */
function signIn(credential: ImageHubCredential): SimulatedUser {
  const user = USERS.find((candidate) => candidate.username === credential.username.trim().toLowerCase());
  const given = Buffer.from(sha256(credential.accessToken), 'hex');
  const accepted = user?.tokenHashes.some((hash) => timingSafeEqual(Buffer.from(hash, 'hex'), given)) ?? false;
  if (!user || !accepted) throw new AppError('IMAGE_HUB_CREDENTIAL_INVALID', 'The image hub refused the username or access token');
  return user;
}

function namespacesOf(user: SimulatedUser): string[] {
  return [user.username, ...user.organisations];
}

function withoutTags({ tags: _tags, ...repository }: SimulatedRepository): ImageHubRepository {
  return { ...repository };
}
