import { providerReports } from '@/server/app';
import { checkHealth } from '@/server/platform/health';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** 200 with `{ ok, database, driver, node, encryption, providers }` when the database answers, 503 otherwise. */
export async function GET() {
  const health = await checkHealth(providerReports());
  return Response.json(health, { status: health.ok ? 200 : 503, headers: { 'cache-control': 'no-store' } });
}
