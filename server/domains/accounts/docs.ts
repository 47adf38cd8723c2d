import { ACCOUNT_LIMITS } from './service';

const { signUpPerEmail, restorePerAddress, restorePerEmail } = ACCOUNT_LIMITS;

/** "10 minutes", "hour". */
const per = (windowSeconds: number) => (windowSeconds === 3600 ? 'hour' : `${windowSeconds / 60} minutes`);

export const CREATE_ACCOUNT =
  'Public. A payment-processor customer is created and linked in the same transaction; no card is collected. 409 CONFLICT when the email is taken. ' +
  `At most ${signUpPerEmail.limit} attempts per email address per ${per(signUpPerEmail.windowSeconds)}, then 429 RATE_LIMITED with Retry-After.`;

export const RESTORE_ACCOUNT =
  'Public. Always answers data: null whether or not the email has an account; emails a single-use link. ' +
  `${restorePerAddress.limit} attempts per client address per ${per(restorePerAddress.windowSeconds)} and ${restorePerEmail.limit} per email address ` +
  `per ${per(restorePerEmail.windowSeconds)} (counted alike for every address, with or without an account), then 429 RATE_LIMITED with Retry-After.`;

export const COMPLETE_RESTORE = 'Public. The token from the reset email works once and expires; every existing session of the account ends.';
