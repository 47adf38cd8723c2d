import type { Metadata } from 'next';
import { RedisDetail } from '@/components/redis/RedisDetail';
import { getRedisProvider } from '@/server/providers/redis';

export const metadata: Metadata = { title: 'Redis database' };

export default async function RedisDetailPage({ params }: { params: Promise<{ redisId: string }> }) {
  const { redisId } = await params;
  const { kind, description } = getRedisProvider();
  return <RedisDetail redisId={redisId} provider={{ kind, description }} />;
}
