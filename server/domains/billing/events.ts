import type { EventDeclaration } from '../../platform/domain';

const USER = 'usr_3n5b7v9c1x2z4a6s';
const OTHER_USER = 'usr_7h9j1k3l5z7x9c1v';
const TRANSFER = 'btr_4r6t8y0u2i4o6p8a';

export const billingEvents: readonly EventDeclaration[] = [
  {
    type: 'billing.biller_changed',
    description: "Billing moved to another member's card: they accepted an offer of billing.",
    example: { userId: OTHER_USER, from: USER, by: OTHER_USER, transferId: TRANSFER },
  },
  {
    type: 'billing.transfer_proposed',
    description: 'An owner or the biller offered billing of the project to another member.',
    example: { transferId: TRANSFER, from: USER, to: OTHER_USER, by: USER },
  },
  {
    type: 'billing.transfer_declined',
    description: 'The member offered billing declined it.',
    example: { transferId: TRANSFER, by: OTHER_USER },
  },
  {
    type: 'billing.transfer_cancelled',
    description: 'An offer of billing was withdrawn (`reason: "withdrawn"`) or lapsed because a member it involves lost access (`"member_lost_access"`).',
    example: { transferId: TRANSFER, by: USER, reason: 'withdrawn' },
  },
  {
    type: 'billing.project_suspended',
    description: "The project's paid resources were suspended because invoices stayed unpaid past the grace period.",
    example: { invoices: [{ id: 'in_6y8u0i2o4p6a8s0d', period: '2026-10' }], unpaidSince: '2026-10-01T00:05:00.000Z' },
  },
  {
    type: 'billing.project_resumed',
    description: 'Paying the last unpaid invoice lifted the suspension of the project.',
    example: { invoiceId: 'in_6y8u0i2o4p6a8s0d', suspendedAt: '2026-10-08T00:05:00.000Z' },
  },
  {
    type: 'payment_method.added',
    description: 'The biller saved a card for the project.',
    example: { paymentMethodId: 'pm_1P2q3R4s5T6u7V8w', brand: 'visa', last4: '4242' },
  },
  {
    type: 'charge.succeeded',
    description: "A purchase was charged to the biller's card (amount in minor units).",
    example: { purchaseId: 'pur_0p8o6i4u2y0t8r6e', resourceType: 'server', amount: 420, currency: 'usd' },
  },
  {
    type: 'order.refunded',
    description: "The payment processor reported a refund of one of the project's charges (amount refunded, in minor units).",
    example: { processorObjectId: 'ch_3P2q1R0s9T8u7V6w', amount: 400, currency: 'usd' },
  },
  {
    type: 'payment.failed',
    description: "The payment processor reported a failed payment of the project's.",
    example: { processorObjectId: 'pi_3P2q1R0s9T8u7V6w', amount: 1200, currency: 'usd' },
  },
  {
    type: 'invoice.paid',
    description:
      "A monthly invoice of the project was paid (when the processor reports it, `processorObjectId` names the processor's invoice instead of `invoiceId` and `period`).",
    example: { invoiceId: 'in_6y8u0i2o4p6a8s0d', period: '2026-10', amount: 1200, currency: 'usd' },
  },
  {
    type: 'invoice.payment_failed',
    description: 'Charging a monthly invoice failed; the project is blocked until it is paid and the charge is retried at `nextAttemptAt`.',
    example: {
      invoiceId: 'in_6y8u0i2o4p6a8s0d',
      period: '2026-10',
      amount: 1200,
      currency: 'usd',
      failureCode: 'card_declined',
      nextAttemptAt: '2026-10-02T00:05:00.000Z',
    },
  },
  {
    type: 'subscription.downgraded',
    description: "A resource moved to a cheaper tier; the prorated difference (`creditBack`) went to the project's credit balance.",
    example: { billingItemId: 'bi_2s4d6f8g0h2j4k6l', creditBack: 350, monthly: 500 },
  },
];
