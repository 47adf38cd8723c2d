import type { Metadata } from 'next';
import { DatabasesPage } from '@/components/databases/DatabasesPage';

export const metadata: Metadata = { title: 'Databases' };

export default function ProjectDatabasesPage() {
  return <DatabasesPage />;
}
