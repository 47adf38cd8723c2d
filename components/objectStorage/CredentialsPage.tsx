'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { useTRPC } from '../trpc/TrpcProvider';
import { Card } from '../ui/Card';
import { PageHeader } from '../ui/PageHeader';
import { CredentialsList, RescopeDialog } from './Credentials';
import type { CredentialView } from './storage';

export function CredentialsPage() {
  const project = useProject();
  const trpc = useTRPC();
  const credentials = useQuery(trpc.storageCredentials.list.queryOptions({ projectId: project.id }));
  const buckets = useQuery(trpc.objectStorage.list.queryOptions({ projectId: project.id }));
  const [rescoping, setRescoping] = useState<CredentialView | null>(null);

  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, 'object-storage')} className="muted">
            ← Object storage
          </Link>
        }
        title="Storage credentials"
        description="Every access key of the project's S3 clients, the buckets it reaches and what it may do there. New credentials are made on a bucket's page."
      />
      <Card flush>
        <CredentialsList
          query={credentials}
          canManage={hasRole(project, 'member')}
          onRescope={setRescoping}
          empty={{ title: 'No credentials yet', description: 'Create one from a bucket’s page to reach it with an S3 client.' }}
        />
      </Card>
      <RescopeDialog credential={rescoping} buckets={buckets.data ?? []} onClose={() => setRescoping(null)} />
    </main>
  );
}
