import type { Metadata } from 'next';
import { CreateDatabaseForm } from '@/components/databases/CreateDatabaseForm';

export const metadata: Metadata = { title: 'New database' };

export default function NewDatabasePage() {
  return <CreateDatabaseForm />;
}
