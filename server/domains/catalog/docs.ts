import { INFRA_PROVIDER_NAME } from '../../../db/schema/servers';
import { CATALOG_CACHE_CONTROL, CATALOG_TTL_SECONDS } from './service';

export const SERVER_SIZES =
  'Server sizes with monthly and hourly prices in minor units, vCPUs, memory, disk, included transfer and the regions where each is sold; cheapest first.';
export const SERVER_REGIONS = 'Server regions with their country, availability and the sizes sold there.';
export const ONE_CLICKS = 'One-click applications a server can be built from, with the disk each needs.';
export const APP_SIZES = 'App instance sizes with monthly and hourly prices in minor units; cheapest first.';
export const APP_REGIONS = 'Regions where apps can be deployed.';

const CACHING = `Identical for every caller and cached for ${CATALOG_TTL_SECONDS / 60} minutes (\`Cache-Control: ${CATALOG_CACHE_CONTROL}\`).`;
const servedTwice = (path: string) => `The same list is served at \`/catalog/${path}\` and \`/${INFRA_PROVIDER_NAME}/${path}\`.`;
const PUBLIC = 'Public: no credential needed.';
const ANY_CREDENTIAL = 'Any valid credential reads it: a session, or an API key whatever its scopes.';

export function catalogDescription(description: string, path: string, isPublic: boolean): string {
  return [description, CACHING, servedTwice(path), isPublic ? PUBLIC : ANY_CREDENTIAL].join(' ');
}
