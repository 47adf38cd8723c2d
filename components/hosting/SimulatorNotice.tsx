import { sentence } from '../billing/ProjectBillingAlert';
import { Alert } from '../ui/Alert';
import type { HostingProviderInfo } from './hosting';

/** Without nginx and php-fpm nothing serves the sites' addresses; people must not find that out from a timeout. */
export function WebSimulatorNotice({ provider }: { provider: HostingProviderInfo }) {
  if (provider.web.kind !== 'simulator') return null;
  return (
    <Alert tone="info" title="Sites on this installation are not served">
      {sentence(provider.web.description)} Files, domains, databases, SFTP and billing work as they will; the ready state is simulated and the sites&apos;
      addresses do not answer.
    </Alert>
  );
}

/** Without a MySQL administrator URL the databases exist only in the panel. */
export function DatabaseSimulatorNotice({ provider }: { provider: HostingProviderInfo }) {
  if (provider.databases.kind !== 'simulator') return null;
  return (
    <Alert tone="info" title="MySQL databases on this installation are simulated">
      {sentence(provider.databases.description)} Creating, listing and deleting work as they will; connecting with a client does not.
    </Alert>
  );
}
