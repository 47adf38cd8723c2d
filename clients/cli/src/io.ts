/** What a command may touch of the process, so the whole CLI runs in a test as it runs in a shell. */
export interface Io {
  stdout: Output;
  stderr: Output;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  env: Record<string, string | undefined>;
  /** The user's home, for the config directory. */
  home: string;
  platform: NodeJS.Platform;
}

export interface Output {
  /** Text, or a file's bytes as they are (`files download … -`). */
  write(chunk: string | Uint8Array): unknown;
  isTTY?: boolean;
  columns?: number;
}

export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    home: process.env.HOME ?? process.env.USERPROFILE ?? '.',
    platform: process.platform,
  };
}

/** All of standard input as bytes (a file to upload: a string would already have decided its encoding). */
export async function readStdinBytes(io: Io): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

/** All of standard input, as text (a secret's value, a .env file). */
export async function readStdin(io: Io): Promise<string> {
  return (await readStdinBytes(io)).toString('utf8');
}

/**
 * One line typed at the terminal without echoing it (an API key), or the first line of piped input.
 * The prompt goes to stderr, so stdout stays clean for scripts.
 */
export async function readSecretLine(io: Io, prompt: string): Promise<string> {
  if (!io.stdin.isTTY || !io.stdin.setRawMode) return (await readStdin(io)).split(/\r?\n/)[0]!.trim();
  io.stderr.write(prompt);
  io.stdin.setRawMode(true);
  io.stdin.resume();
  try {
    return await new Promise<string>((resolve, reject) => {
      let typed = '';
      const onData = (data: Buffer | string) => {
        for (const char of data.toString('utf8')) {
          if (char === '\r' || char === '\n') {
            io.stdin.off('data', onData);
            io.stderr.write('\n');
            return resolve(typed.trim());
          }
          if (char === '\u0003') {
            io.stdin.off('data', onData);
            return reject(new Error('Interrupted'));
          }
          typed = char === '\u007f' || char === '\b' ? typed.slice(0, -1) : typed + char;
        }
      };
      io.stdin.on('data', onData);
    });
  } finally {
    io.stdin.setRawMode(false);
    io.stdin.pause();
  }
}
