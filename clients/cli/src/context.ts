import { createClient, DEFAULT_BASE_URL, type CloudClient, type RetryEvent } from '@cloudpanel/sdk';
import type { Command } from 'commander';
import { readConfig, type StoredConfig } from './config.ts';
import { UsageError } from './errors.ts';
import type { Io } from './io.ts';
import { createPrinter, type Printer } from './output.ts';
import { rootUrlOf } from './session.ts';

export const VERSION = '1.0.0';

/** The options every command takes (see program.ts). */
export interface GlobalOptions {
  apiUrl?: string;
  project?: string;
  json?: boolean;
}

/** What a command's action works with: the resolved settings, an API client and the printer. */
export interface Context {
  io: Io;
  out: Printer;
  apiUrl: string;
  /** Where the key came from, for `cloud auth status`. */
  keySource: 'CLOUD_API_KEY' | 'config' | 'none';
  apiKey: string | undefined;
  config: StoredConfig;
  client: CloudClient;
  /**
   * A client signed in as a panel session (`cloud auth login --email`), for the operations SPEC keeps
   * to sessions (shared PostgreSQL); a usage error that says how to sign in when there is none.
   */
  sessionClient(): CloudClient;
  /** The project to act on: --project, CLOUD_PROJECT or the config's; a usage error when none is chosen. */
  project(): string;
}

/**
 * Settings resolve flag first, then environment, then the config file: `--api-url` > CLOUD_API_URL >
 * config > http://localhost:3000; CLOUD_API_KEY > config; `--project` > CLOUD_PROJECT > config.
 */
export function contextOf(io: Io, command: Command): Context {
  const options = command.optsWithGlobals<GlobalOptions>();
  const config = readConfig(io);
  const apiUrl = options.apiUrl ?? io.env.CLOUD_API_URL ?? config.apiUrl ?? DEFAULT_BASE_URL;
  const envKey = io.env.CLOUD_API_KEY?.trim();
  const apiKey = envKey || config.apiKey;
  const keySource = envKey ? 'CLOUD_API_KEY' : config.apiKey ? 'config' : 'none';
  const out = createPrinter(io, options.json === true);
  const onRetry = (event: RetryEvent) => {
    const why = event.status === 0 ? 'no answer' : `HTTP ${event.status}`;
    io.stderr.write(`${why} from ${apiUrl}; trying again in ${(event.delayMs / 1000).toFixed(1)} s (retry ${event.attempt})\n`);
  };
  const client = createClient({ baseUrl: apiUrl, apiKey, userAgent: `cloud-cli/${VERSION}`, onRetry });
  let sessionClient: CloudClient | undefined;
  const signedInClient = () => {
    const session = config.session;
    if (!session || (session.expiresAt !== null && Date.parse(session.expiresAt) <= Date.now())) {
      throw new UsageError(
        `${session ? 'Your session has ended' : 'This needs a signed-in session, not an API key'}: run \`cloud auth login --email <your email>\``,
      );
    }
    // Cookie-authenticated writes must come from the platform's own origin (its CSRF rule).
    const headers = { cookie: session.cookie, origin: rootUrlOf(apiUrl) };
    return createClient({ baseUrl: apiUrl, headers, userAgent: `cloud-cli/${VERSION}`, onRetry });
  };
  return {
    io,
    out,
    apiUrl,
    apiKey,
    keySource,
    config,
    client,
    sessionClient() {
      sessionClient ??= signedInClient();
      return sessionClient;
    },
    project() {
      const project = options.project ?? io.env.CLOUD_PROJECT ?? config.project;
      if (!project) throw new UsageError('No project chosen: pass --project <id or slug>, set CLOUD_PROJECT, or run `cloud projects use <id>`');
      return project;
    },
  };
}
