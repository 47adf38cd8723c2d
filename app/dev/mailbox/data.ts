import { desc, sql } from 'drizzle-orm';
import '@/server/platform/config';
import { getDb } from '@/db';
import { mailMessages } from '@/db/schema';

export interface StoredMail {
  id: string;
  to: string;
  subject: string;
  text: string;
  createdAt: string;
}

const SHOWN_MESSAGES = 100;

/** The newest messages the embedded mailer stored, optionally only those sent to one address. */
export async function listStoredMail(to?: string): Promise<StoredMail[]> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(mailMessages)
    .where(to ? sql`lower(${mailMessages.to}) = ${to.trim().toLowerCase()}` : undefined)
    .orderBy(desc(mailMessages.createdAt), desc(mailMessages.id))
    .limit(SHOWN_MESSAGES);
  return rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }));
}
