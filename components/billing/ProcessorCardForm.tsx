'use client';

import { loadStripe, type Stripe, type StripeCardElement } from '@stripe/stripe-js';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Card } from '../ui/Card';
import { SubmitButton } from '../ui/SubmitButton';
import { useToast } from '../ui/Toast';
import { cardLabel } from './format';
import { useBillingRefresh } from './useBillingRefresh';
import styles from './billing.module.css';

/**
 * Processor mode: the card number is typed into the processor's own field (an iframe), confirmed
 * against a SetupIntent our server creates, and only the resulting payment method id reaches us.
 */
export function ProcessorCardForm({ projectId, publishableKey }: { projectId: string; publishableKey: string }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useBillingRefresh(projectId);
  const setup = useMutation(trpc.billing.createCardSetup.mutationOptions());
  const add = useMutation(trpc.billing.addPaymentMethod.mutationOptions());
  const mountPoint = useRef<HTMLDivElement | null>(null);
  const cardField = useRef<StripeCardElement | null>(null);
  const [stripe, setStripe] = useState<Stripe | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    let cancelled = false;
    loadStripe(publishableKey)
      .then((loaded) => {
        if (cancelled || !loaded || !mountPoint.current) return;
        const field = loaded.elements().create('card', { hidePostalCode: true });
        field.mount(mountPoint.current);
        cardField.current = field;
        setStripe(loaded);
      })
      .catch(() => setError('The card form could not be loaded. Check your connection and reload the page.'));
    return () => {
      cancelled = true;
      cardField.current?.destroy();
      cardField.current = null;
    };
  }, [publishableKey]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const field = cardField.current;
    if (!stripe || !field) return;
    setSaving(true);
    setError(null);
    try {
      const { clientSecret } = await setup.mutateAsync({ projectId });
      const confirmed = await stripe.confirmCardSetup(clientSecret, { payment_method: { card: field } });
      if (confirmed.error) {
        setError(confirmed.error.message ?? 'The card was not saved.');
        return;
      }
      const method = confirmed.setupIntent.payment_method;
      const paymentMethodId = typeof method === 'string' ? method : method?.id;
      if (!paymentMethodId) {
        setError('The payment processor did not return the saved card; try again.');
        return;
      }
      const card = await add.mutateAsync({ projectId, paymentMethodId });
      toast.success(`${cardLabel(card)} was saved${card.isDefault ? ' as the default card' : ''}`);
      field.clear();
      await refresh();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setSaving(false);
    }
  }

  return (
    <Card title="Add a card" description="Card details go straight to the payment processor and never pass through this panel.">
      <form onSubmit={onSubmit} noValidate aria-label="Add a card" className="stack">
        <div ref={mountPoint} className={styles.processorCardField} aria-label="Card details" />
        {error ? <Alert tone="danger">{error}</Alert> : null}
        <div>
          <SubmitButton loading={saving} disabled={!stripe}>
            Save card
          </SubmitButton>
        </div>
      </form>
    </Card>
  );
}
