import yoctoSpinner from 'yocto-spinner';
import type { Io } from './io.ts';

export interface Progress {
  update(text: string): void;
  stop(finalText?: string): void;
}

/**
 * A spinner on stderr while something settles (a server booting), when stderr is a terminal; in a
 * pipe or a log, one line per change of state instead, so the log still tells the story.
 */
export function startProgress(io: Io, text: string): Progress {
  if (io.stderr.isTTY && !io.env.CI) {
    const spinner = yoctoSpinner({ text, stream: io.stderr as NodeJS.WriteStream }).start();
    return {
      update: (next) => void (spinner.text = next),
      stop: (finalText) => void (finalText ? spinner.success(finalText) : spinner.stop()),
    };
  }
  let last = text;
  io.stderr.write(`${text}\n`);
  return {
    update(next) {
      if (next !== last) io.stderr.write(`${next}\n`);
      last = next;
    },
    stop(finalText) {
      if (finalText) io.stderr.write(`${finalText}\n`);
    },
  };
}
