import { Badge } from '../ui/Badge';
import type { RegistryView } from './registry';

export function RegistryStatus({ registry }: { registry: Pick<RegistryView, 'status'> }) {
  return registry.status === 'active' ? (
    <Badge tone="success">Active</Badge>
  ) : (
    <Badge tone="danger" title="An invoice is unpaid past its grace period: pushes and anonymous pulls are refused until it is paid">
      Suspended
    </Badge>
  );
}
