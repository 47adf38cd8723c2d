import { getConfig } from '../../platform/config';
import { LocalLedgerPayments } from './local';
import { StripePayments } from './stripe';
import type { PaymentsProvider } from './types';

export type { CardSetup, PaymentsProvider, SavedCard } from './types';

let provider: PaymentsProvider | undefined;

export function getPaymentsProvider(): PaymentsProvider {
  if (!provider) {
    const config = getConfig();
    switch (config.PAYMENTS_PROVIDER) {
      case 'local':
        provider = new LocalLedgerPayments();
        break;
      case 'stripe':
        if (!config.STRIPE_SECRET_KEY) throw new Error('STRIPE_SECRET_KEY is required when PAYMENTS_PROVIDER=stripe');
        provider = new StripePayments({
          secretKey: config.STRIPE_SECRET_KEY,
          publishableKey: config.STRIPE_PUBLISHABLE_KEY,
          apiUrl: config.STRIPE_API_URL,
        });
        break;
    }
  }
  return provider;
}
