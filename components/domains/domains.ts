import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/app';
import type { DnsLookupError } from '@/server/platform/dnsLookup';
import { projectPath } from '../projects/areas';

type Outputs = inferRouterOutputs<AppRouter>;
export type Domain = Outputs['domains']['list'][number];
export type CreatedDomain = Outputs['domains']['add'];
export type DomainVerification = Outputs['domains']['verify'];
export type DomainCheck = DomainVerification['check'];
export type DomainCandidate = Outputs['domains']['search'][number];

/** The domain page's query marker saying auto-DNS created the verification record when the domain was added. */
export const AUTO_DNS_CREATED_MARKER = 'auto-dns';

export function domainPath(projectId: string, domainName: string): string {
  return projectPath(projectId, `domains/${encodeURIComponent(domainName)}`);
}

const LOOKUP_ERRORS: Record<DnsLookupError, string> = {
  NXDOMAIN: 'the name does not exist yet: nothing is published under it, or the nameservers have not caught up',
  NODATA: 'the name exists but holds no TXT record',
  TIMEOUT: 'no nameserver answered in time',
  SERVFAIL: 'the domain’s nameserver failed to answer',
  REFUSED: 'the nameserver refused to answer',
  FORMERR: 'the nameserver could not read the question',
  CONNREFUSED: 'nothing answered at the nameserver’s address',
  BADNAME: 'the name cannot be looked up',
  LOOKUP_FAILED: 'the lookup failed',
};

/** Why a check found nothing, in words; the API's code is kept beside it for anyone who searches for it. */
export function lookupErrorInWords(error: string): string {
  return error in LOOKUP_ERRORS ? LOOKUP_ERRORS[error as DnsLookupError] : `the lookup failed (${error})`;
}
