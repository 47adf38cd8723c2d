'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { NOTIFICATION_TYPES, NOTIFICATIONS_DEFAULT_LIMIT, NOTIFICATIONS_MAX_LIMIT, type NotificationType } from '@/server/domains/notifications/schema';
import { formatDateTime, formatRelative } from '../format';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Input } from '../ui/Input';
import { Menu } from '../ui/Menu';
import { PageHeader } from '../ui/PageHeader';
import { Select, type SelectOption } from '../ui/Select';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/Toast';
import { TYPE_LABELS, TYPE_TONES, TypeDot } from './NotificationType';
import { useMarkRead, type NotificationItem } from './useNotifications';
import styles from './notifications.module.css';

interface Filters {
  eventTypes: string[];
  type: NotificationType | '';
  read: 'true' | 'false' | '';
  from: string;
  to: string;
}

const NO_FILTERS: Filters = { eventTypes: [], type: '', read: '', from: '', to: '' };

const TYPE_OPTIONS: SelectOption[] = [{ value: '', label: 'Any type' }, ...NOTIFICATION_TYPES.map((type) => ({ value: type, label: TYPE_LABELS[type] }))];
const READ_OPTIONS: SelectOption[] = [
  { value: '', label: 'Any status' },
  { value: 'false', label: 'Unread' },
  { value: 'true', label: 'Read' },
];

export function NotificationsPage({ eventTypes, retentionDays }: { eventTypes: readonly string[]; retentionDays: number }) {
  const trpc = useTRPC();
  const toast = useToast();
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [limit, setLimit] = useState(NOTIFICATIONS_DEFAULT_LIMIT);
  const filtered = filters.eventTypes.length > 0 || Boolean(filters.type || filters.read || filters.from || filters.to);
  const list = useQuery(
    trpc.notifications.list.queryOptions(
      {
        eventType: filters.eventTypes.length > 0 ? filters.eventTypes : undefined,
        type: filters.type || undefined,
        read: filters.read || undefined,
        from: filters.from || undefined,
        to: filters.to || undefined,
        limit,
      },
      { placeholderData: keepPreviousData, refetchOnMount: 'always' },
    ),
  );
  const unread = useQuery(trpc.notifications.unreadCount.queryOptions({})).data?.unread ?? 0;
  const { markOne, markAll } = useMarkRead();
  const items = list.data?.notifications;
  const update = (patch: Partial<Filters>) => {
    setFilters((current) => ({ ...current, ...patch }));
    setLimit(NOTIFICATIONS_DEFAULT_LIMIT);
  };

  async function onMarkAll() {
    try {
      const { marked } = await markAll.mutateAsync({});
      toast.success(marked === 1 ? 'Marked 1 notification read' : `Marked ${marked} notifications read`);
    } catch (error) {
      toast.error(errorMessage(error));
    }
  }

  async function onMarkOne(notification: NotificationItem) {
    try {
      await markOne.mutateAsync({ id: notification.id });
    } catch (error) {
      toast.error(errorMessage(error));
    }
  }

  return (
    <main className="page page-narrow" style={{ maxWidth: 960 }}>
      <PageHeader
        title="Notifications"
        description={`What happened in your projects that concerns you: invoices and payments, suspensions, servers, members and API keys. Notifications are kept for ${retentionDays} days.`}
        actions={
          <Button variant="primary" onClick={onMarkAll} loading={markAll.isPending} disabled={unread === 0}>
            Mark all read
          </Button>
        }
      />
      <Card
        flush
        title={unread === 0 ? 'All caught up' : `${unread} unread`}
        description="Newest first. Times are in your browser's time zone; date filters are whole days in UTC."
        footer={
          items && items.length > 0 ? (
            <>
              <span className="muted">
                {items.length} {items.length === 1 ? 'notification' : 'notifications'} shown
              </span>
              {items.length === limit && limit < NOTIFICATIONS_MAX_LIMIT ? (
                <Button size="sm" onClick={() => setLimit(Math.min(limit * 2, NOTIFICATIONS_MAX_LIMIT))} loading={list.isFetching}>
                  Show more
                </Button>
              ) : items.length === NOTIFICATIONS_MAX_LIMIT ? (
                <span className="muted">Narrow the dates to see older ones</span>
              ) : (
                <span className="muted">{filtered ? 'That is every matching notification' : 'That is everything'}</span>
              )}
            </>
          ) : undefined
        }
      >
        <form className={styles.filters} aria-label="Filter notifications" onSubmit={(event) => event.preventDefault()}>
          <EventTypePicker eventTypes={eventTypes} selected={filters.eventTypes} onChange={(selected) => update({ eventTypes: selected })} />
          <Select label="Type" value={filters.type} onChange={(event) => update({ type: event.target.value as Filters['type'] })} options={TYPE_OPTIONS} />
          <Select label="Status" value={filters.read} onChange={(event) => update({ read: event.target.value as Filters['read'] })} options={READ_OPTIONS} />
          <Input label="From" type="date" value={filters.from} max={filters.to || undefined} onChange={(event) => update({ from: event.target.value })} />
          <Input label="To" type="date" value={filters.to} min={filters.from || undefined} onChange={(event) => update({ to: event.target.value })} />
          {filtered ? (
            <div className={styles.clear}>
              <Button size="sm" variant="ghost" onClick={() => update(NO_FILTERS)}>
                Clear filters
              </Button>
            </div>
          ) : null}
        </form>
        <DataList
          label="Notifications"
          query={{ data: items, error: list.error, isFetching: list.isFetching, refetch: list.refetch }}
          loading={[0, 1, 2].map((i) => (
            <div key={i} className={styles.row}>
              <Skeleton width="60%" height={18} />
            </div>
          ))}
          empty={
            filtered ? (
              <EmptyState
                icon="inbox"
                title="No notifications match these filters"
                description="Widen the date range or clear a filter."
                action={<Button onClick={() => update(NO_FILTERS)}>Clear filters</Button>}
              />
            ) : (
              <EmptyState
                icon="inbox"
                title="No notifications yet"
                description="Invoices, payments, servers and members of your projects will show up here as they happen."
              />
            )
          }
        >
          {(notifications) => (
            <ul className={styles.list} aria-label="Notifications">
              {notifications.map((notification) => (
                <li key={notification.id} className={notification.read ? styles.row : `${styles.row} ${styles.rowUnread}`} aria-label={notification.title}>
                  <TypeDot type={notification.type} read={notification.read} />
                  <div className={styles.rowText}>
                    <div className={styles.rowHeading}>
                      <Link href={notification.link} className={notification.read ? styles.itemTitle : `${styles.itemTitle} ${styles.unread}`}>
                        {notification.title}
                      </Link>
                      <Badge tone={TYPE_TONES[notification.type]}>{TYPE_LABELS[notification.type]}</Badge>
                      {notification.eventType ? <code className={styles.eventType}>{notification.eventType}</code> : null}
                    </div>
                    <p className={styles.rowBody}>{notification.body}</p>
                    <span className={styles.itemTime} title={formatDateTime(notification.createdAt)}>
                      {formatRelative(notification.createdAt)} · {formatDateTime(notification.createdAt)}
                    </span>
                  </div>
                  <div className={styles.rowAction}>
                    {notification.read ? (
                      <span className="muted">Read</span>
                    ) : (
                      <Button size="sm" variant="ghost" onClick={() => void onMarkOne(notification)} disabled={markOne.isPending}>
                        Mark read
                      </Button>
                    )}
                  </div>
                </li>
              ))}
            </ul>
          )}
        </DataList>
      </Card>
    </main>
  );
}

/** A multi-select of the event catalogue: a menu of checkboxes that stays open while you pick. */
function EventTypePicker({ eventTypes, selected, onChange }: { eventTypes: readonly string[]; selected: string[]; onChange: (selected: string[]) => void }) {
  const summary = selected.length === 0 ? 'Any event' : selected.length === 1 ? selected[0]! : `${selected.length} event types`;
  const toggle = (type: string) => onChange(selected.includes(type) ? selected.filter((t) => t !== type) : [...selected, type].sort());
  return (
    <div className="field">
      <span className="field-label">Event</span>
      <Menu
        buttonClassName={`select ${styles.pickerButton}`}
        buttonLabel={`Event types: ${summary}`}
        button={<span className={styles.pickerSummary}>{summary}</span>}
      >
        {() => (
          <div className={styles.picker} role="group" aria-label="Event types">
            {selected.length > 0 ? (
              <button type="button" className={`menu-item ${styles.textButton}`} onClick={() => onChange([])}>
                Any event
              </button>
            ) : null}
            {eventTypes.map((type) => (
              <label key={type} className={`menu-item ${styles.pickerOption}`}>
                <input type="checkbox" checked={selected.includes(type)} onChange={() => toggle(type)} />
                <code>{type}</code>
              </label>
            ))}
          </div>
        )}
      </Menu>
    </div>
  );
}
