import { configNameSchema } from '../../platform/configuration';

/** One `NAME=value` of a .env file, with the line it starts on (1-based). */
export interface DotenvEntry {
  name: string;
  value: string;
  line: number;
}

/** What is wrong on one line of the file. */
export interface DotenvProblem {
  line: number;
  message: string;
}

export interface DotenvParse {
  entries: DotenvEntry[];
  problems: DotenvProblem[];
}

const DOUBLE_QUOTE_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '\\': '\\', '"': '"' };

/**
 * Reads a .env file the way the `dotenv` package and Docker Compose do: blank lines and `#` comment
 * lines are ignored, an `export ` prefix is allowed, values may be bare (a ` #` starts a comment,
 * surrounding blanks are dropped), single-quoted or back-quoted (taken literally) or double-quoted
 * (`\n`, `\r`, `\t`, `\\` and `\"` are unescaped); quoted values may span lines. `NAME=` is an empty
 * value. Unlike `dotenv.parse`, which silently skips what it cannot read and lets a later line win,
 * every problem is reported with its line: a line without `=`, an unterminated quote, text after a
 * closing quote, a name outside the naming rule and a name set twice.
 */
export function parseDotenv(content: string): DotenvParse {
  const lines = content.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const entries: DotenvEntry[] = [];
  const problems: DotenvProblem[] = [];
  const firstLineOf = new Map<string, number>();

  for (let index = 0; index < lines.length; index += 1) {
    const lineNumber = index + 1;
    // Only the start is trimmed: a quoted value's first line keeps its trailing blanks.
    const text = lines[index]!.trimStart();
    if (text.trim() === '' || text.startsWith('#')) continue;

    const assignment = /^(?:export\s+)?([^=]*?)\s*=\s*(.*)$/s.exec(text);
    if (!assignment) {
      problems.push({ line: lineNumber, message: 'Expected NAME=value' });
      continue;
    }
    const name = assignment[1]!;
    const read = readValue(assignment[2]!, lines, index);
    index = read.lastIndex;
    if ('problem' in read) {
      problems.push({ line: lineNumber, message: read.problem });
      continue;
    }

    const nameCheck = configNameSchema.safeParse(name);
    if (!nameCheck.success) {
      problems.push({ line: lineNumber, message: `"${printable(name)}": ${nameCheck.error.issues[0]!.message}` });
      continue;
    }
    const earlier = firstLineOf.get(name);
    if (earlier !== undefined) {
      problems.push({ line: lineNumber, message: `${name} is already set on line ${earlier}` });
      continue;
    }
    firstLineOf.set(name, lineNumber);
    entries.push({ name, value: read.value, line: lineNumber });
  }
  return { entries, problems };
}

type ReadValue = { value: string; lastIndex: number } | { problem: string; lastIndex: number };

/** The value starting with `rest` on line `index`; a quoted one may continue on the lines after it. */
function readValue(rest: string, lines: readonly string[], index: number): ReadValue {
  const quote = rest[0];
  if (quote !== '"' && quote !== "'" && quote !== '`') {
    return { value: rest.replace(/\s+#.*$/s, '').trim(), lastIndex: index };
  }

  // The value is everything up to the closing quote, joined with the following lines when it spans them.
  let text = rest.slice(1);
  let lastIndex = index;
  for (;;) {
    const close = closingQuote(text, quote);
    if (close >= 0) {
      const after = text.slice(close + 1).trim();
      if (after !== '' && !after.startsWith('#')) {
        return { problem: `Unexpected text after the closing ${quote}: put the whole value inside the quotes`, lastIndex };
      }
      const raw = text.slice(0, close);
      return { value: quote === '"' ? unescapeDoubleQuoted(raw) : raw, lastIndex };
    }
    if (lastIndex + 1 >= lines.length) return { problem: `The ${quote} that opens the value is never closed`, lastIndex };
    lastIndex += 1;
    text = `${text}\n${lines[lastIndex]}`;
  }
}

/** Position of the quote that closes the value; in double quotes a backslash escapes the next character. */
function closingQuote(text: string, quote: string): number {
  for (let i = 0; i < text.length; i += 1) {
    if (quote === '"' && text[i] === '\\') {
      i += 1;
      continue;
    }
    if (text[i] === quote) return i;
  }
  return -1;
}

function unescapeDoubleQuoted(raw: string): string {
  return raw.replace(/\\(.)/gs, (whole, char: string) => DOUBLE_QUOTE_ESCAPES[char] ?? whole);
}

function printable(value: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is replaced
  const cleaned = value.replace(/[\x00-\x1f\x7f]/g, '?');
  return cleaned.length > 40 ? `${cleaned.slice(0, 40)}…` : cleaned;
}
