import { redirect } from 'next/navigation';
import { getSignedInAccount } from '@/app/_server/signedInAccount';
import { GIT_HOST_OUTCOMES } from '@/components/integrations/gitHosts';
import { host1DefaultReturnProject } from '@/server/domains/integrations';

export const dynamic = 'force-dynamic';

/**
 * SPEC's default return of the git host 1 round trip. The path names no project, so this page
 * sends the browser on to the Integrations page of the project the round trip came from, with its
 * outcome, or to the project list once that round trip is no longer on record.
 */
export default async function ControlPanelReturn({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const outcome = GIT_HOST_OUTCOMES.find((known) => known === params['git-host-1']);
  const account = await getSignedInAccount();
  const projectId = account ? await host1DefaultReturnProject(account.id) : null;
  if (!projectId) redirect('/projects');
  redirect(`/projects/${encodeURIComponent(projectId)}/integrations${outcome ? `?git-host-1=${outcome}` : ''}`);
}
