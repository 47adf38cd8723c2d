'use client';

import { signOut } from 'next-auth/react';
import Link from 'next/link';
import { initials } from '../format';
import { Icon } from '../ui/Icon';
import { Menu } from '../ui/Menu';
import type { SignedInAccount } from './SignedInAccount';

export function AccountMenu({ account }: { account: SignedInAccount }) {
  async function signOutAndLeave() {
    await signOut({ redirect: false });
    window.location.assign('/login');
  }

  return (
    <Menu
      align="end"
      buttonClassName="account-button"
      buttonLabel={`Account menu for ${account.name}`}
      button={
        <>
          <span className="avatar" aria-hidden>
            {initials(account.name)}
          </span>
          <span className="account-button-name">{account.name}</span>
          <Icon name="chevronDown" size={14} />
        </>
      }
    >
      {(close) => (
        <>
          <div className="menu-identity">
            <span style={{ fontWeight: 600 }}>{account.name}</span>
            <span className="muted">{account.email}</span>
          </div>
          <div className="menu-separator" />
          <Link href="/account" className="menu-item" onClick={close}>
            <Icon name="user" />
            Account settings
          </Link>
          <Link href="/invitations" className="menu-item" onClick={close}>
            <Icon name="mail" />
            Invitations
          </Link>
          <Link href="/projects" className="menu-item" onClick={close}>
            <Icon name="folder" />
            Projects
          </Link>
          <div className="menu-separator" />
          <button type="button" className="menu-item" onClick={signOutAndLeave}>
            <Icon name="logout" />
            Sign out
          </button>
        </>
      )}
    </Menu>
  );
}
