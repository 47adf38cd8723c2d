import type { Metadata } from 'next';
import { SecretsPage } from '@/components/secrets/SecretsPage';

export const metadata: Metadata = { title: 'Secrets' };

export default function ProjectSecretsPage() {
  return <SecretsPage />;
}
