/**
 * Distribution's URL space: the same regular expressions its router (gorilla/mux over
 * `reference.NameRegexp`, `TagRegexp` and `DigestRegexp`) matches paths with, so a path that 2.8
 * would not route (an upper-case repository, a malformed digest) is a plain 404 here too.
 */

const alphaNumeric = '[a-z0-9]+';
// Distribution writes the separator `(?:[._]|__|[-]*)`; its empty alternative only joins two runs
// of letters, which `[a-z0-9]+` already does. Go's regexp engine is linear, but in JavaScript's
// backtracking one that ambiguity is exponential on a path that fails to match, so `-+` it is: the
// same language.
const separator = '(?:[._]|__|-+)';
const nameComponent = `${alphaNumeric}(?:${separator}${alphaNumeric})*`;
// Distribution lets the first component be a registry host (upper case, dots, a port): it is a
// valid repository name for 2.8 even though our names never use it.
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const domain = `${domainComponent}(?:\\.${domainComponent})*(?::[0-9]+)?`;
const NAME = `(?:${domain}/)?${nameComponent}(?:/${nameComponent})*`;
const TAG = '[\\w][\\w.-]{0,127}';
const ROUTE_DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';
const UUID = '[a-zA-Z0-9_.=-]+';

/** Distribution refuses longer names (reference.NameTotalLengthMax). */
export const NAME_TOTAL_LENGTH_MAX = 255;

export type RouteName = 'base' | 'tags' | 'manifest' | 'blob' | 'blob-upload' | 'blob-upload-chunk' | 'catalog';

export interface Route {
  name: RouteName;
  /** The repository; '' on the base and catalog routes. */
  repository: string;
  /** The manifest reference, blob digest or upload id, as the path spells it. */
  reference: string;
}

interface RouteDefinition {
  name: RouteName;
  /** Whether Distribution's path template ends in a slash. */
  trailingSlash: boolean;
  pattern: RegExp;
}

// The router's order: the first route whose pattern matches wins. `[/]?` is mux's StrictSlash,
// which matches either spelling and redirects to the template's.
const DEFINITIONS: RouteDefinition[] = [
  { name: 'base', trailingSlash: true, pattern: /^\/v2[/]?$/ },
  { name: 'tags', trailingSlash: false, pattern: new RegExp(`^/v2/(${NAME})/tags/list[/]?$`) },
  { name: 'manifest', trailingSlash: false, pattern: new RegExp(`^/v2/(${NAME})/manifests/(${TAG}|${ROUTE_DIGEST})[/]?$`) },
  { name: 'blob', trailingSlash: false, pattern: new RegExp(`^/v2/(${NAME})/blobs/(${ROUTE_DIGEST})[/]?$`) },
  { name: 'blob-upload', trailingSlash: true, pattern: new RegExp(`^/v2/(${NAME})/blobs/uploads[/]?$`) },
  { name: 'blob-upload-chunk', trailingSlash: false, pattern: new RegExp(`^/v2/(${NAME})/blobs/uploads/(${UUID})[/]?$`) },
  { name: 'catalog', trailingSlash: false, pattern: /^\/v2\/_catalog[/]?$/ },
];

export type RouteMatch = { route: Route } | { redirect: string } | null;

/** The route of a path, a StrictSlash redirect to its canonical spelling, or null (404). */
export function matchRoute(pathname: string, search: string): RouteMatch {
  for (const definition of DEFINITIONS) {
    const match = definition.pattern.exec(pathname);
    if (!match) continue;
    if (pathname.endsWith('/') !== definition.trailingSlash) {
      const canonical = definition.trailingSlash ? `${pathname}/` : pathname.slice(0, -1);
      return { redirect: `${canonical}${search}` };
    }
    return { route: { name: definition.name, repository: match[1] ?? '', reference: match[2] ?? '' } };
  }
  return null;
}

/** What `reference.WithName` accepts: the router's pattern already held, so only the length is left. */
export function nameTooLong(repository: string): boolean {
  return repository.length > NAME_TOTAL_LENGTH_MAX;
}

/** Go's `reference.WithName`, for names that did not come through the router (`from` of a mount). */
const ANCHORED_NAME = new RegExp(`^${NAME}$`);

export function validName(repository: string): boolean {
  return !nameTooLong(repository) && ANCHORED_NAME.test(repository);
}

/** How go-digest's `Parse` judges a digest: the reason it refuses one, or null when it is valid. */
export type DigestProblem = 'format' | 'unsupported' | 'length';

const DIGEST_HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

export function digestProblem(digest: string): DigestProblem | null {
  const colon = digest.indexOf(':');
  if (colon < 0 || colon + 1 === digest.length || !/^[a-zA-Z0-9_+.-]+:[a-fA-F0-9]+$/.test(digest)) return 'format';
  const expected = DIGEST_HEX_LENGTH[digest.slice(0, colon)];
  if (expected === undefined) return 'unsupported';
  return digest.length - colon - 1 === expected ? null : 'length';
}

export function digestAlgorithm(digest: string): 'sha256' | 'sha384' | 'sha512' {
  return digest.slice(0, digest.indexOf(':')) as 'sha256' | 'sha384' | 'sha512';
}
