import type { Metadata } from 'next';
import { BucketsPage } from '@/components/objectStorage/BucketsPage';
import { getObjectStorageProvider } from '@/server/providers/objectStorage';

export const metadata: Metadata = { title: 'Object storage' };

export default function ProjectObjectStoragePage() {
  const { kind, description } = getObjectStorageProvider();
  return <BucketsPage provider={{ kind, description }} />;
}
