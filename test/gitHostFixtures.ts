import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { restApi } from '../server/app';
import { submitAuthorizationForm, submitInstallForm } from '../server/providers/gitHosts/simulatorPages';
import type { OAuthGitHost } from '../server/providers/gitHosts';
import { ORIGIN, api, type ApiResult, type TestUser } from './helpers';

/**
 * Walks the git hosts' browser round trips as a person would, against the simulated hosts: the
 * connect redirect, the host's own page (installing the app, or consenting), and the return to
 * the platform, following each 302 through the REST bridge.
 */

/** The path below the origin of an absolute or relative location. */
export function pathOf(location: string): string {
  const url = new URL(location, ORIGIN);
  return `${url.pathname}${url.search}`;
}

export function locationOf(result: ApiResult): string {
  const location = result.headers.get('location');
  if (result.status !== 302 || !location) throw new Error(`Expected a redirect, got ${result.status} ${JSON.stringify(result.body)}`);
  return location;
}

/** Starts connecting host 1 and answers the state the installation page was given. */
export async function startHost1Connect(user: TestUser, projectId: string, redirect = `/projects/${projectId}/integrations`): Promise<string> {
  const location = locationOf(
    await api('GET', `/v1/projects/${projectId}/integrations/git-host-1/connect?redirect=${encodeURIComponent(redirect)}`, { cookie: user.cookie }),
  );
  const state = new URL(location, ORIGIN).searchParams.get('state');
  if (!state) throw new Error(`No state in ${location}`);
  return state;
}

/** Installs the app on `account` from the simulated page and follows the host back: the final location. */
export async function installHost1(user: TestUser, projectId: string, account: string): Promise<string> {
  const state = await startHost1Connect(user, projectId);
  let location = await submitInstallForm({ account, state });
  for (let hop = 0; hop < 4; hop++) {
    const path = pathOf(location);
    if (path.startsWith('/dev/git-hosts/')) location = await consent('git-host-1', location);
    else if (path.startsWith('/v1/')) location = locationOf(await api('GET', path));
    else break;
  }
  return pathOf(location);
}

/** The simulated consent page's "Allow" (or "Deny"), answering where the host sends the browser. */
export async function consent(host: 'git-host-1' | OAuthGitHost, authorizeUrl: string, decision: 'allow' | 'deny' = 'allow'): Promise<string> {
  const params = Object.fromEntries(new URL(authorizeUrl, ORIGIN).searchParams);
  return submitAuthorizationForm(host, { ...params, decision });
}

/** Connects host 2 or 3 through its consent page: the final location. */
export async function connectOAuthHost(user: TestUser, projectId: string, host: OAuthGitHost, decision: 'allow' | 'deny' = 'allow'): Promise<string> {
  const authorize = locationOf(await api('GET', `/v1/projects/${projectId}/integrations/${host}/connect`, { cookie: user.cookie }));
  const back = await consent(host, authorize, decision);
  return locationOf(await api('GET', pathOf(back)));
}

/** A loopback server in front of the REST bridge, for the simulated hosts' webhook deliveries. */
export async function startWebhookReceiver(): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      void restApi
        .handleFetch(new Request(`${ORIGIN}${req.url ?? '/'}`, { method: req.method, headers, body: req.method === 'GET' ? undefined : Buffer.concat(chunks) }))
        .then(async (answer) => {
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(Buffer.from(await answer.arrayBuffer()));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
