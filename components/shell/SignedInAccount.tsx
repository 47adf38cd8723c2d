'use client';

import type { inferRouterOutputs } from '@trpc/server';
import { createContext, useContext, type ReactNode } from 'react';
import type { AppRouter } from '@/server/app';

export type SignedInAccount = inferRouterOutputs<AppRouter>['accounts']['me'];

const AccountContext = createContext<SignedInAccount | null>(null);

/** The panel layout resolves the account on the server; client pages read it from here. */
export function SignedInAccountProvider({ account, children }: { account: SignedInAccount; children: ReactNode }) {
  return <AccountContext.Provider value={account}>{children}</AccountContext.Provider>;
}

export function useSignedInAccount(): SignedInAccount {
  const account = useContext(AccountContext);
  if (!account) throw new Error('useSignedInAccount must be used inside the signed-in panel');
  return account;
}
