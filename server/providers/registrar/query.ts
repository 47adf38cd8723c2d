import { domainToASCII } from 'node:url';
import { invalidField } from '../../platform/errors';
import { REGISTRAR_TLDS, type RegistrarTld } from './types';

/** What a search query asks for: one label, under every TLD offered or under the one it names. */
export interface DomainQuery {
  /** Lower-case ASCII, punycode for an IDN. */
  label: string;
  tld: RegistrarTld | null;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** ASCII that has no place in a host name: the URL parser behind domainToASCII would cut the input at `/?#\` or decode `%`. */
const FOREIGN_ASCII = /[^A-Za-z0-9.\-\u0080-\u{10FFFF}]/u;
const MAX_NAME_LENGTH = 253;

/**
 * Reads a search query the way registrars do: IDN input becomes punycode (UTS #46, as browsers
 * map it), case is folded, one trailing dot is dropped. VALIDATION_ERROR on `query` otherwise.
 */
export function parseDomainQuery(query: string): DomainQuery {
  const trimmed = query.trim().replace(/\.$/, '');
  if (!trimmed) throw invalidField('query', 'Enter a name to search for');
  const ascii = trimmed.length <= MAX_NAME_LENGTH && !FOREIGN_ASCII.test(trimmed) ? domainToASCII(trimmed).toLowerCase() : '';
  if (!ascii || ascii.length > MAX_NAME_LENGTH) {
    throw invalidField('query', 'Not a domain name: use letters, digits and hyphens, e.g. acme or acme.com');
  }
  const labels = ascii.split('.');
  if (!labels.every((label) => LABEL.test(label))) {
    throw invalidField('query', 'Each part of a name is 1–63 letters, digits or hyphens, and neither starts nor ends with a hyphen');
  }
  const [label = '', tld, ...rest] = labels;
  if (tld === undefined) return { label, tld: null };
  const offered = REGISTRAR_TLDS.find((t) => t === tld);
  if (rest.length || !offered) {
    throw invalidField(
      'query',
      rest.length
        ? 'Search for a name you can register, one label and its TLD (acme.com), not a subdomain'
        : `.${tld} is not offered; search a name alone or under ${REGISTRAR_TLDS.map((t) => `.${t}`).join(', ')}`,
    );
  }
  return { label, tld: offered };
}
