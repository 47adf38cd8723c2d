/**
 * The domain registrar that domain search asks: which names can be registered and at what price.
 * The embedded default is a simulator; no production adapter exists yet.
 *
 * Errors: AppError('VALIDATION_ERROR') on the field `query` for a query that names no registrable
 * domain (see query.ts); AppError('UPSTREAM_ERROR') when the registrar fails or cannot be reached.
 */

/** The TLDs a bare label is searched under, in the order candidates are listed. */
export const REGISTRAR_TLDS = ['com', 'net', 'org', 'io', 'dev', 'app'] as const;
export type RegistrarTld = (typeof REGISTRAR_TLDS)[number];

export interface DomainCandidate {
  /** Lower-case ASCII (IDNs in punycode), without a trailing dot: `example.com`. */
  name: string;
  available: boolean;
  /** Registration price for one year, in minor units. */
  priceYearly: number;
  /** Lower-case ISO 4217. */
  currency: string;
  /** Sold by the registry at a premium price rather than the TLD's list price. */
  premium: boolean;
}

export interface RegistrarProvider {
  readonly kind: 'simulator';
  /** One sentence for /healthz and the panel. */
  readonly description: string;
  /**
   * Candidates for a query: a bare label (`acme`) under every TLD of REGISTRAR_TLDS, or exactly the
   * name asked (`acme.io`) when the query has a TLD. IDN input is searched in punycode.
   */
  searchDomains(query: string): Promise<DomainCandidate[]>;
}
