import { Badge } from '../ui/Badge';
import type { BucketView } from './storage';

export function BucketStatus({ bucket }: { bucket: Pick<BucketView, 'status'> }) {
  return bucket.status === 'active' ? (
    <Badge tone="success">Active</Badge>
  ) : (
    <Badge tone="danger" title="Every request on the bucket is refused until it is upgraded or the unpaid invoice is paid">
      Suspended
    </Badge>
  );
}
