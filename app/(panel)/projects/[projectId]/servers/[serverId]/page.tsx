import type { Metadata } from 'next';
import { ServerDetail } from '@/components/servers/ServerDetail';

export const metadata: Metadata = { title: 'Server' };

export default async function ServerDetailPage({ params }: { params: Promise<{ serverId: string }> }) {
  const { serverId } = await params;
  return <ServerDetail serverId={serverId} />;
}
