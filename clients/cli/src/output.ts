import type { Io } from './io.ts';

export type Cell = string | number | boolean | null | undefined;

export interface Column<T> {
  header: string;
  value: (row: T) => Cell;
}

/** Printing for people (aligned columns, `key: value` lines) or, with `--json`, the API's data as JSON for scripts. */
export interface Printer {
  readonly json: boolean;
  /** A list: a table, or the JSON array. */
  list<T>(rows: readonly T[], columns: readonly Column<T>[], empty?: string): void;
  /** One resource: `field: value` lines, or the JSON object. */
  item<T>(value: T, fields: readonly Column<T>[]): void;
  /** The outcome of a command that changes something: the message for people, `data` (or `{}`) as JSON. */
  done(message: string, data?: unknown): void;
  /** Text for people only (a hint, a note); never on stdout in `--json` mode. */
  note(text: string): void;
}

export function createPrinter(io: Io, json: boolean): Printer {
  const out = (text: string) => io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  const printJson = (value: unknown) => out(JSON.stringify(value ?? null, null, 2));
  return {
    json,
    list(rows, columns, empty = 'Nothing here yet.') {
      if (json) return void printJson(rows);
      if (rows.length === 0) return void io.stderr.write(`${empty}\n`);
      out(table([columns.map((c) => c.header.toUpperCase()), ...rows.map((row) => columns.map((c) => cellText(c.value(row))))]));
    },
    item(value, fields) {
      if (json) return void printJson(value);
      const width = Math.max(...fields.map((f) => f.header.length));
      out(fields.map((f) => `${`${f.header}:`.padEnd(width + 2)}${cellText(f.value(value))}`).join('\n'));
    },
    done(message, data) {
      if (json) return void printJson(data ?? {});
      out(message);
    },
    note(text) {
      if (!json) io.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
    },
  };
}

export function cellText(value: Cell): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value).replace(/[\r\n\t]+/g, ' ');
}

/** Columns padded to their widest cell, two spaces apart; the last column is not padded. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => [...row[i]!].length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]! + (cell.length - [...cell].length))))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Minor units as money: (1250, 'usd') → "$12.50". */
export function money(cents: number | null | undefined, currency = 'USD'): string {
  if (cents === null || cents === undefined) return '-';
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);
}

/** An ISO 8601 time as `2026-11-24 13:05 UTC`, short enough for a table. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '-';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
