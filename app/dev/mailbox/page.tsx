import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { Fragment } from 'react';
import { formatDateTime } from '@/components/format';
import { Brand } from '@/components/shell/Brand';
import { Alert } from '@/components/ui/Alert';
import { Button, ButtonLink } from '@/components/ui/Button';
import { EmptyState } from '@/components/ui/EmptyState';
import { PageHeader } from '@/components/ui/PageHeader';
import { devMailboxReadable } from '@/server/providers/mailer';
import { listStoredMail } from './data';

export const metadata: Metadata = { title: 'Development mailbox', robots: { index: false } };
export const dynamic = 'force-dynamic';

export default async function DevMailboxPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  if (!devMailboxReadable()) notFound();
  const params = await searchParams;
  const to = typeof params.to === 'string' && params.to.trim() ? params.to.trim() : undefined;
  const messages = await listStoredMail(to);

  return (
    <>
      <header className="topbar">
        <Brand />
        <span className="topbar-divider" aria-hidden />
        <span className="secondary" style={{ fontWeight: 550 }}>
          Development mailbox
        </span>
      </header>
      <main className="page page-narrow" style={{ maxWidth: 860 }}>
        <PageHeader
          title="Development mailbox"
          description="No SMTP server is configured, so email the panel sends is kept here instead of being delivered. Newest first."
        />
        <div className="stack-lg">
          <Alert tone="warning" title="For local use only">
            Anyone who can open this page can read these messages, password reset, verification and invitation links included. Set SMTP_URL to deliver real
            email.
          </Alert>
          <form className="card" method="get" action="/dev/mailbox" role="search">
            <div className="card-body row" style={{ alignItems: 'flex-end' }}>
              <div className="field" style={{ flex: 1, minWidth: 220 }}>
                <label className="field-label" htmlFor="mailbox-to">
                  Recipient
                </label>
                <input id="mailbox-to" className="input" type="email" name="to" defaultValue={to ?? ''} placeholder="Show every recipient" />
              </div>
              <Button type="submit">Filter</Button>
              {to ? (
                <ButtonLink href="/dev/mailbox" variant="ghost">
                  Show all
                </ButtonLink>
              ) : null}
            </div>
          </form>
          {messages.length === 0 ? (
            <div className="card">
              <EmptyState
                icon="inbox"
                title={to ? `No messages to ${to}` : 'The mailbox is empty'}
                description="Address verifications, password resets and project invitations appear here as soon as they are sent."
              />
            </div>
          ) : (
            messages.map((message) => (
              <article key={message.id} className="card" data-testid="mail-message" aria-label={message.subject}>
                <div className="card-body mail">
                  <div className="mail-meta">
                    <span>
                      To <strong data-testid="mail-to">{message.to}</strong>
                    </span>
                    <time dateTime={message.createdAt}>{formatDateTime(message.createdAt)}</time>
                  </div>
                  <h2 data-testid="mail-subject">{message.subject}</h2>
                  <pre className="mail-text" data-testid="mail-text">
                    <Linkified text={message.text} />
                  </pre>
                </div>
              </article>
            ))
          )}
        </div>
      </main>
    </>
  );
}

const URL_PATTERN = /(https?:\/\/[^\s<>"]+)/g;

function Linkified({ text }: { text: string }) {
  return (
    <>
      {text.split(URL_PATTERN).map((part, index) =>
        index % 2 === 1 ? (
          <a key={index} href={part}>
            {part}
          </a>
        ) : (
          <Fragment key={index}>{part}</Fragment>
        ),
      )}
    </>
  );
}
