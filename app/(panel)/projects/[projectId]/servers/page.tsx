import type { Metadata } from 'next';
import { ServersPage } from '@/components/servers/ServersPage';

export const metadata: Metadata = { title: 'Servers' };

export default async function ProjectServersPage({ searchParams }: { searchParams: Promise<{ created?: string | string[] }> }) {
  const { created } = await searchParams;
  return <ServersPage created={typeof created === 'string' ? created : undefined} />;
}
