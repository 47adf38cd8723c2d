'use server';

import { dnsRecordInputSchema } from '@/server/domains/integrations/schema';
import type { DnsRecordBody } from '@/server/providers/dns/records';

/**
 * The record form's check with the API's own rules. It runs on the server because records.ts
 * imports node:net, which the browser bundle cannot hold; it reads nothing and needs no session.
 * Answers each field's first broken rule, worded as the API words it; empty when the record is valid.
 */
export async function checkDnsRecord(record: DnsRecordBody): Promise<Record<string, string>> {
  const parsed = dnsRecordInputSchema.safeParse(record);
  if (parsed.success) return {};
  const problems: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const field = String(issue.path[0] ?? 'record');
    problems[field] ??= issue.message;
  }
  return problems;
}
