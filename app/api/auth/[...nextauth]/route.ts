import NextAuth from 'next-auth';
import { getAuthOptions } from '@/server/domains/accounts/nextAuth';

export const runtime = 'nodejs';

async function handler(req: Request, context: { params: Promise<{ nextauth: string[] }> }) {
  const auth = NextAuth(getAuthOptions());
  return auth(req, context);
}

export { handler as GET, handler as POST };
