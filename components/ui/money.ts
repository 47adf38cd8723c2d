const formats = new Map<string, Intl.NumberFormat>();
const compactFormats = new Map<string, Intl.NumberFormat>();

function formatFor(currency: string): Intl.NumberFormat {
  const code = currency.toUpperCase();
  let format = formats.get(code);
  if (!format) {
    format = new Intl.NumberFormat('en', { style: 'currency', currency: code });
    formats.set(code, format);
  }
  return format;
}

/**
 * An amount the API sends in minor units of a lower-case ISO currency. The divisor comes from the
 * currency's own fraction digits, so yen (none) and dinars (three) come out right as well as cents.
 */
export function formatMinorUnits(amount: number, currency: string): string {
  const format = formatFor(currency);
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(amount / 10 ** digits);
}

/** Below this many whole units an amount is short enough to show exactly. */
const SHORT_EXACT_BELOW = 100;

/**
 * For labels with little room, such as the amounts above chart bars: exact ("$12.50") while the
 * amount is small, compact ("$123", "$1.2K") from a hundred units up. The exact amount belongs nearby.
 */
export function formatMinorUnitsShort(amount: number, currency: string): string {
  const code = currency.toUpperCase();
  const digits = formatFor(code).resolvedOptions().maximumFractionDigits ?? 2;
  const units = amount / 10 ** digits;
  if (Math.abs(units) < SHORT_EXACT_BELOW) return formatFor(code).format(units);
  let compact = compactFormats.get(code);
  if (!compact) {
    compact = new Intl.NumberFormat('en', { style: 'currency', currency: code, notation: 'compact', maximumFractionDigits: 1 });
    compactFormats.set(code, compact);
  }
  return compact.format(units);
}
