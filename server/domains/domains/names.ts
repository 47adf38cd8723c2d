import { domainToASCII } from 'node:url';
import { parse } from 'tldts';
import { invalidField } from '../../platform/errors';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A domain name as the platform stores it: lower-case ASCII (an IDN in punycode), no trailing
 * dot, every label a valid hostname label, under a real top-level domain, and registrable or under
 * a registrable domain (a public suffix such as `co.uk` alone is not a domain anyone owns).
 * Anything else is a 422 on `field` saying which rule it broke.
 */
export function normaliseDomainName(input: string, field = 'name'): string {
  const trimmed = input.trim().replace(/\.$/, '');
  if (!trimmed) throw invalidField(field, 'a domain name is required');
  const ascii = domainToASCII(trimmed.toLowerCase());
  if (!ascii) throw invalidField(field, `"${input}" is not a valid domain name`);
  if (ascii.length > 253) throw invalidField(field, 'a domain name is at most 253 characters');
  const labels = ascii.split('.');
  if (labels.length < 2) throw invalidField(field, 'a domain name has at least two labels, such as example.com');
  const bad = labels.find((label) => !LABEL.test(label));
  if (bad !== undefined) {
    throw invalidField(field, `"${bad}" is not a valid label: 1–63 letters, digits and hyphens, not starting or ending with a hyphen`);
  }
  const parsed = parse(ascii);
  if (parsed.isIp) throw invalidField(field, 'an IP address is not a domain name');
  if (!parsed.isIcann) throw invalidField(field, `.${labels.at(-1)} is not a top-level domain`);
  if (!parsed.domain) throw invalidField(field, `${ascii} is a public suffix, not a domain anyone registers; add a name under it`);
  return ascii;
}
