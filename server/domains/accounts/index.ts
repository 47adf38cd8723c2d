import { defineDomain } from '../../platform/domain';
import { accountJobs } from './jobs';
import { accountsRouter } from './router';

/** Sign-up, sign-in credentials, email verification, password resets and the signed-in user's own account. */
export { purgeSpentResetTokens, purgeSpentVerificationTokens } from './jobs';
export { markEmailVerified } from './emailVerification';

export const accountsDomain = defineDomain({
  name: 'accounts',
  routers: { accounts: accountsRouter },
  jobs: accountJobs,
});
