import type { Metadata } from 'next';
import { DomainDetail } from '@/components/domains/DomainDetail';
import { AUTO_DNS_CREATED_MARKER } from '@/components/domains/domains';
import { dnsProviderInfo, dnsRecordRules } from '../../integrations/dnsProviderInfo';

export const metadata: Metadata = { title: 'Domain' };

export default async function DomainDetailPage({
  params,
  searchParams,
}: {
  params: Promise<{ domain: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { domain } = await params;
  const autoDnsCreated = (await searchParams)[AUTO_DNS_CREATED_MARKER] === 'created';
  return <DomainDetail domainRef={decodeURIComponent(domain)} provider={dnsProviderInfo()} rules={dnsRecordRules()} autoDnsCreated={autoDnsCreated} />;
}
