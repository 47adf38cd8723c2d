import type { StoredAppService } from '../../../db/schema/apps';
import type { GitContentEntry } from '../gitHosts/types';

/**
 * Where deployments are built and released. A build reads the source at one commit through a
 * `SourceReader` (the apps domain binds it to the project's connection or the deployment copy),
 * reports its phases and log lines as they happen, and ends LIVE or FAILED.
 */

export interface SourceReader {
  /** `{host}:{fullName}@{sha}`, for the log. */
  readonly label: string;
  listContents(path: string): Promise<GitContentEntry[]>;
  readFile(path: string): Promise<string | null>;
}

export interface BuildRequest {
  deploymentId: string;
  appId: string;
  appName: string;
  region: string;
  commitSha: string;
  services: readonly StoredAppService[];
  source: SourceReader;
}

export interface BuildReporter {
  /** The build began: the deployment moves to BUILDING. */
  building(): Promise<void>;
  log(line: string): Promise<void>;
}

export type BuildOutcome = { status: 'LIVE' } | { status: 'FAILED'; reason: string };

export interface BuildProvider {
  readonly kind: 'simulator';
  readonly description: string;
  /** Runs the build to its end. Never throws for a failed build: that is `{ status: 'FAILED' }`. */
  build(request: BuildRequest, reporter: BuildReporter): Promise<BuildOutcome>;
}
