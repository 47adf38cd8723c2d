export const CREATE_ACCOUNT =
  'Public. A payment-processor customer is created and linked in the same transaction; no card is collected. 409 CONFLICT when the email is taken.';

export const RESTORE_ACCOUNT =
  'Public. Always answers data: null whether or not the email has an account; emails a single-use link. 5 attempts per client address per 10 minutes, then 429 RATE_LIMITED with Retry-After.';

export const COMPLETE_RESTORE = 'Public. The token from the reset email works once and expires; every existing session of the account ends.';
