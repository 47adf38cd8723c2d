'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { NotificationBell } from '../notifications/NotificationBell';
import { useTRPC } from '../trpc/TrpcProvider';
import { Icon } from '../ui/Icon';
import { AccountMenu } from './AccountMenu';
import { Brand } from './Brand';
import { ProjectSwitcher } from './ProjectSwitcher';
import type { SignedInAccount } from './SignedInAccount';

export function TopBar({ account }: { account: SignedInAccount }) {
  return (
    <header className="topbar">
      <Brand />
      <span className="topbar-divider" aria-hidden />
      <ProjectSwitcher />
      <span className="topbar-spacer" />
      <PendingInvitationsLink enabled={account.emailVerifiedAt !== null} />
      <NotificationBell />
      <AccountMenu account={account} />
    </header>
  );
}

/**
 * Appears only while invitations wait for an answer, so the bar stays quiet otherwise. Invitations
 * are listed by address once the address is verified, so there is nothing to ask before that.
 */
function PendingInvitationsLink({ enabled }: { enabled: boolean }) {
  const trpc = useTRPC();
  const invitations = useQuery({ ...trpc.invitations.listMine.queryOptions({}), enabled });
  const count = invitations.data?.length ?? 0;
  if (count === 0) return null;
  return (
    <Link href="/invitations" className="topbar-link" aria-label={`${count} pending ${count === 1 ? 'invitation' : 'invitations'}`}>
      <Icon name="mail" />
      <span className="topbar-link-text">Invitations</span>
      <span className="count-dot">{count}</span>
    </Link>
  );
}
