import { CommanderError } from 'commander';
import { describeError, errorJson, EXIT, exitCodeOf } from './errors.ts';
import type { Io } from './io.ts';
import { buildProgram } from './program.ts';

/** Runs one command line and answers its exit code; nothing here calls process.exit, so tests run it in-process. */
export async function main(argv: string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    // Commander has already printed its own message (or the help, or the version).
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    io.stderr.write(argv.includes('--json') ? errorJson(err) : describeError(err));
    return exitCodeOf(err);
  }
}
