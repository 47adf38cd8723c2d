import type { Metadata } from 'next';
import { WebhookEndpointDetail } from '@/components/webhooks/WebhookEndpointDetail';

export const metadata: Metadata = { title: 'Webhook endpoint' };

export default async function WebhookEndpointPage({ params }: { params: Promise<{ endpointId: string }> }) {
  const { endpointId } = await params;
  return <WebhookEndpointDetail endpointId={endpointId} />;
}
