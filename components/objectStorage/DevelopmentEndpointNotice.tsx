import { sentence } from '../billing/ProjectBillingAlert';
import { Alert } from '../ui/Alert';
import type { StorageProviderInfo } from './storage';

/** The embedded endpoint keeps objects on one disk of this host; nobody should find that out after storing production data. */
export function DevelopmentEndpointNotice({ provider }: { provider: StorageProviderInfo }) {
  if (provider.kind !== 'embedded') return null;
  return (
    <Alert tone="warning" title="Development S3 endpoint: not for production data">
      {sentence(provider.description)} Buckets, credentials, billing and usage work as they will; the objects are kept on one disk of this installation.
    </Alert>
  );
}
