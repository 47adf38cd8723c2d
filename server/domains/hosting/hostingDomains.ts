import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { domainToASCII } from 'node:url';
import { and, asc, eq, isNull } from 'drizzle-orm';
import { getDomain } from 'tldts';
import { getDb } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { hostingDomains, type HostingDomainKind } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { getConfig } from '../../platform/config';
import { resolveConfined } from '../../platform/confinedPath';
import { lookupA, lookupCname, lookupTxt } from '../../platform/dnsLookup';
import { AppError } from '../../platform/errors';
import { emit } from '../../platform/events';
import { siteHome, siteHostname } from './paths';
import type { HostingDomainView } from './schema';
import { applyServing, DEFAULT_DOCUMENT_ROOT } from './serving';
import type { SiteRow } from './sites';
import { TIER_LIMITS } from './tiers';

type DomainRow = typeof hostingDomains.$inferSelect;

export const OWNERSHIP_LABEL = '_panel-site-verify';

/** What a domain is asked to do: the whole behaviour, as attach and replace take it. */
export interface DomainBehaviour {
  kind?: HostingDomainKind;
  path?: string;
  redirectTarget?: string;
  redirectStatus?: number;
}

export interface DnsInstructions {
  recordType: 'A' | 'CNAME';
  name: string;
  value: string;
  ownershipVerification: { type: 'TXT'; name: string; value: string };
}

/** The hostname as attached: lower-case ASCII (punycode), without a trailing dot; 400 when it cannot be one. */
export function normalizeHostname(input: string): string {
  const ascii = domainToASCII(input.trim().replace(/\.$/, '').toLowerCase());
  const labels = ascii.split('.');
  const valid =
    ascii.length > 0 &&
    ascii.length <= 253 &&
    labels.length >= 2 &&
    labels.every((label) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(label)) &&
    !/^\d+$/.test(labels[labels.length - 1]!);
  if (!valid) throw new AppError('BAD_REQUEST', `"${input}" is not a hostname such as example.com or www.example.com`);
  return ascii;
}

/**
 * Checks a behaviour against SPEC's rules and settles its defaults: SITE (default) may take a
 * `path`; REDIRECT needs a full http(s) `redirectTarget` without a query and may take
 * `redirectStatus` 301 (default) or 302; PARKED takes nothing. A field of another kind is 400.
 */
export function settleBehaviour(behaviour: DomainBehaviour): {
  kind: HostingDomainKind;
  path: string | null;
  redirectTarget: string | null;
  redirectStatus: 301 | 302 | null;
} {
  const kind = behaviour.kind ?? 'SITE';
  const foreign = (field: string) => new AppError('BAD_REQUEST', `${field} does not apply to a ${kind} domain`);
  if (kind !== 'SITE' && behaviour.path !== undefined) throw foreign('path');
  if (kind !== 'REDIRECT' && behaviour.redirectTarget !== undefined) throw foreign('redirectTarget');
  if (kind !== 'REDIRECT' && behaviour.redirectStatus !== undefined) throw foreign('redirectStatus');
  if (kind === 'REDIRECT') {
    if (!behaviour.redirectTarget) throw new AppError('BAD_REQUEST', 'redirectTarget is required for a REDIRECT domain');
    const status = behaviour.redirectStatus ?? 301;
    if (status !== 301 && status !== 302) throw new AppError('BAD_REQUEST', 'redirectStatus is 301 or 302');
    return { kind, path: null, redirectTarget: redirectTargetOf(behaviour.redirectTarget), redirectStatus: status };
  }
  return { kind, path: kind === 'SITE' ? (behaviour.path ?? null) : null, redirectTarget: null, redirectStatus: null };
}

function redirectTargetOf(target: string): string {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new AppError('BAD_REQUEST', 'redirectTarget is a full address such as https://example.com/new');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError('BAD_REQUEST', 'redirectTarget is an http:// or https:// address');
  if (url.search || target.includes('?')) throw new AppError('BAD_REQUEST', 'redirectTarget takes no query string: the requested path and query are appended');
  if (url.hash || url.username || url.password) throw new AppError('BAD_REQUEST', 'redirectTarget takes no fragment nor credentials');
  return url.toString().replace(/\/$/, '');
}

export async function listDomains(site: SiteRow): Promise<HostingDomainView[]> {
  const rows = await liveDomainsOf(site.id);
  const refreshed = await Promise.all(rows.map((row) => (row.routingStatus === 'VERIFYING' ? refreshRouting(site, row) : row)));
  return refreshed.map((row) => toView(site, row));
}

/**
 * Attaches a hostname. 400 when it is under the platform's own domain, when the tier's domain
 * limit is reached, or when a rule of its kind is broken; 409 when any site has it. A SITE domain
 * is served from `path`, else `<hostname>/public_html`, or, for a subdomain of a domain the site
 * has, a folder inside that domain's folder; the folder is made when missing.
 */
export async function attachDomain(site: SiteRow, input: DomainBehaviour & { hostname: string }, actorUserId: string) {
  const hostname = normalizeHostname(input.hostname);
  assertNotPlatformHost(hostname);
  const behaviour = settleBehaviour(input);
  const domains = await liveDomainsOf(site.id);
  const limit = TIER_LIMITS[site.tier].domains;
  if (domains.length >= limit) throw new AppError('BAD_REQUEST', `The ${site.tier} tier allows ${limit} domains per site; detach one or change the tier`);
  const documentRoot = behaviour.kind === 'SITE' ? await prepareFolder(site, behaviour.path ?? defaultFolder(hostname, domains)) : null;
  const id = newId('hdom');
  const token = randomBytes(16).toString('hex');
  const db = await getDb();
  let row: DomainRow;
  try {
    row = await db.transaction(async (tx) => {
      const [inserted] = await tx
        .insert(hostingDomains)
        .values({
          id,
          siteId: site.id,
          hostname,
          kind: behaviour.kind,
          documentRoot,
          redirectTarget: behaviour.redirectTarget,
          redirectStatus: behaviour.redirectStatus,
          routingStatus: 'VERIFYING',
          verificationToken: token,
        })
        .returning();
      await emit(tx, site.projectId, 'hosting_domain.attached', { tenantId: site.id, domainId: id, hostname, kind: behaviour.kind, by: actorUserId });
      return inserted!;
    });
  } catch (err) {
    if (isUniqueViolation(err, 'hosting_domains_live_hostname_key')) throw new AppError('CONFLICT', `${hostname} is already attached to a site`);
    throw err;
  }
  await applyServing(site);
  return { domainId: row.id, hostname, instructions: instructionsFor(site, row) };
}

/** Replaces a domain's whole behaviour (what is not sent takes its default); DNS and certificate stay. */
export async function replaceDomain(site: SiteRow, domainId: string, input: DomainBehaviour, actorUserId: string) {
  const row = await liveDomain(site, domainId);
  const behaviour = settleBehaviour(input);
  const others = (await liveDomainsOf(site.id)).filter((domain) => domain.id !== row.id);
  const documentRoot = behaviour.kind === 'SITE' ? await prepareFolder(site, behaviour.path ?? defaultFolder(row.hostname, others)) : null;
  const db = await getDb();
  const saved = await db.transaction(async (tx) => {
    const [updated] = await tx
      .update(hostingDomains)
      .set({ kind: behaviour.kind, documentRoot, redirectTarget: behaviour.redirectTarget, redirectStatus: behaviour.redirectStatus })
      .where(eq(hostingDomains.id, row.id))
      .returning();
    await emit(tx, site.projectId, 'hosting_domain.updated', { tenantId: site.id, domainId, hostname: row.hostname, kind: behaviour.kind, by: actorUserId });
    return updated!;
  });
  await applyServing(site);
  return toView(site, saved);
}

/** The hostname stops pointing at the site; its folder and files stay. */
export async function detachDomain(site: SiteRow, domainId: string, actorUserId: string): Promise<void> {
  const row = await liveDomain(site, domainId);
  const db = await getDb();
  await db.transaction(async (tx) => {
    await tx.update(hostingDomains).set({ deletedAt: new Date() }).where(eq(hostingDomains.id, row.id));
    await emit(tx, site.projectId, 'hosting_domain.detached', { tenantId: site.id, domainId, hostname: row.hostname, by: actorUserId });
  });
  await applyServing(site);
}

function assertNotPlatformHost(hostname: string): void {
  const platform = getConfig().HOSTING_PLATFORM_DOMAIN;
  if (hostname === platform || hostname.endsWith(`.${platform}`)) {
    throw new AppError('BAD_REQUEST', `${hostname} is under ${platform}, the sites' own addresses; attach a domain of yours`);
  }
}

/** `<hostname>/public_html`, or for a subdomain of an attached domain `<that domain>/<sub labels>/public_html`. */
export function defaultFolder(hostname: string, domains: readonly Pick<DomainRow, 'hostname'>[]): string {
  const parent = domains
    .map((domain) => domain.hostname)
    .filter((candidate) => hostname.endsWith(`.${candidate}`))
    .sort((a, b) => b.length - a.length)[0];
  if (!parent) return `${hostname}/${DEFAULT_DOCUMENT_ROOT}`;
  return `${parent}/${hostname.slice(0, -(parent.length + 1))}/${DEFAULT_DOCUMENT_ROOT}`;
}

async function prepareFolder(site: SiteRow, folder: string): Promise<string> {
  const home = siteHome(site.siteName);
  const absolute = await resolveConfined(home, folder, {});
  await mkdir(absolute, { recursive: true, mode: 0o755 });
  // Made: resolved again so that a symlink raced into the chain is caught.
  await resolveConfined(home, folder, { mustExist: true });
  return folder;
}

function instructionsFor(site: SiteRow, row: DomainRow): DnsInstructions {
  const apex = getDomain(row.hostname) === row.hostname;
  return {
    recordType: apex ? 'A' : 'CNAME',
    name: row.hostname,
    value: apex ? getConfig().HOSTING_PUBLIC_IPV4 : siteHostname(site.siteName),
    ownershipVerification: { type: 'TXT', name: `${OWNERSHIP_LABEL}.${row.hostname}`, value: row.verificationToken },
  };
}

/**
 * VERIFYING becomes ACTIVE once the ownership TXT record and the routing record are in place; the
 * simulated issuer then issues the certificate at once.
 */
async function refreshRouting(site: SiteRow, row: DomainRow): Promise<DomainRow> {
  const expected = instructionsFor(site, row);
  const [txt, routing] = await Promise.all([
    lookupTxt(expected.ownershipVerification.name),
    expected.recordType === 'A' ? lookupA(row.hostname) : lookupCname(row.hostname),
  ]);
  if (!txt.found.includes(expected.ownershipVerification.value) || !routing.found.includes(expected.value)) return row;
  const db = await getDb();
  const now = new Date();
  const [saved] = await db
    .update(hostingDomains)
    .set({ routingStatus: 'ACTIVE', certificateIssuedAt: now })
    .where(and(eq(hostingDomains.id, row.id), eq(hostingDomains.routingStatus, 'VERIFYING')))
    .returning();
  return saved ?? row;
}

async function liveDomainsOf(siteId: string): Promise<DomainRow[]> {
  const db = await getDb();
  return db
    .select()
    .from(hostingDomains)
    .where(and(eq(hostingDomains.siteId, siteId), isNull(hostingDomains.deletedAt)))
    .orderBy(asc(hostingDomains.createdAt), asc(hostingDomains.hostname));
}

async function liveDomain(site: SiteRow, domainId: string): Promise<DomainRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(hostingDomains)
    .where(and(eq(hostingDomains.id, domainId), eq(hostingDomains.siteId, site.id), isNull(hostingDomains.deletedAt)));
  if (!row) throw new AppError('NOT_FOUND', 'Domain not found');
  return row;
}

function toView(site: SiteRow, row: DomainRow): HostingDomainView {
  return {
    id: row.id,
    tenantId: site.id,
    hostname: row.hostname,
    kind: row.kind,
    documentRoot: row.kind === 'SITE' ? row.documentRoot : null,
    redirectTarget: row.redirectTarget,
    redirectStatus: row.redirectStatus === 302 ? 302 : row.redirectStatus === 301 ? 301 : null,
    status: 'ACTIVE',
    routingStatus: row.routingStatus,
    instructions: instructionsFor(site, row),
    createdAt: row.createdAt.toISOString(),
  };
}
