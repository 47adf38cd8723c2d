import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { getConfig } from '../../platform/config';
import { INTERNAL_HEADERS } from '../../platform/context';
import { AppError } from '../../platform/errors';
import { SIGN_IN_THROTTLED } from './schema';
import { endSession, signIn } from './service';
import { SESSION_MAX_AGE_SECONDS, sessionCookieName } from '../../platform/auth/sessionCookie';

/**
 * The panel signs in with email and password. Sessions are JWTs in an httpOnly SameSite=Lax
 * cookie carrying the user id and the account's session version; the API checks that version on
 * every request, so a password change or reset ends every older session.
 */
export function getAuthOptions(): NextAuthOptions {
  const config = getConfig();
  const secure = config.APP_URL.startsWith('https://');
  return {
    secret: config.AUTH_SECRET,
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: '/login' },
    cookies: {
      sessionToken: {
        name: sessionCookieName(),
        options: { httpOnly: true, sameSite: 'lax', path: '/', secure },
      },
    },
    providers: [
      CredentialsProvider({
        name: 'Email and password',
        credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
        async authorize(credentials, req) {
          if (!credentials?.email || !credentials.password) return null;
          const ip = req.headers?.[INTERNAL_HEADERS.clientIp];
          const user = await signIn({ email: credentials.email, password: credentials.password, ip: typeof ip === 'string' ? ip : 'unknown' }).catch(
            (err: unknown) => {
              // next-auth hands a thrown message to the login page as its `error`; the page says when to try again.
              if (err instanceof AppError && err.code === 'RATE_LIMITED') throw new Error(`${SIGN_IN_THROTTLED}:${err.headers?.['retry-after']}`);
              throw err;
            },
          );
          if (!user) return null;
          return { id: user.id, email: user.email, name: user.name, sessionVersion: user.sessionVersion };
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) {
          token.sub = user.id;
          token.ver = (user as { sessionVersion?: number }).sessionVersion ?? 1;
        }
        return token;
      },
      session({ session, token }) {
        if (session.user && token.sub) (session.user as { id?: string }).id = token.sub;
        return session;
      },
    },
    events: {
      async signOut({ token }) {
        if (token?.sub && typeof token.ver === 'number') await endSession(token.sub, token.ver);
      },
    },
  };
}
