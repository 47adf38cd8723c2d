import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/**
 * Distribution's notification events (notifications/event.go and bridge.go), field for field.
 * Go's `omitempty` leaves out empty strings and zero numbers: an anonymous actor is `{}`, a blob
 * of zero bytes has no `size`, a deleted manifest's target has only its repository and digest.
 */

export type EventAction = 'push' | 'pull' | 'delete' | 'mount';

export interface EventTarget {
  mediaType?: string;
  size?: number;
  digest?: string;
  length?: number;
  repository: string;
  fromRepository?: string;
  url?: string;
  tag?: string;
}

export interface RequestRecord {
  id: string;
  addr?: string;
  host?: string;
  method: string;
  useragent: string;
}

export interface SourceRecord {
  addr: string;
  instanceID: string;
}

export interface RegistryNotification {
  id: string;
  timestamp: string;
  action: EventAction;
  target: EventTarget;
  request: RequestRecord;
  actor: { name?: string };
  source: SourceRecord;
}

export const BLOB_MEDIA_TYPE = 'application/octet-stream';

function omitEmpty<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined && value !== '' && value !== 0)) as T;
}

/**
 * Distribution's `RemoteAddr`: the first X-Forwarded-For address when it is an IP, else X-Real-Ip
 * when it is one, else the connection's `ip:port`. Whoever can reach the registry directly can
 * therefore choose it; the front door overwrites the header.
 */
export function remoteAddr(req: IncomingMessage): string {
  const forwarded = req.headers['x-forwarded-for'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  if (first && isIP(first)) return first;
  const realIp = req.headers['x-real-ip'];
  const real = Array.isArray(realIp) ? realIp[0] : realIp;
  if (real && isIP(real)) return real;
  const address = req.socket.remoteAddress ?? '';
  return `${isIP(address) === 6 ? `[${address}]` : address}:${req.socket.remotePort ?? 0}`;
}

export function requestRecord(req: IncomingMessage, id: string): RequestRecord {
  return omitEmpty({ id, addr: remoteAddr(req), host: req.headers.host ?? '', method: req.method ?? '', useragent: req.headers['user-agent'] ?? '' });
}

export function blobTarget(repository: string, blob: { digest: string; size: number }, fromRepository?: string): EventTarget {
  return omitEmpty({
    mediaType: BLOB_MEDIA_TYPE,
    size: blob.size,
    digest: blob.digest,
    length: blob.size,
    repository,
    fromRepository,
    url: `/v2/${repository}/blobs/${blob.digest}`,
  });
}

export function manifestTarget(repository: string, manifest: { mediaType: string; digest: string; size: number }, tag: string | null): EventTarget {
  return omitEmpty({
    mediaType: manifest.mediaType,
    size: manifest.size,
    digest: manifest.digest,
    length: manifest.size,
    repository,
    url: `/v2/${repository}/manifests/${manifest.digest}`,
    tag: tag ?? undefined,
  });
}

/** A deleted manifest or blob names its digest; each tag the delete removed gets an event naming the tag. */
export function deletionTarget(repository: string, removed: { digest: string } | { tag: string }): EventTarget {
  return 'digest' in removed ? { digest: removed.digest, repository } : { repository, tag: removed.tag };
}

export function createEvent(action: EventAction, target: EventTarget, request: RequestRecord, subject: string, source: SourceRecord): RegistryNotification {
  return {
    id: randomUUID(),
    timestamp: new Date().toISOString(),
    action,
    target,
    request,
    actor: omitEmpty({ name: subject }),
    source,
  };
}
