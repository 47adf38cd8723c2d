import { formatBytes } from '../format';
import type { TierPrice } from './databases';
import wizard from '../ui/Wizard.module.css';

/** What a tier gives, as the create form's tier cards and the tier change list it. */
export function TierSpecs({ price }: { price: Pick<TierPrice, 'maxConnections' | 'storageGb' | 'poolSize'> }) {
  return (
    <span className={wizard.specs}>
      <span>{formatBytes(price.storageGb * 1_000_000_000)} storage</span>
      <span>{price.maxConnections} direct connections</span>
      <span>Pool of {price.poolSize}</span>
    </span>
  );
}
