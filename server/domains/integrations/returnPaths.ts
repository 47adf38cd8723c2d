import { AuditedMutation } from '../../platform/audit';
import type { RequestContext } from '../../platform/context';

/**
 * Where a connect round trip sends the browser at its end, and what it connected: a public return
 * route has no signed-in caller, so the user and project the state was issued to are the actor and
 * project of its audit entry.
 */
export interface RoundTripEnd {
  location: string;
  connected?: { projectId: string; userId: string; action: string };
}

export function ended(location: string, connected?: RoundTripEnd['connected']): RoundTripEnd {
  return connected ? { location, connected } : { location };
}

/** The audit entry of a connection a public return route made, as a procedure's write would leave one. */
export async function auditConnection(ctx: RequestContext, connected: NonNullable<RoundTripEnd['connected']>): Promise<void> {
  const audit = new AuditedMutation(ctx, { kind: 'session', userId: connected.userId }, connected.action, { projectId: connected.projectId });
  audit.projectId = connected.projectId;
  await audit.settle({ ok: true, data: null });
}

/** `path` with `name=value` added to its query: how a round trip tells the panel how it ended. */
export function withMarker(path: string, name: string, value: string): string {
  const url = new URL(path, 'http://return.invalid');
  url.searchParams.set(name, value);
  return `${url.pathname}${url.search}${url.hash}`;
}
