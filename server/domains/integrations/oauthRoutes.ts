import type { Scope } from '../../platform/auth/scopes';
import { AppError } from '../../platform/errors';
import type { RawRoute } from '../../platform/rest/rawRoutes';
import { CONNECT_OAUTH } from './docs';
import { auditConnection } from './returnPaths';
import { DNS_OAUTH_CALLBACK_PATH, completeOAuth, startOAuth } from './service';

const WRITE: Scope[] = ['integrations:read', 'integrations:write'];

const redirectTo = (location: string) => ({ status: 302, headers: { location, 'cache-control': 'no-store' }, body: null });

/** `GET …/dns-provider/connect/oauth`: 302 to the provider's consent page with a fresh state. */
export const dnsOAuthConnectRoute: RawRoute = {
  method: 'GET',
  path: '/projects/{projectId}/integrations/dns-provider/connect/oauth',
  access: { kind: 'project', scopes: WRITE, role: 'member' },
  docs: {
    operationId: 'dnsProvider-connectOAuth',
    tags: ['Integrations'],
    summary: 'Connect the DNS provider through OAuth',
    description: CONNECT_OAUTH,
    query: { redirect: { description: 'A relative panel path to return to; anything else returns to the integration page' } },
    responses: { 302: { description: 'To the provider’s consent page' } },
    errors: ['NOT_FOUND'],
  },
  async handle(request, caller) {
    if (!caller.grant || !caller.actor) throw new AppError('UNAUTHORIZED', 'Authentication required');
    return redirectTo(await startOAuth(caller.grant.project.id, caller.actor.userId, request.query.get('redirect') ?? undefined));
  },
};

/**
 * The provider sends the browser back here. It is public: the signed single-use state proves who
 * started the round trip and for which project, so no session is needed to finish it.
 */
export const dnsOAuthCallbackRoute: RawRoute = {
  method: 'GET',
  path: DNS_OAUTH_CALLBACK_PATH,
  access: { kind: 'public' },
  docs: {
    operationId: 'dnsProvider-oauthCallback',
    tags: ['Integrations'],
    summary: 'DNS provider OAuth return',
    description:
      'Public: the provider’s OAuth return. The signed single-use state is checked and consumed (400 LINK_EXPIRED otherwise), the code traded for a token that is checked and stored encrypted; then back to the panel path with `dns-provider=connected`, `denied` or `error`.',
    query: {
      state: { description: 'The signed single-use state of the round trip', required: true },
      code: { description: 'The provider’s authorisation code' },
      error: { description: 'Set by the provider when the user refused' },
    },
    responses: { 302: { description: 'Back to the panel with the outcome marker' } },
    errors: ['LINK_EXPIRED'],
  },
  async handle(request) {
    const end = await completeOAuth(request.query.get('code'), request.query.get('state'), request.query.get('error'));
    if (end.connected) await auditConnection(request.ctx, end.connected);
    return redirectTo(end.location);
  },
};
