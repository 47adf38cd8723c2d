import { getConfig } from '../../config';
import { LocalLedgerPayments } from './local';
import type { PaymentsProvider } from './types';

export type { PaymentsProvider } from './types';

let provider: PaymentsProvider | undefined;

export function getPaymentsProvider(): PaymentsProvider {
  if (!provider) {
    switch (getConfig().PAYMENTS_PROVIDER) {
      case 'local':
        provider = new LocalLedgerPayments();
        break;
    }
  }
  return provider;
}
