import { formatMinorUnits, formatMinorUnitsShort } from '../ui/money';
import type { ChargeMonth } from './types';
import styles from './billing.module.css';

/** Every amount of a month in the history is one category; a category the server adds must get a style here. */
export type ChargeCategory = Exclude<keyof ChargeMonth, 'month' | 'inProgress'>;

/** Bottom to top in every bar, and left to right in the legend, in this order. */
export const CATEGORY_STYLE: Record<ChargeCategory, { label: string; color: string }> = {
  servers: { label: 'Servers', color: '#4f46e5' },
  domains: { label: 'Domains', color: '#0ea5e9' },
  apps: { label: 'Apps', color: '#14b8a6' },
  objectStorage: { label: 'Object storage', color: '#f59e0b' },
  containerRegistry: { label: 'Container registry', color: '#ec4899' },
  databases: { label: 'Databases', color: '#22c55e' },
  redis: { label: 'Redis', color: '#ef4444' },
  email: { label: 'Email', color: '#a855f7' },
  other: { label: 'Other', color: '#94a3b8' },
};

export const CHARGE_CATEGORIES = Object.keys(CATEGORY_STYLE) as readonly ChargeCategory[];

const shortMonth = new Intl.DateTimeFormat('en', { month: 'short', timeZone: 'UTC' });
const longMonth = new Intl.DateTimeFormat('en', { month: 'long', year: 'numeric', timeZone: 'UTC' });

function monthDate(month: string): Date {
  return new Date(`${month}-01T00:00:00Z`);
}

function monthTotal(entry: ChargeMonth): number {
  return CHARGE_CATEGORIES.reduce((sum, category) => sum + entry[category], 0);
}

/**
 * Charges per month as bars stacked by category, oldest month first; the month in progress is
 * hatched and labelled "so far". Each bar carries its breakdown as its accessible name, and the
 * same numbers are available as a table for anyone who cannot tell the colours apart.
 */
export function ChargeChart({ entries, currency }: { entries: readonly ChargeMonth[]; currency: string }) {
  const money = (amount: number) => formatMinorUnits(amount, currency);
  const months = entries.map((entry) => ({ entry, total: monthTotal(entry) }));
  const highest = Math.max(0, ...months.map((m) => m.total));
  const charged = CHARGE_CATEGORIES.filter((category) => entries.some((entry) => entry[category] > 0));

  return (
    <div className="stack">
      <div className={highest === 0 ? `${styles.chart} ${styles.chartEmpty}` : styles.chart} role="list" aria-label="Charges per month">
        {months.map(({ entry, total }) => {
          const parts = CHARGE_CATEGORIES.filter((category) => entry[category] > 0);
          const breakdown = parts.map((category) => `${CATEGORY_STYLE[category].label} ${money(entry[category])}`).join(', ');
          const name = `${longMonth.format(monthDate(entry.month))}${entry.inProgress ? ' so far' : ''}: ${money(total)}${breakdown ? ` (${breakdown})` : ''}`;
          return (
            <div key={entry.month} className={styles.column} role="listitem" aria-label={name} title={name}>
              <div className={styles.plot} aria-hidden>
                <span className={styles.amount}>{formatMinorUnitsShort(total, currency)}</span>
                <span
                  className={entry.inProgress ? `${styles.bar} ${styles.inProgress}` : styles.bar}
                  style={{ height: `calc((100% - 22px) * ${highest > 0 ? total / highest : 0})` }}
                >
                  {parts.map((category) => (
                    <span key={category} className={styles.segment} style={{ flexGrow: entry[category], background: CATEGORY_STYLE[category].color }} />
                  ))}
                </span>
              </div>
              <span className={styles.monthLabel} aria-hidden>
                {shortMonth.format(monthDate(entry.month))}
                {entry.inProgress ? <span className={styles.soFar}>so far</span> : null}
              </span>
            </div>
          );
        })}
      </div>
      {highest === 0 ? (
        <p className="muted">No charges yet. Paid resources you create will show up here.</p>
      ) : (
        <>
          <ul className={styles.legend} aria-label="Categories">
            {CHARGE_CATEGORIES.map((category) => (
              <li key={category} className={charged.includes(category) ? styles.legendItem : `${styles.legendItem} ${styles.legendUnused}`}>
                <span className={styles.swatch} style={{ background: CATEGORY_STYLE[category].color }} aria-hidden />
                {CATEGORY_STYLE[category].label}
              </li>
            ))}
          </ul>
          <details className={styles.tableToggle}>
            <summary>Show as a table</summary>
            <div className="table-wrap">
              <table className="table">
                <caption className="visually-hidden">Charges per month and category</caption>
                <thead>
                  <tr>
                    <th scope="col">Category</th>
                    {entries.map((entry) => (
                      <th key={entry.month} scope="col" className={styles.numeric}>
                        {shortMonth.format(monthDate(entry.month))}
                        {entry.inProgress ? ' (so far)' : ''}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {charged.map((category) => (
                    <tr key={category}>
                      <th scope="row">{CATEGORY_STYLE[category].label}</th>
                      {entries.map((entry) => (
                        <td key={entry.month} className={styles.numeric}>
                          {money(entry[category])}
                        </td>
                      ))}
                    </tr>
                  ))}
                  <tr>
                    <th scope="row">Total</th>
                    {months.map(({ entry, total }) => (
                      <td key={entry.month} className={`${styles.numeric} cell-primary`}>
                        {money(total)}
                      </td>
                    ))}
                  </tr>
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </div>
  );
}
