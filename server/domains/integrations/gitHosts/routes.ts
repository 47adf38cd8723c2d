import type { Scope } from '../../../platform/auth/scopes';
import { AppError } from '../../../platform/errors';
import { MAX_BODY_BYTES } from '../../../platform/rest/handler';
import { envelope, type RawRequest, type RawRoute, type RawRouteDocs } from '../../../platform/rest/rawRoutes';
import type { OAuthGitHost } from '../../../providers/gitHosts';
import { auditConnection, type RoundTripEnd } from '../returnPaths';
import { CALLBACK_HOST1, CONNECT_HOST1, SETUP_HOST1, WEBHOOK_HOST1, WEBHOOK_HOST2, WEBHOOK_HOST3, callbackOAuthHost, connectOAuthHost } from './docs';
import { HOST1_CALLBACK_PATH, HOST1_SETUP_PATH, completeHost1Callback, completeHost1Setup, startHost1Connect } from './host1';
import { completeOAuthHostCallback, oauthCallbackPath, startOAuthHostConnect } from './oauthHosts';
import { receiveHost1Delivery, receiveHost2Delivery, receiveHost3Delivery, type Delivery, type DeliveryOutcome } from './webhooks';

/**
 * The git hosts' `/v1` routes that are not procedures: the connect redirects (a browser follows
 * them), the public returns from the hosts (their signed single-use state stands in for a
 * session) and the public webhooks (their signature or token stands in for a credential).
 */

const WRITE: Scope[] = ['integrations:read', 'integrations:write'];
const redirectTo = (location: string) => ({ status: 302, headers: { location, 'cache-control': 'no-store' }, body: null });

const TAGS = ['Git hosts'];
/** `git-host-1` → `gitHost1`: the prefix of the host's procedures, so its raw routes are named alike. */
const operationPrefix = (host: 'git-host-1' | OAuthGitHost) => host.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
const REDIRECT_QUERY = { redirect: { description: 'A relative panel path to return to (same origin only); anything else returns to the default' } };

function connectRoute(host: 'git-host-1' | OAuthGitHost): RawRoute {
  return {
    method: 'GET',
    path: `/projects/{projectId}/integrations/${host}/connect`,
    access: { kind: 'project', scopes: WRITE, role: 'member' },
    docs: {
      operationId: `${operationPrefix(host)}-connect`,
      tags: TAGS,
      summary: `Connect ${host}`,
      description: host === 'git-host-1' ? CONNECT_HOST1 : connectOAuthHost(host),
      query: REDIRECT_QUERY,
      responses: { 302: { description: host === 'git-host-1' ? 'To the host’s installation page' : 'To the host’s consent page' } },
    },
    async handle(request, caller) {
      if (!caller.grant || !caller.actor) throw new AppError('UNAUTHORIZED', 'Authentication required');
      const redirect = request.query.get('redirect') ?? undefined;
      const projectId = caller.grant.project.id;
      const location =
        host === 'git-host-1'
          ? await startHost1Connect(projectId, caller.actor.userId, redirect)
          : await startOAuthHostConnect(host, projectId, caller.actor.userId, redirect);
      return redirectTo(location);
    },
  };
}

function returnRoute(path: string, docs: RawRouteDocs, complete: (query: URLSearchParams) => Promise<RoundTripEnd>): RawRoute {
  return {
    method: 'GET',
    path,
    access: { kind: 'public' },
    docs,
    async handle(request) {
      const end = await complete(request.query);
      if (end.connected) await auditConnection(request.ctx, end.connected);
      return redirectTo(end.location);
    },
  };
}

const returnDocs = (operationId: string, summary: string, description: string, query: RawRouteDocs['query']): RawRouteDocs => ({
  operationId,
  tags: TAGS,
  summary,
  description,
  query,
  responses: { 302: { description: 'Back to the panel path the round trip started from, with the outcome marker; or on to the host’s consent page' } },
  errors: ['LINK_EXPIRED'],
});

const OAUTH_RETURN_QUERY = {
  state: { description: 'The signed single-use state of the round trip', required: true },
  code: { description: 'The host’s authorisation code' },
  error: { description: 'Set by the host when the user refused' },
};

/** Push payloads of large monorepos run to a few megabytes; hosts cap theirs at 25 MB but send far less for a push. */
const MAX_DELIVERY_BYTES = Math.max(MAX_BODY_BYTES, 5 * 1024 * 1024);

const deliveryAnswer = {
  type: 'object',
  required: ['queued'],
  properties: {
    queued: { type: 'integer', description: 'Deployments the push queued' },
    duplicate: { type: 'boolean', description: 'Present on a replayed delivery id: answered, not acted on again' },
  },
};

function webhookRoute(
  host: 'git-host-1' | OAuthGitHost,
  description: string,
  headers: RawRouteDocs['headers'],
  receive: (delivery: Delivery) => Promise<DeliveryOutcome>,
): RawRoute {
  return {
    method: 'POST',
    path: `/integrations/${host}/webhook`,
    access: { kind: 'public' },
    budget: 'inboundWebhook',
    docs: {
      operationId: `${operationPrefix(host)}-webhook`,
      tags: TAGS,
      summary: `${host} webhook`,
      description,
      ...(host === 'git-host-1'
        ? {}
        : { query: { hook: { description: 'The platform’s id of the repository webhook (in the URL it registered)', required: true } } }),
      headers,
      body: { description: 'The host’s event, exactly as sent', contentType: 'application/json' },
      responses: {
        200: { description: 'Authenticated; nothing to deploy (another event, a branch no app deploys, auto-deploy off, or a replay)', data: deliveryAnswer },
        202: { description: 'Deployments were queued', data: deliveryAnswer },
      },
      errors: ['SIGNATURE_INVALID', 'BAD_REQUEST'],
    },
    async handle(request: RawRequest) {
      const outcome = await receive({ headers: request.headers, query: request.query, body: await request.body.read(MAX_DELIVERY_BYTES) });
      return envelope(outcome.duplicate ? { queued: 0, duplicate: true } : { queued: outcome.queued }, outcome.status);
    },
  };
}

export const gitHostRoutes: readonly RawRoute[] = [
  connectRoute('git-host-1'),
  connectRoute('git-host-2'),
  connectRoute('git-host-3'),
  returnRoute(
    HOST1_SETUP_PATH,
    returnDocs('gitHost1-setup', 'Git host 1 post-install return', SETUP_HOST1, {
      state: OAUTH_RETURN_QUERY.state,
      installation_id: { description: 'The installation the host says was made' },
      setup_action: { description: '`install`, `update` or `request` (an organisation owner must approve)' },
    }),
    (query) => completeHost1Setup(query),
  ),
  returnRoute(
    HOST1_CALLBACK_PATH,
    returnDocs('gitHost1-callback', 'Git host 1 OAuth return', CALLBACK_HOST1, {
      ...OAUTH_RETURN_QUERY,
      installation_id: { description: 'Sent by the host on the install-and-authorise flow' },
    }),
    completeHost1Callback,
  ),
  returnRoute(
    oauthCallbackPath('git-host-2'),
    returnDocs('gitHost2-callback', 'Git host 2 OAuth return', callbackOAuthHost('git-host-2'), OAUTH_RETURN_QUERY),
    (query) => completeOAuthHostCallback('git-host-2', query),
  ),
  returnRoute(
    oauthCallbackPath('git-host-3'),
    returnDocs('gitHost3-callback', 'Git host 3 OAuth return', callbackOAuthHost('git-host-3'), OAUTH_RETURN_QUERY),
    (query) => completeOAuthHostCallback('git-host-3', query),
  ),
  webhookRoute(
    'git-host-1',
    WEBHOOK_HOST1,
    {
      'X-Hub-Signature-256': { description: '`sha256=` and the hex HMAC-SHA256 of the raw body with the app’s webhook secret', required: true },
      'X-GitHub-Delivery': { description: 'The delivery id; a replay of one already processed is answered and not acted on', required: true },
      'X-GitHub-Event': { description: '`push` and `installation` are acted on', required: true },
    },
    receiveHost1Delivery,
  ),
  webhookRoute(
    'git-host-2',
    WEBHOOK_HOST2,
    {
      'X-Hub-Signature': { description: '`sha256=` and the hex HMAC-SHA256 of the raw body with the repository webhook’s own secret', required: true },
      'X-Request-UUID': { description: 'The delivery id', required: true },
      'X-Event-Key': { description: '`repo:push` is acted on', required: true },
    },
    receiveHost2Delivery,
  ),
  webhookRoute(
    'git-host-3',
    WEBHOOK_HOST3,
    {
      'X-Gitlab-Token': { description: 'The repository webhook’s own token (SPEC’s `X-<host3>-Token`), compared in constant time', required: true },
      'X-Gitlab-Event-UUID': { description: 'The delivery id', required: true },
      'X-Gitlab-Event': { description: '`Push Hook` is acted on', required: true },
    },
    receiveHost3Delivery,
  ),
];
