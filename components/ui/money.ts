const formats = new Map<string, Intl.NumberFormat>();

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
