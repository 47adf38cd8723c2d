import { TRPCClientError } from '@trpc/client';
import type { AppRouter } from '@/server/app';

type Refusal = NonNullable<TRPCClientError<AppRouter>['data']>['appError'];

export interface AppErrorInfo {
  /** The server's code; NETWORK_ERROR and CLIENT_ERROR when the call never got an answer. */
  code: Refusal['code'] | 'NETWORK_ERROR' | 'CLIENT_ERROR';
  message: string;
  docsUrl?: string;
  /** Input field path ('name', 'sshKeyIds.0') → what is wrong with it, when the refusal concerns fields. */
  fields?: Record<string, string>;
}

const UNREACHABLE: AppErrorInfo = {
  code: 'NETWORK_ERROR',
  message: 'Could not reach the server. Check your connection and try again.',
};

/** Why the server refused a call, or a stand-in when the request never got an answer. */
export function appErrorOf(error: unknown): AppErrorInfo {
  if (error instanceof TRPCClientError) {
    const refusal = (error as TRPCClientError<AppRouter>).data?.appError;
    if (!refusal) return UNREACHABLE;
    return { code: refusal.code, message: refusal.message, docsUrl: refusal.docsUrl, fields: refusal.fields };
  }
  if (error instanceof Error) return { code: 'CLIENT_ERROR', message: error.message };
  return { code: 'CLIENT_ERROR', message: 'Something went wrong' };
}

export function errorMessage(error: unknown): string {
  return appErrorOf(error).message;
}
