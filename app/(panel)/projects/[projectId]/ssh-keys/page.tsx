import type { Metadata } from 'next';
import { SshKeysPage } from '@/components/sshKeys/SshKeysPage';

export const metadata: Metadata = { title: 'SSH keys' };

export default function ProjectSshKeysPage() {
  return <SshKeysPage />;
}
