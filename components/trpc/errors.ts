import { TRPCClientError } from '@trpc/client';
import type { AppRouter } from '@/server/app';

export interface AppErrorInfo {
  code: string;
  message: string;
}

const UNREACHABLE: AppErrorInfo = {
  code: 'NETWORK_ERROR',
  message: 'Could not reach the server. Check your connection and try again.',
};

/** The server's `{ code, message }` for a refused call, or a stand-in when the request never got an answer. */
export function appErrorOf(error: unknown): AppErrorInfo {
  if (error instanceof TRPCClientError) {
    const appError = (error as TRPCClientError<AppRouter>).data?.appError;
    if (appError) return { code: appError.code, message: appError.message };
    return UNREACHABLE;
  }
  if (error instanceof Error) return { code: 'CLIENT_ERROR', message: error.message };
  return { code: 'CLIENT_ERROR', message: 'Something went wrong' };
}

export function errorMessage(error: unknown): string {
  return appErrorOf(error).message;
}
