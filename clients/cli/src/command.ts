import type { Command } from 'commander';
import { contextOf, type Context } from './context.ts';
import { UsageError } from './errors.ts';
import type { Io } from './io.ts';

/**
 * The action of a command: the handler gets the context, the positional arguments and the
 * command's own options. Failures are thrown and turned into a message and an exit code by main.
 */
export function action<Options extends object = Record<string, never>>(
  io: Io,
  handler: (ctx: Context, args: string[], options: Options) => Promise<void>,
): (...params: unknown[]) => Promise<void> {
  return async (...params: unknown[]) => {
    const command = params.at(-1) as Command;
    await handler(contextOf(io, command), command.processedArgs as string[], command.opts<Options>());
  };
}

/** Adds worked examples under the command's help; every command has at least one (a test checks). */
export function examples(command: Command, ...lines: string[]): Command {
  return command.addHelpText('after', `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`);
}

/** `--option <value>` given more than once, collected in order. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * Asks before something that cannot be undone. `--yes` answers for scripts; without it, a terminal
 * is asked and anything but "y" stops; a pipe is refused rather than assumed to agree.
 */
export async function confirm(ctx: Context, question: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  if (!ctx.io.stdin.isTTY) throw new UsageError(`${question} Add --yes to confirm when not at a terminal`);
  ctx.io.stderr.write(`${question} [y/N] `);
  const answer = await new Promise<string>((resolve) => {
    const onData = (data: Buffer | string) => {
      ctx.io.stdin.off('data', onData);
      ctx.io.stdin.pause();
      resolve(data.toString().trim().toLowerCase());
    };
    ctx.io.stdin.on('data', onData);
    ctx.io.stdin.resume();
  });
  if (answer !== 'y' && answer !== 'yes') throw new UsageError('Stopped; nothing was changed');
}

/** `--timeout <seconds>` as milliseconds, for `--wait`. */
export function timeoutMs(seconds: string | undefined, fallbackSeconds = 600): number {
  const value = seconds === undefined ? fallbackSeconds : Number(seconds);
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`--timeout takes a number of seconds, not "${seconds}"`);
  return value * 1000;
}
