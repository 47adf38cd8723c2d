'use client';

import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { ResendVerificationButton } from '../account/ResendVerificationButton';
import { appErrorOf } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button, ButtonLink } from '../ui/Button';
import { Skeleton } from '../ui/Skeleton';
import { withCallback } from './callbackUrl';

interface SignedIn {
  email: string;
  verified: boolean;
}

/**
 * The page a verification email links to. The link is used as soon as the page opens, once: its
 * token works a single time, so a second request would only report it as used.
 */
export function VerifyEmail({ token, signedIn }: { token: string; signedIn: SignedIn | null }) {
  const trpc = useTRPC();
  const verify = useMutation(trpc.accounts.verifyEmail.mutationOptions());
  const sent = useRef(false);

  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    verify.mutate({ token });
  }, [token, verify]);

  if (verify.isSuccess) {
    return (
      <div className="stack">
        <Alert tone="success" title="Your email address is verified">
          {verify.data.email} is confirmed. Invitations sent to it can now be accepted.
        </Alert>
        <ButtonLink href="/projects" variant="primary" block>
          Continue to the panel
        </ButtonLink>
      </div>
    );
  }

  if (verify.isError) {
    const code = appErrorOf(verify.error).code;
    if (signedIn?.verified) {
      return (
        <div className="stack">
          <Alert tone="success" title="Your email address is already verified">
            {signedIn.email} was confirmed earlier; this link is no longer needed.
          </Alert>
          <ButtonLink href="/projects" variant="primary" block>
            Continue to the panel
          </ButtonLink>
        </div>
      );
    }
    if (code === 'LINK_EXPIRED' || code === 'BAD_REQUEST') {
      return (
        <div className="stack">
          {code === 'LINK_EXPIRED' ? (
            <Alert tone="warning" title="This link has expired">
              Verification links work for 24 hours. Send yourself a new one.
            </Alert>
          ) : (
            <Alert tone="danger" title="This link is not valid">
              It may have been used already, or a newer link replaced it. Open the newest link we sent, or send a new one.
            </Alert>
          )}
          <NewLink signedIn={signedIn} />
        </div>
      );
    }
    return (
      <div className="stack">
        <Alert tone="danger" title="Your email address could not be verified">
          {appErrorOf(verify.error).message}
        </Alert>
        <Button variant="primary" block onClick={() => verify.mutate({ token })}>
          Try again
        </Button>
      </div>
    );
  }

  return (
    <div className="stack" aria-busy="true">
      <p className="secondary">Confirming your email address…</p>
      <Skeleton height={44} />
    </div>
  );
}

function NewLink({ signedIn }: { signedIn: SignedIn | null }) {
  if (signedIn) {
    return (
      <div className="stack" style={{ gap: 8 }}>
        <ResendVerificationButton email={signedIn.email} variant="primary" />
        <p className="muted" style={{ fontSize: 13 }}>
          It goes to {signedIn.email}.
        </p>
      </div>
    );
  }
  return (
    <ButtonLink href={withCallback('/login', '/account')} variant="primary" block>
      Sign in to send a new link
    </ButtonLink>
  );
}
