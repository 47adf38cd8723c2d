import type { ReactNode } from 'react';
import { Brand } from '@/components/shell/Brand';

export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <div className="auth-screen">
      <div className="auth-brand">
        <Brand />
      </div>
      {children}
    </div>
  );
}
