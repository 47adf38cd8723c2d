'use client';

import type { ReactNode } from 'react';
import { TrpcProvider } from './trpc/TrpcProvider';
import { ToastProvider } from './ui/Toast';

export function Providers({ children }: { children: ReactNode }) {
  return (
    <TrpcProvider>
      <ToastProvider>{children}</ToastProvider>
    </TrpcProvider>
  );
}
