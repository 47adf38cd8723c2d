'use client';

import type { SignedInAccount } from '../shell/SignedInAccount';
import { Icon } from '../ui/Icon';
import { ResendVerificationButton } from './ResendVerificationButton';
import styles from './EmailVerificationBanner.module.css';

/** Across the panel until the account's address is verified: invitations to it wait for that. */
export function EmailVerificationBanner({ account }: { account: SignedInAccount }) {
  if (account.emailVerifiedAt) return null;
  return (
    <div className={styles.banner} role="status" aria-label="Email address not verified">
      <p className={styles.text}>
        <Icon name="mail" className={styles.icon} />
        <span>
          <strong>Confirm your email address.</strong> Open the link we sent to {account.email}; until then, invitations sent to this address cannot be
          accepted.
        </span>
      </p>
      <ResendVerificationButton email={account.email} size="sm" />
    </div>
  );
}
