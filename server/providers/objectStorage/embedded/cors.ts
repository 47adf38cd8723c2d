import { z } from 'zod';
import { CORS_METHODS, type CorsRule } from '../types';

/** SPEC's CORS rule, as the gateway reads it back from its records. */
export const corsRuleSchema = z.object({
  allowedOrigins: z.array(z.string().min(1)).min(1),
  allowedMethods: z.array(z.enum(CORS_METHODS)).min(1),
  allowedHeaders: z.array(z.string().min(1)).optional(),
  exposeHeaders: z.array(z.string().min(1)).optional(),
  maxAgeSeconds: z.number().int().min(0).optional(),
}) satisfies z.ZodType<CorsRule>;

/**
 * S3's CORS evaluation: the first rule whose origin and method match applies; origins and allowed
 * headers may hold one `*` wildcard; header names compare case-insensitively.
 */
export function matchCorsRule(rules: CorsRule[], origin: string, method: string, requestHeaders: string[] = []): CorsRule | null {
  return (
    rules.find(
      (rule) =>
        rule.allowedOrigins.some((pattern) => wildcard(pattern, origin, false)) &&
        (rule.allowedMethods as string[]).includes(method) &&
        requestHeaders.every((header) => (rule.allowedHeaders ?? []).some((pattern) => wildcard(pattern, header, true))),
    ) ?? null
  );
}

/** The headers S3 answers a matched request with. */
export function corsHeaders(rule: CorsRule, origin: string, preflight: { requestHeaders: string[] } | null): Record<string, string> {
  const anyOrigin = rule.allowedOrigins.includes('*');
  const headers: Record<string, string> = {
    'access-control-allow-origin': anyOrigin ? '*' : origin,
    'access-control-allow-methods': rule.allowedMethods.join(', '),
    vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
  };
  if (!anyOrigin) headers['access-control-allow-credentials'] = 'true';
  if (rule.exposeHeaders?.length) headers['access-control-expose-headers'] = rule.exposeHeaders.join(', ');
  if (preflight) {
    if (preflight.requestHeaders.length) headers['access-control-allow-headers'] = preflight.requestHeaders.join(', ');
    if (rule.maxAgeSeconds !== undefined) headers['access-control-max-age'] = String(rule.maxAgeSeconds);
  }
  return headers;
}

function wildcard(pattern: string, value: string, caseInsensitive: boolean): boolean {
  const [p, v] = caseInsensitive ? [pattern.toLowerCase(), value.toLowerCase()] : [pattern, value];
  const star = p.indexOf('*');
  if (star < 0) return p === v;
  const prefix = p.slice(0, star);
  const suffix = p.slice(star + 1);
  return v.length >= prefix.length + suffix.length && v.startsWith(prefix) && v.endsWith(suffix);
}
