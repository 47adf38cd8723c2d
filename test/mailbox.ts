import { listStoredMail, type StoredMail } from '../app/dev/mailbox/data';

/** The newest message the dev mailbox holds for an address (what /dev/mailbox shows first), if any. */
export async function newestMailTo(email: string, subject?: string): Promise<StoredMail | undefined> {
  const messages = await listStoredMail(email);
  return subject === undefined ? messages[0] : messages.find((message) => message.subject === subject);
}

/** The first link of the message that goes to `path` (e.g. `/verify-email/`), or undefined. */
export function linkIn(message: Pick<StoredMail, 'text'> | undefined, path: string): URL | undefined {
  const found = message?.text.match(/https?:\/\/\S+/g)?.find((link) => new URL(link).pathname.startsWith(path));
  return found === undefined ? undefined : new URL(found);
}

/** The token of the newest verification link mailed to the address. */
export async function verificationToken(email: string): Promise<string> {
  const link = linkIn(await newestMailTo(email, 'Confirm your email address'), '/verify-email/');
  if (!link) throw new Error(`no verification link was mailed to ${email}`);
  return link.pathname.slice('/verify-email/'.length);
}

/** The secret of the newest invitation link mailed to the address. */
export async function invitationSecret(email: string, invitationId: string): Promise<string> {
  const messages = await listStoredMail(email);
  const link = messages.map((message) => linkIn(message, `/invitations/${invitationId}`)).find((found) => found !== undefined);
  const secret = link?.searchParams.get('secret');
  if (!secret) throw new Error(`no link to invitation ${invitationId} was mailed to ${email}`);
  return secret;
}
