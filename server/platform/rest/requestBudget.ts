import { getConfig, type AppConfig } from '../config';
import { identifyCaller, type Caller, type HeaderSource } from '../context';
import { getRateLimiter, rateLimited, rateLimitFields, type RateLimitRule } from '../rateLimit';
import type { Route } from './routeTable';

/**
 * Identifies the caller and spends one unit of its budget. Every /v1 request does, whatever the
 * answer turns out to be (404, 405 and 422 included, and the OpenAPI document: one rule, and no
 * path to probe for free), and the answer carries the budget's RateLimit-Policy and RateLimit
 * fields. Over budget, the request is refused with 429 RATE_LIMITED and Retry-After before anything
 * else is done.
 */
export async function identifyAndSpend(headers: HeaderSource, route: Route | undefined): Promise<{ caller: Caller; fields: Record<string, string> }> {
  const caller = await identifyCaller(headers);
  const result = await (await getRateLimiter()).take(requestBudget(caller, route, getConfig()));
  if (!result.allowed) throw rateLimited(result, 'requests');
  return { caller, fields: rateLimitFields([result]) };
}

/**
 * Whose budget a request spends: its API key's, its signed-in user's, or (no credential, or one
 * that is not valid, such as a guessed key) its client address's, a smaller one. A route with a
 * budget of its own (an inbound webhook) spends that, per sending address.
 */
export function requestBudget(caller: Caller, route: Route | undefined, config: AppConfig): RateLimitRule {
  const perMinute = (policy: string, key: string, limit: number): RateLimitRule => ({ policy, key, limit, windowSeconds: 60 });
  if (hasOwnBudget(route)) return perMinute('webhook', `api:webhook:${caller.ip}`, config.RATE_LIMIT_WEBHOOK_PER_MINUTE);
  const { actor } = caller;
  if (actor.kind === 'apiKey') return perMinute('default', `api:key:${actor.keyId}`, config.RATE_LIMIT_PER_MINUTE);
  if (actor.kind === 'session') return perMinute('default', `api:user:${actor.userId}`, config.RATE_LIMIT_PER_MINUTE);
  return perMinute('anonymous', `api:ip:${caller.ip}`, config.RATE_LIMIT_ANONYMOUS_PER_MINUTE);
}

function hasOwnBudget(route: Route | undefined): boolean {
  return route?.kind === 'raw' && route.route.budget === 'inboundWebhook';
}

/**
 * An error answer's headers: the refusal's own over the request's, except that a refusal naming a
 * budget of its own (a service's 429, such as the password-reset limit) lists it after the
 * request budget in RateLimit-Policy and RateLimit rather than hiding it.
 */
export function withRefusalBudget(base: Record<string, string>, refusal: Record<string, string> | undefined): Record<string, string> {
  const headers = { ...base, ...refusal };
  for (const field of ['ratelimit-policy', 'ratelimit']) {
    if (base[field] && refusal?.[field]) headers[field] = `${base[field]}, ${refusal[field]}`;
  }
  return headers;
}
