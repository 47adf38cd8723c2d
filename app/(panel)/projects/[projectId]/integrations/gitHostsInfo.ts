import type { GitHostsInfo, UpstreamInfo } from '@/components/integrations/gitHosts';
import { getGitHost1, getOAuthGitHost } from '@/server/providers/gitHosts';
import { getImageHub } from '@/server/providers/imageHub';

/** Read on the server and handed to the pages: which upstream runs behind each git host, and whether it is simulated. */
export function gitHostsInfo(): GitHostsInfo {
  const upstream = ({ kind, description }: UpstreamInfo): UpstreamInfo => ({ kind, description });
  return {
    'git-host-1': upstream(getGitHost1()),
    'git-host-2': upstream(getOAuthGitHost('git-host-2')),
    'git-host-3': upstream(getOAuthGitHost('git-host-3')),
  };
}

export function imageHubInfo(): UpstreamInfo {
  const { kind, description } = getImageHub();
  return { kind, description };
}
