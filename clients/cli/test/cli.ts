import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Io } from '../src/io.ts';
import { main } from '../src/main.ts';

export interface CliResult {
  code: number;
  stdout: string;
  /** stdout as the bytes written, for commands that write a file's bytes. */
  stdoutBytes: Buffer;
  stderr: string;
  /** stdout parsed as JSON (for `--json` runs). */
  json<T = unknown>(): T;
}

export interface CliRun {
  env?: Record<string, string | undefined>;
  /** Piped to stdin; stdin is not a terminal. */
  stdin?: string;
}

/** A config directory of its own, so runs never read or write the user's. */
export const freshConfigDir = () => mkdtempSync(path.join(os.tmpdir(), 'cloud-cli-test-'));

/** Runs `cloud <args>` in this process, as a shell would with the given environment and stdin. */
export async function cloud(args: string[], run: CliRun = {}): Promise<CliResult> {
  const stdout: Buffer[] = [];
  let stderr = '';
  const io: Io = {
    stdout: { write: (chunk: string | Uint8Array) => stdout.push(Buffer.from(chunk)) },
    stderr: { write: (chunk: string | Uint8Array) => (stderr += Buffer.from(chunk).toString('utf8')) },
    stdin: Readable.from(run.stdin === undefined ? [] : [Buffer.from(run.stdin)]),
    env: { PATH: process.env.PATH, ...run.env },
    home: os.tmpdir(),
    platform: 'linux',
  };
  const code = await main(args, io);
  const stdoutBytes = Buffer.concat(stdout);
  const text = stdoutBytes.toString('utf8');
  return {
    code,
    stdout: text,
    stdoutBytes,
    stderr,
    json<T>() {
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new Error(`stdout is not JSON (exit ${code}):\n${text}\nstderr:\n${stderr}`);
      }
    },
  };
}

/** The environment of a signed-in user of one project: the key and server in the environment, a config directory of its own. */
export function envFor(world: { baseUrl: string; apiKey: string; projectId: string }, configDir = freshConfigDir()): Record<string, string> {
  return { CLOUD_API_URL: world.baseUrl, CLOUD_API_KEY: world.apiKey, CLOUD_PROJECT: world.projectId, CLOUD_CONFIG_DIR: configDir };
}
