'use client';

import { useMutation } from '@tanstack/react-query';
import { useLayoutEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { localCardInput } from '@/server/domains/billing/schema';
import { useZodForm } from '../forms/useZodForm';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Card } from '../ui/Card';
import { Input } from '../ui/Input';
import { Select, type SelectOption } from '../ui/Select';
import { SubmitButton } from '../ui/SubmitButton';
import { useToast } from '../ui/Toast';
import { cardLabel } from './format';
import { ProcessorCardForm } from './ProcessorCardForm';
import type { BillingOverview } from './types';
import { useBillingRefresh } from './useBillingRefresh';
import styles from './billing.module.css';

const MAX_DIGITS = 19;
const YEARS_AHEAD = 15;

const TEST_CARDS = [
  { number: '4242 4242 4242 4242', outcome: 'Saved and charged normally' },
  { number: '4000 0000 0000 0002', outcome: 'Declined' },
  { number: '4000 0000 0000 9995', outcome: 'Declined: insufficient funds' },
  { number: '4000 0000 0000 0341', outcome: 'Saved, but declined when charged' },
] as const;

const COUNTRIES: readonly SelectOption[] = [
  { value: '', label: 'Not set' },
  ...[
    ['US', 'United States'],
    ['GB', 'United Kingdom'],
    ['CA', 'Canada'],
    ['AU', 'Australia'],
    ['DE', 'Germany'],
    ['FR', 'France'],
    ['NL', 'Netherlands'],
    ['IE', 'Ireland'],
    ['ES', 'Spain'],
    ['IT', 'Italy'],
    ['SE', 'Sweden'],
    ['CH', 'Switzerland'],
    ['JP', 'Japan'],
    ['IN', 'India'],
    ['BR', 'Brazil'],
  ].map(([code, name]) => ({ value: code!, label: `${name} (${code})` })),
];

const MONTHS: readonly SelectOption[] = [
  { value: '', label: 'Month' },
  ...Array.from({ length: 12 }, (_, index) => {
    const month = String(index + 1).padStart(2, '0');
    return { value: month, label: month };
  }),
];

function yearOptions(): SelectOption[] {
  const first = new Date().getUTCFullYear();
  return [
    { value: '', label: 'Year' },
    ...Array.from({ length: YEARS_AHEAD + 1 }, (_, index) => ({ value: String(first + index), label: String(first + index) })),
  ];
}

/** "4242424242424242" → "4242 4242 4242 4242"; anything but digits is dropped. */
function groupDigits(value: string): string {
  return value
    .replace(/\D/g, '')
    .slice(0, MAX_DIGITS)
    .replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** Where the caret belongs in the regrouped number: after the same count of digits as before. */
function caretAfterDigits(formatted: string, digits: number): number {
  if (digits === 0) return 0;
  let seen = 0;
  for (let index = 0; index < formatted.length; index += 1) {
    if (/\d/.test(formatted[index]!)) seen += 1;
    if (seen === digits) return index + 1;
  }
  return formatted.length;
}

/** The card entry of the Billing page: the local form, or why there is none in this mode. Only the biller adds cards. */
export function AddCardCard({ projectId, overview, isBiller }: { projectId: string; overview: BillingOverview; isBiller: boolean }) {
  if (!isBiller) return null;
  if (overview.provider === 'stripe') {
    if (overview.publishableKey) return <ProcessorCardForm projectId={projectId} publishableKey={overview.publishableKey} />;
    return (
      <Card title="Add a card">
        <Alert tone="warning" title="The card form is not configured">
          Cards are entered in the payment processor&apos;s own form, which needs STRIPE_PUBLISHABLE_KEY on the server.
        </Alert>
      </Card>
    );
  }
  return <AddCardForm projectId={projectId} />;
}

function AddCardForm({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useBillingRefresh(projectId);
  const form = useZodForm(localCardInput);
  const add = useMutation(trpc.billing.addPaymentMethod.mutationOptions());
  const [cardNumber, setCardNumber] = useState('');
  const [expMonth, setExpMonth] = useState('');
  const [expYear, setExpYear] = useState('');
  const [cvc, setCvc] = useState('');
  const [country, setCountry] = useState('');
  const [years] = useState(yearOptions);
  const numberInput = useRef<HTMLInputElement | null>(null);
  const pendingCaret = useRef<number | null>(null);

  // Regrouping replaces the input's value, which sends the caret to the end; put it back where the user was typing.
  useLayoutEffect(() => {
    const input = numberInput.current;
    if (input && pendingCaret.current !== null && document.activeElement === input) input.setSelectionRange(pendingCaret.current, pendingCaret.current);
    pendingCaret.current = null;
  }, [cardNumber]);

  function onNumberChange(event: ChangeEvent<HTMLInputElement>) {
    const input = event.target;
    const caret = input.selectionStart ?? input.value.length;
    const digitsBefore = input.value.slice(0, caret).replace(/\D/g, '').length;
    const formatted = groupDigits(input.value);
    numberInput.current = input;
    pendingCaret.current = caretAfterDigits(formatted, digitsBefore);
    setCardNumber(formatted);
  }

  function fillTestCard(number: string) {
    setCardNumber(number);
    form.clear();
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = form.parse({ cardNumber, expMonth, expYear, cvc, country: country || undefined });
    if (!input) return;
    try {
      const card = await add.mutateAsync({ projectId, ...input });
      setCardNumber('');
      setExpMonth('');
      setExpYear('');
      setCvc('');
      setCountry('');
      toast.success(`${cardLabel(card)} was saved${card.isDefault ? ' as the default card' : ''}`);
      await refresh();
    } catch (error) {
      form.fail(error);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Add a card">
      <Card title="Add a card" description="Payments run on the built-in test ledger: use one of the test cards, nothing is charged for real.">
        <div className={styles.addCard}>
          <div className="form">
            <Input
              label="Card number"
              name="cardNumber"
              inputMode="numeric"
              autoComplete="cc-number"
              placeholder="1234 1234 1234 1234"
              maxLength={MAX_DIGITS + Math.floor((MAX_DIGITS - 1) / 4)}
              value={cardNumber}
              onChange={onNumberChange}
              error={form.errors.cardNumber}
              className="mono"
            />
            <div className={styles.cardFields}>
              <Select
                label="Expiry month"
                name="expMonth"
                autoComplete="cc-exp-month"
                options={MONTHS}
                value={expMonth}
                onChange={(event) => setExpMonth(event.target.value)}
                error={expMonth === '' && form.errors.expMonth ? 'Choose the month' : form.errors.expMonth}
              />
              <Select
                label="Expiry year"
                name="expYear"
                autoComplete="cc-exp-year"
                options={years}
                value={expYear}
                onChange={(event) => setExpYear(event.target.value)}
                error={expYear === '' && form.errors.expYear ? 'Choose the year' : form.errors.expYear}
              />
              <Input
                label="CVC"
                name="cvc"
                inputMode="numeric"
                autoComplete="cc-csc"
                placeholder="123"
                maxLength={4}
                value={cvc}
                onChange={(event) => setCvc(event.target.value.replace(/\D/g, ''))}
                error={form.errors.cvc}
              />
              <Select
                label="Country"
                name="country"
                autoComplete="country"
                options={COUNTRIES}
                value={country}
                onChange={(event) => setCountry(event.target.value)}
                error={form.errors.country}
                hint="Sets the tax rate."
              />
            </div>
            <div className="form-actions">
              <SubmitButton variant="primary" loading={add.isPending}>
                Add card
              </SubmitButton>
            </div>
            {form.formError ? (
              <Alert tone="danger" title="The card was not saved">
                {form.formError}
              </Alert>
            ) : null}
          </div>
          <aside className={styles.testCards} aria-label="Test cards">
            <p className={styles.testCardsTitle}>Test cards</p>
            <p className="muted">Any future expiry date and any 3-digit CVC.</p>
            <ul>
              {TEST_CARDS.map((card) => (
                <li key={card.number}>
                  <button type="button" className={styles.testCardNumber} onClick={() => fillTestCard(card.number)} title="Use this card number">
                    {card.number}
                  </button>
                  <span>{card.outcome}</span>
                </li>
              ))}
            </ul>
          </aside>
        </div>
      </Card>
    </form>
  );
}
