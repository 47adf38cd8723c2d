import type { Metadata } from 'next';
import { CredentialsPage } from '@/components/objectStorage/CredentialsPage';

export const metadata: Metadata = { title: 'Storage credentials' };

export default function StorageCredentialsPage() {
  return <CredentialsPage />;
}
