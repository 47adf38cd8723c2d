import { createHash } from 'node:crypto';

/**
 * The name of a repository's copy in the platform's deployment workspace or group: readable, valid
 * as a repository slug on both hosts, and unique per source through a digest of its full name
 * (`a-b/c` and `a/b-c` read alike).
 */
export function deploymentCopyName(fullName: string): string {
  const readable = fullName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50);
  return `${readable}-${createHash('sha256').update(fullName.toLowerCase()).digest('hex').slice(0, 8)}`;
}
