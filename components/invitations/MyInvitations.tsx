'use client';

import { useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import { useRouter } from 'next/navigation';
import type { AppRouter } from '@/server/app';
import { ResendVerificationButton } from '../account/ResendVerificationButton';
import { useSignedInAccount } from '../shell/SignedInAccount';
import { formatDate, formatRelative, initials, ROLE_LABELS } from '../format';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { Button, ButtonLink } from '../ui/Button';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { PageHeader } from '../ui/PageHeader';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/Toast';
import { useInvitationResponse } from './useInvitationResponse';

type ReceivedInvitation = inferRouterOutputs<AppRouter>['invitations']['listMine'][number];

export function MyInvitations() {
  const trpc = useTRPC();
  const account = useSignedInAccount();
  const verified = account.emailVerifiedAt !== null;
  const invitations = useQuery({ ...trpc.invitations.listMine.queryOptions({}), enabled: verified });

  return (
    <main className="page page-narrow" style={{ maxWidth: 820 }}>
      <PageHeader title="Invitations" description="Projects you have been invited to. Accepting adds the project to your list with the role shown." />
      <section className="card card-flush" aria-label="Pending invitations">
        {verified ? (
          <DataList
            label="Invitations"
            query={invitations}
            loading={[0, 1].map((i) => (
              <div key={i} className="invitation-item">
                <Skeleton width="50%" height={18} />
                <Skeleton width={160} height={30} />
              </div>
            ))}
            empty={
              <EmptyState
                icon="mail"
                title="No pending invitations"
                description="When someone invites your email address to a project, it shows up here."
                action={<ButtonLink href="/projects">Go to your projects</ButtonLink>}
              />
            }
          >
            {(items) => items.map((invitation) => <InvitationItem key={invitation.id} invitation={invitation} />)}
          </DataList>
        ) : (
          <EmptyState
            icon="mail"
            title="Verify your email address to see your invitations"
            description={`Invitations are matched to ${account.email} once you have opened the verification link we sent there. A link in an invitation email works without it.`}
            action={<ResendVerificationButton email={account.email} variant="primary" />}
          />
        )}
      </section>
    </main>
  );
}

function InvitationItem({ invitation }: { invitation: ReceivedInvitation }) {
  const router = useRouter();
  const toast = useToast();
  const { accept, reject } = useInvitationResponse();
  const busy = accept.isPending || reject.isPending;

  async function onAccept() {
    try {
      const joined = await accept.mutateAsync({ invitationId: invitation.id });
      toast.success(`You joined ${invitation.project.name}`);
      router.push(`/projects/${joined.projectId}`);
    } catch (error) {
      toast.error(errorMessage(error));
    }
  }

  async function onReject() {
    try {
      await reject.mutateAsync({ invitationId: invitation.id });
      toast.success(`You declined the invitation to ${invitation.project.name}`);
    } catch (error) {
      toast.error(errorMessage(error));
    }
  }

  return (
    <article className="invitation-item" aria-label={`Invitation to ${invitation.project.name}`}>
      <div className="row" style={{ gap: 12, flexWrap: 'nowrap', minWidth: 0 }}>
        <span className="project-avatar" style={{ width: 36, height: 36, borderRadius: 10, fontSize: 15 }}>
          {initials(invitation.project.name).slice(0, 1)}
        </span>
        <div style={{ minWidth: 0 }}>
          <div className="row" style={{ gap: 8 }}>
            <strong>{invitation.project.name}</strong>
            <Badge>{ROLE_LABELS[invitation.role]}</Badge>
          </div>
          <p className="cell-sub">
            Invited by {invitation.invitedBy.name} ({invitation.invitedBy.email}) · expires{' '}
            <span title={formatDate(invitation.expiresAt)}>{formatRelative(invitation.expiresAt)}</span>
          </p>
        </div>
      </div>
      <div className="row">
        <Button variant="ghost" onClick={onReject} loading={reject.isPending} disabled={busy}>
          Decline
        </Button>
        <Button variant="primary" onClick={onAccept} loading={accept.isPending} disabled={busy}>
          Accept
        </Button>
      </div>
    </article>
  );
}
