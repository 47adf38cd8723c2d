import type { Metadata } from 'next';
import { dnsProviderInfo, dnsRecordRules } from './dnsProviderInfo';
import { gitHostsInfo, imageHubInfo } from './gitHostsInfo';
import { GIT_HOST_OUTCOMES, type GitHostOutcome } from '@/components/integrations/gitHosts';
import { IntegrationsPage, type IntegrationsPageProps, type OAuthOutcome } from '@/components/integrations/IntegrationsPage';
import { GIT_HOSTS } from '@/db/schema/gitIntegrations';
import { DNS_CONNECTED_MARKER } from '@/server/domains/integrations/schema';

export const metadata: Metadata = { title: 'Integrations' };

const OUTCOMES: readonly OAuthOutcome[] = ['connected', 'denied', 'error'];

type SearchParams = Record<string, string | string[] | undefined>;

/** A git host's round trip returns with its own marker (`?git-host-2=denied`); only known outcomes are said. */
function gitHostReturn(params: SearchParams): IntegrationsPageProps['gitHostReturn'] {
  for (const host of GIT_HOSTS) {
    const outcome = GIT_HOST_OUTCOMES.find((known: GitHostOutcome) => known === params[host]);
    if (outcome) return { host, outcome };
  }
  return null;
}

export default async function ProjectIntegrationsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const oauthOutcome = OUTCOMES.find((outcome) => outcome === params[DNS_CONNECTED_MARKER]) ?? null;
  return (
    <IntegrationsPage
      provider={dnsProviderInfo()}
      rules={dnsRecordRules()}
      oauthOutcome={oauthOutcome}
      gitHosts={gitHostsInfo()}
      imageHub={imageHubInfo()}
      gitHostReturn={gitHostReturn(params)}
    />
  );
}
