import { getDb } from '../../../db';
import { mailMessages } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { getConfig } from '../../platform/config';
import { getLogger } from '../../platform/logger';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  readonly kind: 'dev-mailbox' | 'smtp';
  send(message: MailMessage): Promise<void>;
}

/** Embedded default: messages are kept in the database and shown at /dev/mailbox. */
class DevMailbox implements Mailer {
  readonly kind = 'dev-mailbox' as const;
  async send(message: MailMessage): Promise<void> {
    const db = await getDb();
    await db.insert(mailMessages).values({ id: newId('msg'), ...message });
    getLogger().info({ to: message.to, subject: message.subject }, 'mail stored in dev mailbox');
  }
}

class SmtpMailer implements Mailer {
  readonly kind = 'smtp' as const;
  constructor(
    private readonly url: string,
    private readonly from: string,
  ) {}
  async send(message: MailMessage): Promise<void> {
    const { createTransport } = await import('nodemailer');
    const transport = createTransport(this.url);
    await transport.sendMail({ from: this.from, to: message.to, subject: message.subject, text: message.text });
    getLogger().info({ to: message.to, subject: message.subject }, 'mail sent');
  }
}

let mailer: Mailer | undefined;

export function getMailer(): Mailer {
  if (!mailer) {
    const config = getConfig();
    mailer = config.SMTP_URL ? new SmtpMailer(config.SMTP_URL, config.MAIL_FROM) : new DevMailbox();
  }
  return mailer;
}

/**
 * Whether /dev/mailbox may show the stored messages. They include password-reset links, so the
 * page is open only for the zero-setup embedded installation or when DEV_MAILBOX=true says so.
 */
export function devMailboxReadable(): boolean {
  const config = getConfig();
  return getMailer().kind === 'dev-mailbox' && (config.embeddedDatabase || config.DEV_MAILBOX);
}
