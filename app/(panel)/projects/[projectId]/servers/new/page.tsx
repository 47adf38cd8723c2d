import type { Metadata } from 'next';
import { CreateServerWizard } from '@/components/servers/CreateServerWizard';

export const metadata: Metadata = { title: 'Create a server' };

export default function NewServerPage() {
  return <CreateServerWizard />;
}
