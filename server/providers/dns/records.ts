import { z } from 'zod';
import { invalidField } from '../../platform/errors';
import { DNS_RECORD_TYPES, type DnsRecordInput, type DnsRecordType } from './types';

/**
 * The record rules of SPEC's `dns-provider` integration, shared by the API, the panel's forms and
 * the simulator. Each broken rule is an issue on the field it concerns, worded after the rule.
 */

export const TTL_AUTOMATIC = 1;
export const TTL_MIN_SECONDS = 60;
export const TTL_MAX_SECONDS = 86_400;
export const TXT_MAX_CHARACTERS = 2048;
export const PROXIABLE_TYPES: readonly DnsRecordType[] = ['A', 'AAAA', 'CNAME'];
export const CAA_TAGS = ['issue', 'issuewild', 'iodef'] as const;

/** The longest domain name that fits the wire format, written without its final dot. */
const MAX_NAME_LENGTH = 253;
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
/** C0 controls, DEL and C1 controls: what cannot be shown as text. */
const CONTROL_CHARACTER = /\p{Cc}/u;
const UINT16 = /^\d{1,5}$/;

/**
 * The fields of a record body one by one. An API operation takes these beside its path parameters
 * and then checks the whole body with `dnsRecordInputSchema`, whose rules span fields.
 */
export const dnsRecordFieldsSchema = z.object({
  type: z.enum(DNS_RECORD_TYPES, { error: `type must be one of ${DNS_RECORD_TYPES.join(', ')}` }),
  name: z
    .string()
    .trim()
    .min(1, 'name is required: @ for the zone apex, a label such as www, or a name inside the zone')
    .refine(isRecordName, 'name must be @ or a domain name of letters, digits, hyphens and underscores (a * as the first label)'),
  content: z.string().min(1, 'content is required'),
  ttl: z
    .number()
    .int('ttl must be a whole number of seconds')
    .refine(
      (ttl) => ttl === TTL_AUTOMATIC || (ttl >= TTL_MIN_SECONDS && ttl <= TTL_MAX_SECONDS),
      `ttl must be 1 (automatic) or ${TTL_MIN_SECONDS} to ${TTL_MAX_SECONDS} seconds`,
    ),
  proxied: z.boolean(),
  priority: z.number().int('priority must be a whole number').nullish(),
});

/**
 * A record as the API and the forms take it, with every rule of SPEC. `name` comes out lower-case
 * but as written (`@`, `www`, or a full name): `recordInZone` makes it fully qualified once the zone
 * is known.
 */
export const dnsRecordInputSchema = dnsRecordFieldsSchema
  .superRefine((record, ctx) => {
    const issue = (path: keyof DnsRecordInput, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (record.proxied && !PROXIABLE_TYPES.includes(record.type)) issue('proxied', 'proxied applies only to A, AAAA and CNAME records');
    else if (record.proxied && record.ttl !== TTL_AUTOMATIC) issue('proxied', 'proxied needs ttl 1 (automatic)');
    const priority = record.priority ?? null;
    if (record.type === 'MX') {
      if (priority === null) issue('priority', 'MX records need a priority from 0 to 65535');
      else if (priority < 0 || priority > 65_535) issue('priority', 'priority must be from 0 to 65535');
    } else if (priority !== null) {
      issue('priority', 'priority applies only to MX records (an SRV record carries its own in content)');
    }
    if (record.type === 'CNAME' && record.name === '@') issue('name', 'a CNAME record cannot be at the zone apex');
    const contentProblem = contentProblemOf(record.type, record.content);
    if (contentProblem) issue('content', contentProblem);
  })
  .transform((record): DnsRecordInput => ({
    type: record.type,
    name: record.name.toLowerCase(),
    content: normalizeContent(record.type, record.content),
    ttl: record.ttl,
    proxied: record.proxied,
    priority: record.priority ?? null,
  }));

/** What `dnsRecordInputSchema` accepts: the API's body and the forms' values. */
export type DnsRecordBody = z.input<typeof dnsRecordInputSchema>;

/**
 * The fully qualified name a record's `name` stands for in the zone: `@` or the zone's own name is
 * the apex, a relative name (`www`, `_dmarc`, `_sip._tcp`) gets the zone appended, and a fully
 * qualified name must be the zone or inside it. A name is taken as fully qualified when it ends in
 * a dot or in the zone's top-level label (`www.other.com` in `example.com`), since nobody means a
 * name such as `www.other.com.example.com`. Lower-case, without the final dot; VALIDATION_ERROR on
 * `name` otherwise.
 */
export function recordNameInZone(name: string, zoneName: string): string {
  const zone = withoutFinalDot(zoneName.trim().toLowerCase());
  const given = name.trim().toLowerCase();
  if (given === '@' || withoutFinalDot(given) === zone) return zone;
  if (!isRecordName(given)) throw invalidField('name', 'name must be @ or a domain name of letters, digits, hyphens and underscores (a * as the first label)');
  const bare = withoutFinalDot(given);
  if (bare.endsWith(`.${zone}`)) return bare;
  if (given.endsWith('.') || topLabel(bare) === topLabel(zone)) throw invalidField('name', `name must be the zone ${zone} or a name inside it`);
  const full = `${bare}.${zone}`;
  if (full.length > MAX_NAME_LENGTH) throw invalidField('name', `name must be at most ${MAX_NAME_LENGTH} characters with the zone appended`);
  return full;
}

/**
 * A record as it is stored in the zone: its name fully qualified, and the rules that depend on the
 * zone checked (a CNAME cannot sit at the apex, whatever way the apex was written).
 */
export function recordInZone(record: DnsRecordInput, zoneName: string): DnsRecordInput {
  const name = recordNameInZone(record.name, zoneName);
  if (record.type === 'CNAME' && name === recordNameInZone('@', zoneName)) throw invalidField('name', 'a CNAME record cannot be at the zone apex');
  return { ...record, name };
}

/** Whether `value` is a host name: dot-separated labels of letters, digits, hyphens and underscores, a final dot allowed. */
export function isHostname(value: string): boolean {
  const bare = withoutFinalDot(value.toLowerCase());
  if (bare.length === 0 || bare.length > MAX_NAME_LENGTH) return false;
  const labels = bare.split('.');
  return labels.length >= 2 && labels.every((label) => LABEL.test(label));
}

function isRecordName(value: string): boolean {
  if (value === '@') return true;
  const bare = withoutFinalDot(value.toLowerCase());
  if (bare.length === 0 || bare.length > MAX_NAME_LENGTH) return false;
  return bare.split('.').every((label, index) => LABEL.test(label) || (label === '*' && index === 0));
}

function contentProblemOf(type: DnsRecordType, content: string): string | null {
  switch (type) {
    case 'A':
      return z.ipv4().safeParse(content).success ? null : 'content of an A record must be an IPv4 address such as 192.0.2.1';
    case 'AAAA':
      return z.ipv6().safeParse(content).success ? null : 'content of an AAAA record must be an IPv6 address such as 2001:db8::1';
    case 'CNAME':
    case 'NS':
    case 'MX':
      return isHostname(content) ? null : `content of a${type === 'MX' ? 'n' : ''} ${type} record must be a host name such as host.example.com`;
    case 'TXT':
      if (content.length > TXT_MAX_CHARACTERS) return `content of a TXT record must be at most ${TXT_MAX_CHARACTERS} characters`;
      return CONTROL_CHARACTER.test(content) ? 'content of a TXT record must be printable text (no control characters)' : null;
    case 'SRV':
      return srvProblem(content);
    case 'CAA':
      return caaProblem(content);
  }
}

function srvProblem(content: string): string | null {
  const parts = content.trim().split(/\s+/);
  const shape = 'content of an SRV record must be "priority weight port target", such as "10 5 5060 sip.example.com"';
  if (parts.length !== 4) return shape;
  const [priority, weight, port, target] = parts as [string, string, string, string];
  if (![priority, weight, port].every((part) => UINT16.test(part) && Number(part) <= 65_535))
    return 'priority, weight and port of an SRV record must be whole numbers from 0 to 65535';
  if (target !== '.' && !isHostname(target)) return 'the target of an SRV record must be a host name, or . for no service';
  return null;
}

function caaProblem(content: string): string | null {
  const match = /^(\S+)\s+(\S+)\s+(.*)$/.exec(content.trim());
  const shape = 'content of a CAA record must be \'flags tag "value"\', such as \'0 issue "letsencrypt.org"\'';
  if (!match) return shape;
  const [, flags, tag, value] = match as unknown as [string, string, string, string];
  if (!/^\d{1,3}$/.test(flags) || Number(flags) > 255) return 'the flags of a CAA record must be a whole number from 0 to 255';
  if (!(CAA_TAGS as readonly string[]).includes(tag)) return `the tag of a CAA record must be one of ${CAA_TAGS.join(', ')}`;
  if (!/^"[^"]*"$/.test(value)) return 'the value of a CAA record must be in double quotes';
  if (CONTROL_CHARACTER.test(value)) return 'the value of a CAA record must be printable text';
  return null;
}

/** Host names are case-insensitive and written without the final dot; spacing in SRV and CAA is made single. */
function normalizeContent(type: DnsRecordType, content: string): string {
  switch (type) {
    case 'CNAME':
    case 'NS':
    case 'MX':
      return withoutFinalDot(content.toLowerCase());
    case 'SRV': {
      const [priority, weight, port, target] = content.trim().split(/\s+/) as [string, string, string, string];
      return [Number(priority), Number(weight), Number(port), target === '.' ? '.' : withoutFinalDot(target.toLowerCase())].join(' ');
    }
    case 'CAA': {
      const [, flags, tag, value] = /^(\S+)\s+(\S+)\s+(.*)$/.exec(content.trim()) as unknown as [string, string, string, string];
      return `${Number(flags)} ${tag} ${value}`;
    }
    case 'AAAA':
      return content.toLowerCase();
    default:
      return content;
  }
}

function topLabel(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

function withoutFinalDot(name: string): string {
  return name.endsWith('.') ? name.slice(0, -1) : name;
}
