import { sentence } from '../billing/ProjectBillingAlert';
import { Alert } from '../ui/Alert';
import type { RedisProviderInfo } from './catalog';

/** Without redis-server on the host nothing listens on the addresses shown; people must not find that out from a timeout. */
export function SimulatorNotice({ provider }: { provider: RedisProviderInfo }) {
  if (provider.kind !== 'simulator') return null;
  return (
    <Alert tone="info" title="Redis databases on this installation are simulated">
      {sentence(provider.description)} Creating, billing and usage work as they will; connecting with a client does not.
    </Alert>
  );
}
