export const BILLER_ONLY = 'Only the member who holds billing.';

export const BILLING_OVERVIEW = 'Who holds billing, the default card, credit balance, blocked state and what was charged this month. Owner or admin.';

export const ADD_PAYMENT_METHOD = `${BILLER_ONLY} Local mode takes { cardNumber, expMonth, expYear, cvc, country? } (test cards: 4242 4242 4242 4242 works; 4000 0000 0000 0002 and 4000 0000 0000 9995 are declined with 402 CARD_DECLINED; 4000 0000 0000 0341 saves but declines when charged). Processor mode takes { paymentMethodId } from the card form. The first card becomes the default.`;

export const CREATE_CARD_SETUP = `Returns the SetupIntent client secret for the processor's card form. 400 in local mode. ${BILLER_ONLY}`;

export const REMOVE_PAYMENT_METHOD = `${BILLER_ONLY} The default card can only be removed when it is the last one (409 CONFLICT otherwise).`;

export const PAY_INVOICE =
  "Charges a failed invoice again with the biller's current default card; paying the last unpaid invoice unblocks the project. 402 CARD_DECLINED when it fails again, 409 when already paid or still being collected by the month's close. Each attempt charges once however often it is sent; a charge that finds the invoice paid by another attempt is refunded.";

export const TRANSFER_BILLER = 'Owner only. The new biller must be an owner or admin (409 otherwise); their default card pays from then on.';
