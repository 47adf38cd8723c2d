import type { Metadata } from 'next';
import { ApiKeysPage } from '@/components/apiKeys/ApiKeysPage';

export const metadata: Metadata = { title: 'API keys' };

export default function ProjectApiKeysPage() {
  return <ApiKeysPage />;
}
