import { sentence } from '../billing/ProjectBillingAlert';
import { Alert } from '../ui/Alert';
import type { DnsProviderInfo } from './dnsProvider';

/** Records made with the simulator reach no public nameserver; people must not wait for them to appear on the internet. */
export function DnsSimulatorNotice({ provider }: { provider: DnsProviderInfo }) {
  if (provider.kind !== 'simulator') return null;
  return (
    <Alert tone="info" title="The DNS provider on this installation is simulated">
      {sentence(provider.description)} Any 40-character token connects an account holding demo zones; its records are answered only by this installation’s own
      nameserver, when one is configured.
    </Alert>
  );
}
