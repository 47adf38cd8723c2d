'use client';

import { useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { ResendVerificationButton } from '../account/ResendVerificationButton';
import { withCallback } from '../auth/callbackUrl';
import { formatDateTime, ROLE_LABELS } from '../format';
import { appErrorOf, errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button, ButtonLink } from '../ui/Button';
import { Skeleton } from '../ui/Skeleton';
import { useInvitationResponse } from './useInvitationResponse';

const CLOSED_STATUS_TEXT = {
  ACCEPTED: 'This invitation has already been accepted.',
  REJECTED: 'This invitation was declined.',
  REVOKED: 'This invitation was withdrawn by the project.',
  EXPIRED: 'This invitation has expired. Ask the person who invited you to send a new one.',
} as const;

/**
 * The page an invitation email links to: anyone with the link sees what it is; only a signed-in
 * user can answer. The link's secret is sent with the answer (and kept through sign-in and
 * sign-up), which lets the holder answer whatever their account's address.
 */
export function InvitationResponse({ invitationId, secret, signedInAs }: { invitationId: string; secret?: string; signedInAs: string | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const invitation = useQuery(trpc.invitations.getPublic.queryOptions({ invitationId }));
  const { accept, reject } = useInvitationResponse();
  const [declined, setDeclined] = useState(false);
  const here = secret ? `/invitations/${invitationId}?secret=${encodeURIComponent(secret)}` : `/invitations/${invitationId}`;

  if (invitation.isPending) {
    return (
      <div className="stack" aria-busy="true">
        <Skeleton height={22} width="70%" />
        <Skeleton height={96} />
        <Skeleton height={38} />
      </div>
    );
  }
  if (invitation.isError) {
    const notFound = appErrorOf(invitation.error).code === 'NOT_FOUND';
    return (
      <div className="stack">
        <Alert tone="danger" title={notFound ? 'Invitation not found' : 'The invitation could not be loaded'}>
          {notFound ? 'The link may be mistyped, or the invitation was deleted with its project.' : errorMessage(invitation.error)}
        </Alert>
        <ButtonLink href="/projects">Go to the panel</ButtonLink>
      </div>
    );
  }

  const details = invitation.data;
  const refusal = accept.error ?? reject.error;

  async function onAccept() {
    try {
      const joined = await accept.mutateAsync({ invitationId, secret });
      router.push(`/projects/${joined.projectId}`);
    } catch {
      return;
    }
  }

  async function onReject() {
    try {
      await reject.mutateAsync({ invitationId, secret });
      setDeclined(true);
    } catch {
      return;
    }
  }

  return (
    <div className="stack">
      <div className="invite-summary">
        <p style={{ fontSize: 15 }}>
          <strong>{details.invitedBy.name}</strong> invited you to join <strong>{details.project.name}</strong> as{' '}
          <strong>{ROLE_LABELS[details.role].toLowerCase()}</strong>.
        </p>
        <dl className="details-list">
          <dt>Project</dt>
          <dd>{details.project.name}</dd>
          <dt>Role</dt>
          <dd>{ROLE_LABELS[details.role]}</dd>
          <dt>Invited by</dt>
          <dd>{details.invitedBy.name}</dd>
          <dt>Sent to</dt>
          <dd>{details.email}</dd>
          <dt>Expires</dt>
          <dd>{formatDateTime(details.expiresAt)}</dd>
        </dl>
      </div>

      {declined ? (
        <>
          <Alert tone="info">You declined the invitation. Nothing changed in your account.</Alert>
          <ButtonLink href="/projects">Go to your projects</ButtonLink>
        </>
      ) : details.status !== 'PENDING' ? (
        <>
          <Alert tone="warning">{CLOSED_STATUS_TEXT[details.status]}</Alert>
          <ButtonLink href="/projects">Go to the panel</ButtonLink>
        </>
      ) : signedInAs ? (
        <>
          {refusal ? <Refusal error={refusal} signedInAs={signedInAs} /> : null}
          <div className="row" style={{ justifyContent: 'flex-end' }}>
            <Button variant="ghost" onClick={onReject} loading={reject.isPending} disabled={accept.isPending}>
              Decline
            </Button>
            <Button variant="primary" onClick={onAccept} loading={accept.isPending} disabled={reject.isPending}>
              Accept invitation
            </Button>
          </div>
          <p className="muted" style={{ fontSize: 13 }}>
            Signed in as {signedInAs}.{' '}
            {secret ? 'This link lets you join with this account.' : 'The invitation must have been sent to this address, and the address verified.'}
          </p>
        </>
      ) : (
        <>
          <p className="secondary">
            {secret ? 'Sign in or create an account to accept.' : 'Sign in or create an account with the invited email address to accept.'}
          </p>
          <div className="stack" style={{ gap: 8 }}>
            <ButtonLink href={withCallback('/login', here)} variant="primary" block>
              Sign in to accept
            </ButtonLink>
            <ButtonLink href={withCallback('/signup', here)} block>
              Create an account
            </ButtonLink>
          </div>
          <p className="muted" style={{ fontSize: 13 }}>
            Not expecting this? You can ignore it; it expires on its own.
          </p>
        </>
      )}
    </div>
  );
}

/** Why the answer was refused; an unverified address is something the invitee can fix from here. */
function Refusal({ error, signedInAs }: { error: unknown; signedInAs: string }) {
  if (appErrorOf(error).code !== 'EMAIL_NOT_VERIFIED') return <Alert tone="danger">{errorMessage(error)}</Alert>;
  return (
    <Alert tone="warning" title="Verify your email address first">
      <p>
        This invitation was sent to {signedInAs}, but the address is not verified yet, so anyone could have created an account with it. Open the verification
        link we emailed you, or open this invitation from the link in its own email.
      </p>
      <div style={{ marginTop: 8 }}>
        <ResendVerificationButton email={signedInAs} size="sm" />
      </div>
    </Alert>
  );
}
