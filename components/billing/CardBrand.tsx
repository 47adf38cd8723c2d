import styles from './billing.module.css';

const MARKS: Record<string, string> = { visa: 'VISA', mastercard: 'MC', amex: 'AMEX', discover: 'DISC' };

/** A small card-shaped mark with the brand's initials; decorative, the brand is spelled out next to it. */
export function CardBrand({ brand }: { brand: string }) {
  return (
    <span className={styles.brand} data-brand={brand} aria-hidden>
      {MARKS[brand] ?? '••••'}
    </span>
  );
}
