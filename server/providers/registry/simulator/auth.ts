import type { KeyObject } from 'node:crypto';
import { grantedActions, verifyRegistryToken } from '../jwt';
import type { RouteName } from './routes';

/** One thing a request needs, as Distribution's `auth.Access` (its JSON is the 401 body's detail). */
export interface AccessRecord {
  Type: 'repository' | 'registry';
  Class: '';
  Name: string;
  Action: string;
}

export interface TokenAuthOptions {
  realm: string;
  service: string;
  issuer: string;
  publicKey: KeyObject;
}

export type AuthResult = { authorized: true; subject: string } | { authorized: false; challenge: string };

function repositoryAccess(method: string, repository: string): AccessRecord[] {
  const record = (Action: string): AccessRecord => ({ Type: 'repository', Class: '', Name: repository, Action });
  switch (method) {
    case 'GET':
    case 'HEAD':
      return [record('pull')];
    case 'POST':
    case 'PUT':
    case 'PATCH':
      return [record('pull'), record('push')];
    case 'DELETE':
      return [record('delete')];
    default:
      // Distribution asks nothing more than a valid token of other methods (OPTIONS...).
      return [];
  }
}

/**
 * Distribution's `appendAccessRecords`: what the method needs on the repository of the path, plus
 * pull on `from` whenever the query names one (on any route, not only mounts); the catalog wants
 * `registry:catalog:*`, which our tokens never grant.
 */
export function accessRecords(method: string, routeName: RouteName, repository: string, from: string | null): AccessRecord[] {
  if (routeName === 'catalog') return [{ Type: 'registry', Class: '', Name: 'catalog', Action: '*' }];
  if (routeName === 'base') return [];
  const records = repositoryAccess(method, repository);
  if (from) records.push(...repositoryAccess('GET', from));
  return records;
}

/**
 * The challenge's `scope`: one `type:name:actions` per resource, space separated. Distribution
 * builds it from Go maps, so its order of resources and actions varies between answers; ours is
 * the order the records were added in (`pull,push`), one of the orders 2.8 also sends.
 */
function scopeParam(records: readonly AccessRecord[]): string {
  const resources = new Map<string, string[]>();
  for (const record of records) {
    const key = `${record.Type}:${record.Name}`;
    const actions = resources.get(key) ?? [];
    if (!actions.includes(record.Action)) actions.push(record.Action);
    resources.set(key, actions);
  }
  return [...resources].map(([resource, actions]) => `${resource}:${actions.join(',')}`).join(' ');
}

function challenge(options: TokenAuthOptions, records: readonly AccessRecord[], error: 'invalid_token' | 'insufficient_scope' | null): string {
  let header = `Bearer realm=${JSON.stringify(options.realm)},service=${JSON.stringify(options.service)}`;
  const scope = scopeParam(records);
  if (scope) header += `,scope=${JSON.stringify(scope)}`;
  if (error) header += `,error=${JSON.stringify(error)}`;
  return header;
}

/**
 * Distribution's token access controller: no bearer token → a bare challenge; a token that fails
 * verification → `error="invalid_token"`; a valid token lacking one of the records →
 * `error="insufficient_scope"`. Every refusal is a 401, never a 403.
 */
export function authorize(authorization: string | undefined, records: readonly AccessRecord[], options: TokenAuthOptions): AuthResult {
  const parts = (authorization ?? '').split(' ');
  if (parts.length !== 2 || parts[0]!.toLowerCase() !== 'bearer') {
    return { authorized: false, challenge: challenge(options, records, null) };
  }
  const claims = verifyRegistryToken(parts[1]!, { publicKey: options.publicKey, issuer: options.issuer, service: options.service });
  if (!claims) return { authorized: false, challenge: challenge(options, records, 'invalid_token') };
  for (const record of records) {
    const actions: ReadonlySet<string> = grantedActions(claims, record.Name);
    const granted = record.Type === 'repository' && actions.has(record.Action);
    if (!granted) return { authorized: false, challenge: challenge(options, records, 'insufficient_scope') };
  }
  return { authorized: true, subject: claims.sub };
}
