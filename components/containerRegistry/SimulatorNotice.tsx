import { sentence } from '../billing/ProjectBillingAlert';
import { Alert } from '../ui/Alert';
import type { RegistryProviderInfo } from './registry';

/** Without docker-registry on the host a model of its API answers; nobody should take it for the real registry. */
export function SimulatorNotice({ provider }: { provider: RegistryProviderInfo }) {
  if (provider.kind !== 'simulator') return null;
  return (
    <Alert tone="info" title="Container registries on this installation are simulated">
      {sentence(provider.description)} Logging in, pushing, pulling, scanning and billing work as they will, against a model of the Docker registry API instead
      of Docker Distribution itself.
    </Alert>
  );
}
