import { z } from 'zod';
import { DOMAIN_STATUSES, DOMAIN_TYPES } from '../../../db/schema/domains';
import { isoDateTime } from '../../platform/schemas';

export { DOMAIN_STATUSES, DOMAIN_TYPES };

export const addDomainInput = z.object({
  name: z
    .string()
    .min(1, 'name is required')
    .max(253, 'name must be at most 253 characters')
    .describe('A registrable domain or a name under one (IDNs are accepted and stored as punycode, lower-cased)'),
  type: z.enum(DOMAIN_TYPES, { error: 'type must be EXTERNAL: registering and moving domains in are not done through the API' }),
});

export const domainRefParam = z.string().min(1).max(253).describe('The domain id, or its name');

const recordToPublish = z.object({ type: z.literal('TXT'), name: z.string(), value: z.string() });

export const domainDnsRecordSchema = z.object({
  id: z.string(),
  type: z.string(),
  name: z.string(),
  content: z.string(),
  ttl: z.number().int(),
});

export const domainSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(DOMAIN_TYPES),
    status: z.enum(DOMAIN_STATUSES).describe('PENDING until the verification TXT record is found; then VERIFIED'),
    createdAt: isoDateTime,
    dnsRecords: z
      .array(domainDnsRecordSchema)
      .describe("The records at the domain and under it in the connected DNS provider's zone that holds it; empty without a connection or such a zone"),
    verificationRecord: recordToPublish.describe('The TXT record to publish to prove ownership'),
  })
  .meta({ id: 'Domain', description: 'Stable fields only; any other field may change' });
export type Domain = z.infer<typeof domainSchema>;

export const domainCheckSchema = z
  .object({
    verified: z.boolean(),
    expected: recordToPublish,
    found: z.array(z.string()).describe('The TXT values found at the record name'),
    error: z.string().nullable().describe('Why none were read: NXDOMAIN, NODATA, TIMEOUT, SERVFAIL…; null when records were read'),
    checkedAt: isoDateTime,
  })
  .meta({ id: 'DomainCheck' });

export const verifyDomainOutput = z.object({ domain: domainSchema, check: domainCheckSchema }).meta({ id: 'DomainVerification' });
export type DomainVerification = z.infer<typeof verifyDomainOutput>;

export const createdDomainSchema = domainSchema
  .extend({
    autoDns: z
      .object({ created: z.boolean(), detail: z.string().nullable() })
      .describe('Whether auto-DNS created the verification record in the connected account, and why not when it did not'),
  })
  .meta({ id: 'CreatedDomain' });

export const domainSearchQuery = z.object({
  query: z.string().min(1, 'query is required').max(253, 'query must be at most 253 characters').describe('A name, with or without a TLD'),
});

export const domainCandidateSchema = z
  .object({
    name: z.string(),
    available: z.boolean(),
    priceYearly: z.number().int().describe('Minor units'),
    currency: z.string(),
    premium: z.boolean(),
  })
  .meta({ id: 'DomainCandidate' });
