import type { ReactNode } from 'react';
import { formatMinorUnits } from './money';
import wizard from './Wizard.module.css';

/** One card of an OptionCards group. */
export interface OptionCard<V extends string | number> {
  value: V;
  /** The first line, in bold. */
  title: ReactNode;
  /** What the card says under its title: a note, a price, specs. */
  body?: ReactNode;
  disabled?: boolean;
}

const LAYOUTS = {
  default: undefined,
  wide: wizard.optionsWide,
  wider: wizard.optionsWider,
} as const;

/**
 * A group of radio cards, as the create wizards and the tier changes show them: each radio is named
 * by its card's text, the group by `label` (its aria-label) or by the element `labelledBy` names.
 * `layout` sets the cards' minimum width: 150px, or 200px ("wide") and 240px ("wider").
 */
export function OptionCards<V extends string | number>({
  label,
  labelledBy,
  name,
  value,
  onChange,
  options,
  layout = 'default',
  disabled,
  className,
}: {
  label?: string;
  labelledBy?: string;
  name: string;
  /** The checked option's value; null checks none. */
  value: V | null;
  onChange: (value: V) => void;
  options: readonly OptionCard<V>[];
  layout?: keyof typeof LAYOUTS;
  /** Disables every option, e.g. for a role that may only look. */
  disabled?: boolean;
  className?: string;
}) {
  const classes = [wizard.options, LAYOUTS[layout], className].filter(Boolean).join(' ');
  return (
    <div className={classes} role="radiogroup" aria-label={label} aria-labelledby={labelledBy}>
      {options.map((option) => (
        <label key={option.value} className={wizard.option}>
          <input
            type="radio"
            name={name}
            value={option.value}
            checked={value === option.value}
            disabled={disabled || option.disabled}
            onChange={() => onChange(option.value)}
          />
          <span className={wizard.optionBody}>
            <span className={wizard.optionTitle}>{option.title}</span>
            {option.body}
          </span>
        </label>
      ))}
    </div>
  );
}

/**
 * A tier's card: its name (marked " · current" on the resource's own tier), its monthly price, the
 * tier's slug when the create wizards show it, and what the tier gives (`specs`, notes after them).
 */
export function tierOption<V extends string | number>({
  value,
  label,
  current = false,
  price,
  slug,
  specs,
  disabled,
}: {
  value: V;
  label: ReactNode;
  current?: boolean;
  /** The monthly price, or its text when the area formats it; "—" while it is unknown. */
  price: { monthly: number; currency: string } | string | undefined;
  slug?: string;
  specs?: ReactNode;
  disabled?: boolean;
}): OptionCard<V> {
  const amount = typeof price === 'string' ? price : price ? formatMinorUnits(price.monthly, price.currency) : '—';
  return {
    value,
    disabled,
    title: (
      <>
        {label}
        {current ? <span className="muted"> · current</span> : null}
      </>
    ),
    body: (
      <>
        <span className={wizard.price}>
          <span className={wizard.priceAmount}>{amount}</span>
          <span className="muted">/month</span>
        </span>
        {slug ? <span className={wizard.slug}>{slug}</span> : null}
        {specs}
      </>
    ),
  };
}
