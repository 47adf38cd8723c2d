import { z } from 'zod';
import { DNS_CONNECTION_TYPES } from '../../../db/schema/integrations';
import { DNS_RECORD_TYPES } from '../../providers/dns/types';
import { dnsRecordFieldsSchema, dnsRecordInputSchema } from '../../providers/dns/records';
import { isoDateTime } from '../../platform/schemas';

export { DNS_RECORD_TYPES, dnsRecordFieldsSchema, dnsRecordInputSchema };

/** The query parameter the OAuth callback adds to the panel path it returns to (SPEC's `connected` marker). */
export const DNS_CONNECTED_MARKER = 'dns-provider';

export const dnsProviderStatusSchema = z
  .object({
    connected: z.boolean(),
    connectionType: z.enum(DNS_CONNECTION_TYPES).nullable().describe('API_TOKEN or OAUTH; null when not connected'),
    accountName: z.string().nullable().describe('The provider account the credential reaches, when the provider names it'),
    autoDnsEnabled: z.boolean().describe('When true, adding an external domain whose zone is in the account creates its verification TXT record'),
    oauthEnabled: z.boolean().describe('Whether connecting through OAuth is configured on this installation'),
    connectedAt: isoDateTime.nullable(),
  })
  .meta({ id: 'DnsProviderStatus' });
export type DnsProviderStatus = z.infer<typeof dnsProviderStatusSchema>;

export const connectTokenInput = z.object({
  apiToken: z
    .string()
    .min(1, 'apiToken is required')
    .max(1024, 'apiToken must be at most 1024 characters')
    .describe('Checked with the provider, stored encrypted, never returned'),
});

export const dnsSettingsInput = z.object({ autoDnsEnabled: z.boolean({ error: 'autoDnsEnabled must be true or false' }) });

export const oauthConnectQuery = z.object({
  redirect: z.string().max(512).optional().describe('A relative panel path to return to; anything else returns to the integration page'),
});

export const dnsZoneSchema = z.object({ id: z.string(), name: z.string(), status: z.enum(['active', 'pending']) }).meta({ id: 'DnsZone' });

export const dnsRecordSchema = z
  .object({
    id: z.string(),
    zoneId: z.string(),
    type: z.enum(DNS_RECORD_TYPES),
    name: z.string().describe('Fully qualified, without the trailing dot'),
    content: z.string(),
    ttl: z.number().int().describe('Seconds; 1 means automatic'),
    proxied: z.boolean(),
    priority: z.number().int().nullable().describe('MX only'),
    createdAt: isoDateTime,
    modifiedAt: isoDateTime,
  })
  .meta({ id: 'DnsRecord' });
export type DnsRecordView = z.infer<typeof dnsRecordSchema>;
