import type { Metadata } from 'next';
import { dnsProviderInfo, dnsRecordRules } from './dnsProviderInfo';
import { IntegrationsPage, type OAuthOutcome } from '@/components/integrations/IntegrationsPage';
import { DNS_CONNECTED_MARKER } from '@/server/domains/integrations/schema';

export const metadata: Metadata = { title: 'Integrations' };

const OUTCOMES: readonly OAuthOutcome[] = ['connected', 'denied', 'error'];

export default async function ProjectIntegrationsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const marker = (await searchParams)[DNS_CONNECTED_MARKER];
  const oauthOutcome = OUTCOMES.find((outcome) => outcome === marker) ?? null;
  return <IntegrationsPage provider={dnsProviderInfo()} rules={dnsRecordRules()} oauthOutcome={oauthOutcome} />;
}
