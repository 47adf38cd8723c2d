/**
 * The DNS provider a project connects (SPEC's `dns-provider` integration): zones and records in the
 * customer's own account, reached with the customer's credential, which every call is given (the
 * provider keeps none). The production adapter speaks a Cloudflare-style REST API; the embedded
 * default is a simulator holding zones and records in the database.
 *
 * Errors: AppError('VALIDATION_ERROR') for a record the rules refuse (see records.ts) or the
 * upstream rejects, with the field; AppError('DNS_CREDENTIAL_INVALID') when the credential is
 * refused (revoked, expired, wrong); AppError('NOT_FOUND') for a zone or record the account does
 * not hold; AppError('UPSTREAM_ERROR') when the provider fails or cannot be reached. Messages never
 * contain the credential.
 */

export const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'CAA'] as const;
export type DnsRecordType = (typeof DNS_RECORD_TYPES)[number];

/** What creating or replacing a record sends (SPEC: `{ type, name, content, ttl, proxied, priority? }`). */
export interface DnsRecordInput {
  type: DnsRecordType;
  /** Fully qualified, lower-case, without a trailing dot (`www.example.com`; the apex is the zone's name). */
  name: string;
  content: string;
  /** Seconds; 1 means automatic. */
  ttl: number;
  proxied: boolean;
  /** MX only (required there). */
  priority: number | null;
}

export interface DnsRecord extends DnsRecordInput {
  id: string;
  zoneId: string;
  createdAt: string;
  modifiedAt: string;
}

export interface DnsZone {
  id: string;
  /** The zone apex, lower-case (`example.com`). */
  name: string;
  /** `pending` until the zone's nameservers point at the provider. */
  status: 'active' | 'pending';
}

export interface DnsAccount {
  /** The account the credential reaches, when the provider names it. */
  accountName: string | null;
}

/** The provider's OAuth app, present only when one is configured. */
export interface DnsOAuth {
  /** Where the customer is sent to grant access; `state` and `redirectUri` come back on the callback. */
  authorizeUrl(state: string, redirectUri: string): string;
  /** Trades the callback's code for an access token. DNS_CREDENTIAL_INVALID for a code refused. */
  exchangeCode(code: string, redirectUri: string): Promise<{ accessToken: string }>;
}

export interface DnsProvider {
  readonly kind: 'simulator' | 'cloudflare';
  /** One sentence for /healthz and the panel. */
  readonly description: string;
  readonly oauth: DnsOAuth | null;
  /** Checks a credential and names its account. DNS_CREDENTIAL_INVALID when refused. */
  verifyCredential(credential: string): Promise<DnsAccount>;
  listZones(credential: string): Promise<DnsZone[]>;
  /** The zone's records of the supported types (others are left out), ordered by name then type. */
  listRecords(credential: string, zoneId: string): Promise<DnsRecord[]>;
  createRecord(credential: string, zoneId: string, record: DnsRecordInput): Promise<DnsRecord>;
  /** Replaces every supported field of the record. */
  updateRecord(credential: string, zoneId: string, recordId: string, record: DnsRecordInput): Promise<DnsRecord>;
  /** Permanently removes the record; NOT_FOUND when it is already gone. */
  deleteRecord(credential: string, zoneId: string, recordId: string): Promise<void>;
}
