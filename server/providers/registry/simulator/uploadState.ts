import { createHmac, timingSafeEqual } from 'node:crypto';
import { GO_ERROR } from './errors';

/**
 * The `_state` query parameter of Distribution's upload URLs: the upload's repository, id, offset
 * and start, HMAC-signed with the registry's secret. A request on an upload must carry the state
 * its previous answer handed out; an offset that no longer matches the data cancels the upload.
 */
export interface UploadState {
  Name: string;
  UUID: string;
  Offset: number;
  StartedAt: string;
}

const MAC_BYTES = 32;

/** Go's base64.URLEncoding: the URL alphabet, padded. */
function encode(data: Buffer): string {
  return data.toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

export function packUploadState(secret: string, state: UploadState): string {
  const message = Buffer.from(JSON.stringify({ Name: state.Name, UUID: state.UUID, Offset: state.Offset, StartedAt: state.StartedAt }));
  const mac = createHmac('sha256', secret).update(message).digest();
  return encode(Buffer.concat([mac, message]));
}

/**
 * Where Go's strict, padded base64 decoder gives up on a token, as the `CorruptInputError` offset
 * Distribution puts in the error's detail; null when the token decodes.
 */
function corruptOffset(token: string): number | null {
  const invalid = token.search(/[^A-Za-z0-9_=-]/);
  const padding = token.indexOf('=');
  const unpadded = padding < 0 ? token.length : padding;
  if (invalid >= 0 && invalid < unpadded) return invalid;
  if (padding >= 0) {
    // Padding is only allowed as the last one or two characters of a whole quantum.
    const rest = token.slice(padding);
    const wellPadded = token.length % 4 === 0 && /^={1,2}$/.test(rest) && padding % 4 >= 2;
    return wellPadded ? null : padding;
  }
  return token.length % 4 === 0 ? null : token.length - (token.length % 4);
}

/** The state a token carries, or what Distribution says of a token it cannot use (its BLOB_UPLOAD_INVALID detail). */
export function unpackUploadState(secret: string, token: string): { state: UploadState } | { invalid: unknown } {
  const corrupt = corruptOffset(token);
  if (corrupt !== null) return { invalid: corrupt };
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length < MAC_BYTES) return { invalid: GO_ERROR };
  const mac = bytes.subarray(0, MAC_BYTES);
  const message = bytes.subarray(MAC_BYTES);
  if (!timingSafeEqual(mac, createHmac('sha256', secret).update(message).digest())) return { invalid: GO_ERROR };
  try {
    const state = JSON.parse(message.toString('utf8')) as Partial<UploadState>;
    if (typeof state.Name !== 'string' || typeof state.UUID !== 'string' || typeof state.Offset !== 'number' || typeof state.StartedAt !== 'string') {
      return { invalid: GO_ERROR };
    }
    return { state: { Name: state.Name, UUID: state.UUID, Offset: state.Offset, StartedAt: state.StartedAt } };
  } catch {
    return { invalid: GO_ERROR };
  }
}
