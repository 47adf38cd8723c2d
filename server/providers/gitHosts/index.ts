import { getConfig } from '../../platform/config';
import { BitbucketProvider } from './bitbucket';
import { GitHubAppProvider } from './github';
import { GitLabProvider } from './gitlab';
import { GitHost1Simulator, OAuthGitHostSimulator } from './simulator';
import type { GitHost1Provider, OAuthGitHost, OAuthGitHostProvider } from './types';

export type * from './types';
export { BRANCHES_PER_PAGE } from './types';
export { simulatedGitHost1WebhookSecret } from './simulatedDeliveries';

const holder = globalThis as unknown as { __gitHost1?: GitHost1Provider; __oauthGitHosts?: Map<OAuthGitHost, OAuthGitHostProvider> };

/** Git host 1 as GIT_HOST_1_PROVIDER names it, made once per process. */
export function getGitHost1(): GitHost1Provider {
  let provider = holder.__gitHost1;
  if (!provider) {
    const config = getConfig();
    provider =
      config.GIT_HOST_1_PROVIDER === 'github'
        ? new GitHubAppProvider({
            apiUrl: config.GIT_HOST_1_API_URL,
            webUrl: config.GIT_HOST_1_WEB_URL,
            appId: config.GIT_HOST_1_APP_ID!,
            appSlug: config.GIT_HOST_1_APP_SLUG!,
            // Environments rarely carry line breaks, so `\n` stands for them.
            privateKey: config.GIT_HOST_1_PRIVATE_KEY!.replace(/\\n/g, '\n'),
            clientId: config.GIT_HOST_1_CLIENT_ID!,
            clientSecret: config.GIT_HOST_1_CLIENT_SECRET!,
            packagesRegistry: config.GIT_HOST_1_PACKAGES_REGISTRY,
            timeoutMs: config.GIT_API_TIMEOUT_SECONDS * 1000,
          })
        : new GitHost1Simulator();
    holder.__gitHost1 = provider;
  }
  return provider;
}

/** Git host 2 or 3 as its GIT_HOST_<n>_PROVIDER names it, made once per process. */
export function getOAuthGitHost(host: OAuthGitHost): OAuthGitHostProvider {
  holder.__oauthGitHosts ??= new Map();
  let provider = holder.__oauthGitHosts.get(host);
  if (!provider) {
    provider = makeOAuthGitHost(host);
    holder.__oauthGitHosts.set(host, provider);
  }
  return provider;
}

function makeOAuthGitHost(host: OAuthGitHost): OAuthGitHostProvider {
  const config = getConfig();
  const timeoutMs = config.GIT_API_TIMEOUT_SECONDS * 1000;
  if (host === 'git-host-2' && config.GIT_HOST_2_PROVIDER === 'bitbucket') {
    return new BitbucketProvider({
      apiUrl: config.GIT_HOST_2_API_URL,
      webUrl: config.GIT_HOST_2_WEB_URL,
      clientId: config.GIT_HOST_2_CLIENT_ID!,
      clientSecret: config.GIT_HOST_2_CLIENT_SECRET!,
      deployWorkspace: config.GIT_HOST_2_DEPLOY_WORKSPACE,
      deployToken: config.GIT_HOST_2_DEPLOY_TOKEN!,
      timeoutMs,
    });
  }
  if (host === 'git-host-3' && config.GIT_HOST_3_PROVIDER === 'gitlab') {
    return new GitLabProvider({
      baseUrl: config.GIT_HOST_3_URL,
      clientId: config.GIT_HOST_3_CLIENT_ID!,
      clientSecret: config.GIT_HOST_3_CLIENT_SECRET!,
      deployGroup: config.GIT_HOST_3_DEPLOY_GROUP,
      deployToken: config.GIT_HOST_3_DEPLOY_TOKEN!,
      timeoutMs,
    });
  }
  return new OAuthGitHostSimulator(host);
}

/** Test hook: the next call makes the providers again, from the configuration as it is then. */
export function resetGitHostsForTests(): void {
  holder.__gitHost1 = undefined;
  holder.__oauthGitHosts = undefined;
}
