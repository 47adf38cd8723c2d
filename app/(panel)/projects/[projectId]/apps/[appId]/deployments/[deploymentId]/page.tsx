import type { Metadata } from 'next';
import { DeploymentDetail } from '@/components/apps/DeploymentDetail';

export const metadata: Metadata = { title: 'Deployment' };

export default async function DeploymentPage({ params }: { params: Promise<{ appId: string; deploymentId: string }> }) {
  const { appId, deploymentId } = await params;
  return <DeploymentDetail appId={appId} deploymentId={deploymentId} />;
}
