import { createHash } from 'node:crypto';
import type { ScanFindings } from '../../../db/schema';

/** What scans an image after a push; findings are counts per severity. */
export interface ImageScanner {
  scan(repository: string, digest: string): Promise<ScanFindings>;
}

export const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFORMATIONAL'] as const;

/**
 * The default scanner: no vulnerability database is reachable here, so findings are derived from
 * the image's digest. The same image always gets the same report, and most images get a few
 * findings of the lower severities, as real scans of base images do.
 */
export const simulatedScanner: ImageScanner = {
  async scan(_repository, digest) {
    const bytes = createHash('sha256').update(digest).digest();
    return {
      CRITICAL: bytes[0]! % 4 === 0 ? bytes[1]! % 2 : 0,
      HIGH: bytes[2]! % 4,
      MEDIUM: bytes[3]! % 7,
      LOW: bytes[4]! % 11,
      INFORMATIONAL: bytes[5]! % 5,
    };
  },
};
