'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
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
      <PendingInvitationsLink />
      <AccountMenu account={account} />
    </header>
  );
}

/** Appears only while invitations wait for an answer, so the bar stays quiet otherwise. */
function PendingInvitationsLink() {
  const trpc = useTRPC();
  const invitations = useQuery(trpc.invitations.listMine.queryOptions({}));
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
