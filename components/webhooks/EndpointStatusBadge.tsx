import type { WebhookDeliveryStatus, WebhookEndpoint } from '@/server/domains/webhooks/schema';
import { Badge, type BadgeTone } from '../ui/Badge';

const ENDPOINT: Record<WebhookEndpoint['status'], { label: string; tone: BadgeTone }> = {
  active: { label: 'Active', tone: 'success' },
  paused: { label: 'Paused', tone: 'warning' },
  disabled: { label: 'Disabled', tone: 'danger' },
};

const REASON: Record<NonNullable<WebhookEndpoint['pausedReason']>, string> = {
  manual: 'Paused by hand',
  failures: 'Paused automatically after repeated failed deliveries',
  gone: 'Disabled: the URL answered 410 Gone',
};

export function EndpointStatusBadge({ endpoint }: { endpoint: Pick<WebhookEndpoint, 'status' | 'pausedReason'> }) {
  const known = ENDPOINT[endpoint.status];
  return (
    <span data-status={endpoint.status}>
      <Badge tone={known.tone} title={endpoint.pausedReason ? REASON[endpoint.pausedReason] : undefined}>
        {known.label}
      </Badge>
    </span>
  );
}

export function pauseReasonText(reason: WebhookEndpoint['pausedReason']): string | null {
  return reason ? REASON[reason] : null;
}

const DELIVERY: Record<WebhookDeliveryStatus, { label: string; tone: BadgeTone }> = {
  pending: { label: 'Pending', tone: 'accent' },
  held: { label: 'Held', tone: 'warning' },
  succeeded: { label: 'Delivered', tone: 'success' },
  failed: { label: 'Failed', tone: 'danger' },
};

export function DeliveryStatusBadge({ status }: { status: WebhookDeliveryStatus }) {
  const known = DELIVERY[status];
  return (
    <span data-status={status}>
      <Badge tone={known.tone}>{known.label}</Badge>
    </span>
  );
}
