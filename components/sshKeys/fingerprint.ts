export interface PublicKeyPreview {
  /** `SHA256:` and the unpadded base64 SHA-256 of the key blob, as `ssh-keygen -lf` prints it. */
  fingerprint: string;
  /** The algorithm named inside the key data, which the server checks against the line's prefix. */
  innerType: string | null;
}

function decodeBase64(data: string): Uint8Array<ArrayBuffer> | null {
  try {
    return Uint8Array.from(atob(data), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

function encodeBase64Unpadded(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/=+$/, '');
}

/** The first field of an SSH wire-format blob: a length-prefixed algorithm name. */
function readInnerType(blob: Uint8Array): string | null {
  if (blob.length < 4) return null;
  const length = ((blob[0]! << 24) | (blob[1]! << 16) | (blob[2]! << 8) | blob[3]!) >>> 0;
  if (length === 0 || length > 64 || 4 + length > blob.length) return null;
  const name = String.fromCharCode(...blob.subarray(4, 4 + length));
  return /^[\x21-\x7e]+$/.test(name) ? name : null;
}

/**
 * The fingerprint of a pasted `<type> <base64> [comment]` line, worked out in the browser so the
 * user can compare it with `ssh-keygen -lf` before sending anything. Null when the text is not yet
 * a decodable key line, or when the page is not a secure context and Web Crypto is missing; the
 * server still validates the key properly.
 */
export async function previewPublicKey(text: string): Promise<PublicKeyPreview | null> {
  const [, data] = text.trim().split(/\s+/);
  if (!data || typeof crypto === 'undefined' || !crypto.subtle) return null;
  const blob = decodeBase64(data);
  if (!blob || blob.length < 8) return null;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', blob));
  return { fingerprint: `SHA256:${encodeBase64Unpadded(digest)}`, innerType: readInnerType(blob) };
}
