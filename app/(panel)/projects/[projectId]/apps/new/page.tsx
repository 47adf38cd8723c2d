import type { Metadata } from 'next';
import { CreateAppForm, type NewAppStart } from '@/components/apps/CreateAppForm';
import { GIT_HOSTS } from '@/db/schema/gitIntegrations';

export const metadata: Metadata = { title: 'New app' };

type SearchParams = Record<string, string | string[] | undefined>;

const one = (value: string | string[] | undefined): string | null => (typeof value === 'string' && value.length > 0 && value.length <= 255 ? value : null);

/** Opened from a repository (`?gitHost=git-host-1&repository=owner/repo&branch=main`): the form starts there. */
function startOf(params: SearchParams): NewAppStart {
  const gitHost = GIT_HOSTS.find((host) => host === params.gitHost) ?? null;
  return { gitHost, repository: gitHost ? one(params.repository) : null, branch: gitHost ? one(params.branch) : null };
}

export default async function NewAppPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <CreateAppForm start={startOf(await searchParams)} />;
}
