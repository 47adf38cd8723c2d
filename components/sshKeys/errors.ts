import { TRPCClientError } from '@trpc/client';
import type { AppRouter } from '@/server/app';
import { appErrorOf } from '../trpc/errors';

export interface SshKeyFormError {
  /** Messages the server tied to one of the form's fields ("publicKey: …"). */
  fields: Partial<Record<'name' | 'publicKey', string>>;
  form: string | null;
  /** The page about SSH keys that the server attaches to every SSH key refusal. */
  docsUrl: string | null;
}

function docsUrlOf(error: unknown): string | null {
  if (!(error instanceof TRPCClientError)) return null;
  return (error as TRPCClientError<AppRouter>).data?.appError?.docsUrl ?? null;
}

/**
 * Key errors put the field first ("publicKey: This is a private key…") and their sentences can
 * contain "; ", so the message is split on its first field prefix only, never on semicolons.
 */
export function sshKeyFormError(error: unknown): SshKeyFormError {
  const { code, message } = appErrorOf(error);
  const docsUrl = docsUrlOf(error);
  const body = message.replace(/^Validation failed:\s*/, '');
  const match = /^(name|publicKey): ([\s\S]+)$/.exec(body);
  if (code === 'VALIDATION_ERROR' && match) {
    const field = match[1] as 'name' | 'publicKey';
    return { fields: { [field]: match[2] }, form: null, docsUrl };
  }
  if (code === 'CONFLICT') return { fields: { publicKey: message }, form: null, docsUrl };
  return { fields: {}, form: message, docsUrl };
}
