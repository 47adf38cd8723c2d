import { dnsRecordInputSchema } from '@/server/domains/integrations/schema';
import type { DnsRecordBody } from '@/server/providers/dns/records';

/**
 * The record form's check with the API's own rules (the same schema), so a broken rule shows on its
 * field before anything is sent. Answers each field's first broken rule; empty when the record is valid.
 */
export function checkDnsRecord(record: DnsRecordBody): Record<string, string> {
  const parsed = dnsRecordInputSchema.safeParse(record);
  if (parsed.success) return {};
  const problems: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const field = String(issue.path[0] ?? 'record');
    problems[field] ??= issue.message;
  }
  return problems;
}
