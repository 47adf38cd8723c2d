/**
 * A customer of the running server, made the way a customer is: an account signed up through /v1,
 * its address verified with the link the dev mailbox shows, a panel session signed in as the CLI's
 * `auth login --email` does it, a project, a saved test card and an API key. The SDK's and the CLI's
 * tests each start from one of their own.
 */
import { randomBytes } from 'node:crypto';
import { createClient, type CloudClient } from '@cloudpanel/sdk';
import { inject } from 'vitest';
import { signIn } from '../cli/src/session.ts';

export function baseUrl(): string {
  const url = inject('baseUrl');
  if (!url) throw new Error('CLIENTS_TEST_BASE_URL is not set: run the clients’ tests with `npm run test:clients`');
  return url;
}

export const ALL_SCOPES = [
  'projects:read',
  'projects:write',
  'members:read',
  'billing:read',
  'servers:read',
  'servers:write',
  'domains:read',
  'domains:write',
  'redis:read',
  'redis:write',
  'secrets:read',
  'secrets:write',
  'variables:read',
  'variables:write',
  'webhooks:read',
  'webhooks:write',
  'object-storage:read',
  'object-storage:write',
  'storage:read',
  'storage:write',
  'registry:read',
  'registry:write',
  'hosting:read',
  'hosting:write',
  'databases:read',
  'databases:write',
  'apps:read',
  'apps:write',
  'integrations:read',
  'integrations:write',
  'notifications:read',
  'audit:read',
] as const;

export type Scope = (typeof ALL_SCOPES)[number] | 'members:write' | 'billing:write' | 'notifications:write';

export interface World {
  baseUrl: string;
  email: string;
  password: string;
  /** The panel session, for what only a session may do (API keys, cards). */
  cookie: string;
  projectId: string;
  projectSlug: string;
  apiKey: string;
  /** The SDK with the API key. */
  client: CloudClient;
  /** The SDK with the session cookie. */
  session: CloudClient;
  /** Another API key of the project with just these scopes. */
  keyWith(scopes: readonly Scope[]): Promise<string>;
}

export interface WorldOptions {
  /** Save the working test card (default true); without it, buying answers 402. */
  card?: boolean;
  scopes?: readonly Scope[];
}

export async function newWorld(label: string, options: WorldOptions = {}): Promise<World> {
  const url = baseUrl();
  const email = `${label}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const anonymous = createClient({ baseUrl: url });
  await anonymous.post('/accounts', { body: { name: 'Grace Hopper', email, password } });
  await anonymous.post('/accounts/verify-email', { body: { token: await verificationToken(url, email) } });
  const { cookie } = await signIn(url, email, password);
  const session = createClient({ baseUrl: url, headers: { cookie, origin: url } });
  const { projectId, projectSlug } = await session.post('/projects/create', { body: { name: `${label} ${randomBytes(3).toString('hex')}` } });
  if (options.card ?? true) {
    await session.post('/projects/{projectId}/billing/payment-methods', {
      params: { path: { projectId } },
      body: { cardNumber: '4242 4242 4242 4242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123' } as never,
    });
  }
  const keyWith = async (scopes: readonly Scope[]) => {
    const created = await session.post('/projects/{projectId}/api-keys', {
      params: { path: { projectId } },
      body: { name: `${label} key`, scopes: [...scopes] },
    });
    return created.key;
  };
  const apiKey = await keyWith(options.scopes ?? ALL_SCOPES);
  return { baseUrl: url, email, password, cookie, projectId, projectSlug, apiKey, client: createClient({ baseUrl: url, apiKey }), session, keyWith };
}

async function verificationToken(url: string, email: string): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const page = await fetch(`${url}/dev/mailbox?to=${encodeURIComponent(email)}`).then((res) => res.text());
    const token = /\/verify-email\/([A-Za-z0-9_-]+)/.exec(page)?.[1];
    if (token) return token;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no verification link for ${email} in the dev mailbox`);
}
