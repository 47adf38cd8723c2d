import type { Metadata } from 'next';
import { VariablesPage } from '@/components/variables/VariablesPage';

export const metadata: Metadata = { title: 'Variables' };

export default function ProjectVariablesPage() {
  return <VariablesPage />;
}
