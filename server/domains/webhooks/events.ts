import type { EventDeclaration } from '../../platform/domain';

export const webhookEvents: readonly EventDeclaration[] = [
  {
    type: 'webhook.test',
    description: 'A test event sent on request (`POST …/webhooks/{endpointId}/test`) to one endpoint only, to check that it receives and verifies deliveries.',
    example: { endpointId: 'whe_4f6g8h0j2k4l6z8x', message: 'A test event from the control panel' },
  },
  {
    type: 'webhook.endpoint_paused',
    description:
      'A webhook endpoint stopped receiving deliveries on its own: after consecutive deliveries that failed for good (`reason: "failures"`) or because its URL answered 410 Gone (`"gone"`); its deliveries are held until it is resumed.',
    example: { endpointId: 'whe_4f6g8h0j2k4l6z8x', url: 'https://example.com/hooks', reason: 'failures', consecutiveFailures: 5 },
  },
  {
    type: 'webhook.endpoint_resumed',
    description: 'A paused webhook endpoint was resumed and the deliveries held meanwhile were queued again, in the order of their events.',
    example: { endpointId: 'whe_4f6g8h0j2k4l6z8x', url: 'https://example.com/hooks', requeued: 12, by: 'usr_3n5b7v9c1x2z4a6s' },
  },
];
