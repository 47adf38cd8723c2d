import { ACCOUNT_LIMITS } from './service';

const { signUpPerEmail, restorePerAddress, restorePerEmail } = ACCOUNT_LIMITS;

/** "10 minutes", "hour". */
const per = (windowSeconds: number) => (windowSeconds === 3600 ? 'hour' : `${windowSeconds / 60} minutes`);

export const CREATE_ACCOUNT = [
  'Public. A payment-processor customer is created and linked in the same transaction; no card is collected. 409 CONFLICT when the email is taken.',
  'The address starts unverified: an email with a verification link (valid 24 hours, single use) is sent to it.',
  `At most ${signUpPerEmail.limit} attempts per email address per ${per(signUpPerEmail.windowSeconds)}, then 429 RATE_LIMITED with Retry-After.`,
].join(' ');

export const RESTORE_ACCOUNT =
  'Public. Always answers data: null whether or not the email has an account; emails a single-use link. ' +
  `${restorePerAddress.limit} attempts per client address per ${per(restorePerAddress.windowSeconds)} and ${restorePerEmail.limit} per email address ` +
  `per ${per(restorePerEmail.windowSeconds)} (counted alike for every address, with or without an account), then 429 RATE_LIMITED with Retry-After.`;

export const COMPLETE_RESTORE = 'Public. The token from the reset email works once and expires; every existing session of the account ends.';

export const VERIFY_EMAIL = [
  'Public: the token from the verification email (the last segment of its /verify-email/ link) is the credential. It works once and marks the address it was sent to as verified.',
  '400 LINK_EXPIRED when it has expired; 400 BAD_REQUEST when it is unknown or already used.',
].join(' ');

export const RESEND_VERIFICATION = [
  'Emails a new verification link to the account address (earlier links keep working until they expire or one is used).',
  '409 CONFLICT when the address is already verified; 5 per account per hour, then 429 RATE_LIMITED with Retry-After.',
].join(' ');
