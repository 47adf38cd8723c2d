export const BILLER_ONLY = 'Only the member who holds billing.';

export const BILLING_OVERVIEW = [
  'Who holds billing, any pending offer of billing, credit balance, blocked and suspended state and what was charged this month. Owner or admin.',
  "defaultPaymentMethod is the biller's own card and is shown to the biller only; billerHasPaymentMethod tells everyone else whether one is on file.",
].join(' ');

export const LIST_PAYMENT_METHODS =
  "The saved cards of the member who holds billing, shown to that member only (403 FORBIDDEN to anyone else): they are the biller's personal cards.";

export const ADD_PAYMENT_METHOD = `${BILLER_ONLY} Local mode takes { cardNumber, expMonth, expYear, cvc, country? } (test cards: 4242 4242 4242 4242 works; 4000 0000 0000 0002 and 4000 0000 0000 9995 are declined with 402 CARD_DECLINED; 4000 0000 0000 0341 saves but declines when charged). Processor mode takes { paymentMethodId } from the card form. The first card becomes the default.`;

export const CREATE_CARD_SETUP = `Returns the SetupIntent client secret for the processor's card form. 400 in local mode. ${BILLER_ONLY}`;

export const REMOVE_PAYMENT_METHOD = [
  BILLER_ONLY,
  'The default card can only be removed when it is the last one (409 CONFLICT otherwise).',
  "The last card cannot be removed while it pays for running resources in any project the member holds billing for (409 CONFLICT naming them): a biller's cards pay for all of them.",
].join(' ');

export const PAY_INVOICE = [
  "Charges a failed invoice again with the biller's current default card; paying the last unpaid invoice unblocks the project and lifts a suspension (its stopped resources come back on).",
  "402 CARD_DECLINED when it fails again, 409 when already paid or still being collected by the month's close.",
  'Each attempt charges once however often it is sent; a charge that finds the invoice paid by another attempt is refunded. Dunning retries failed invoices on its own schedule through the same path.',
].join(' ');

export const PROPOSE_BILLER_TRANSFER = [
  'Offers billing to another member; nothing moves until that member accepts (POST …/billing/biller/transfers/{transferId}/accept).',
  'An owner or the current biller may make the offer (403 FORBIDDEN otherwise); the member must be an owner or admin and not already the biller (409 CONFLICT).',
  'One offer per project is pending at a time (409 CONFLICT while another is); it lapses after BILLER_TRANSFER_TTL_HOURS (7 days by default). Answers the overview with pendingTransfer set.',
].join(' ');

export const ACCEPT_BILLER_TRANSFER =
  'Only the member the offer names (403 FORBIDDEN otherwise). Billing moves to them at once and their default card pays from then on. 409 CONFLICT when the offer was already answered, cancelled or has expired.';

export const DECLINE_BILLER_TRANSFER =
  'Only the member the offer names (403 FORBIDDEN otherwise). Billing stays where it is. 409 CONFLICT when the offer is no longer pending.';

export const CANCEL_BILLER_TRANSFER =
  'Withdraws a pending offer: whoever made it, the current biller or an owner may (403 FORBIDDEN otherwise). 409 CONFLICT when it is no longer pending.';

export const LIST_ACCOUNT_INVOICES =
  "Every invoice paid with the signed-in user's cards, newest first, in any project, including projects deleted since: invoices are never deleted, and a deleted project's stay readable here (projectId null). Session only.";
