import type { Metadata } from 'next';
import { RedisPage } from '@/components/redis/RedisPage';
import { getRedisProvider } from '@/server/providers/redis';

export const metadata: Metadata = { title: 'Redis' };

export default function ProjectRedisPage() {
  const { kind, description } = getRedisProvider();
  return <RedisPage provider={{ kind, description }} />;
}
