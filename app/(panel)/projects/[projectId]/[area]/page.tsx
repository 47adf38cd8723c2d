import { notFound } from 'next/navigation';
import { ComingSoon } from '@/components/projects/ComingSoon';
import { RESOURCE_AREAS } from '@/components/projects/areas';

export default async function ResourceAreaPage({ params }: { params: Promise<{ area: string }> }) {
  const { area } = await params;
  const resource = RESOURCE_AREAS.find((r) => r.segment === area);
  if (!resource) notFound();
  return <ComingSoon area={resource} />;
}
