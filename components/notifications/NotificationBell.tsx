'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { formatDateTime, formatRelative } from '../format';
import { useTRPC } from '../trpc/TrpcProvider';
import { Menu } from '../ui/Menu';
import { BellIcon, TypeDot } from './NotificationType';
import { UNREAD_POLL_MS, useMarkRead, type NotificationItem } from './useNotifications';
import styles from './notifications.module.css';

const LATEST = 5;

/** The top bar's bell: the unread count, kept fresh while the page is open and whenever it regains focus. */
export function NotificationBell() {
  const trpc = useTRPC();
  const unread =
    useQuery(trpc.notifications.unreadCount.queryOptions({}, { refetchInterval: UNREAD_POLL_MS, refetchOnWindowFocus: 'always' })).data?.unread ?? 0;
  const label = unread === 0 ? 'Notifications, none unread' : `Notifications, ${unread} unread`;
  return (
    <Menu
      align="end"
      buttonClassName={`topbar-link ${styles.bellButton}`}
      buttonLabel={label}
      button={
        <>
          <BellIcon />
          {unread > 0 ? (
            <span className={`count-dot ${styles.bellCount}`} data-testid="notification-count">
              {unread > 99 ? '99+' : unread}
            </span>
          ) : null}
        </>
      }
    >
      {(close) => <BellDropdown unread={unread} close={close} />}
    </Menu>
  );
}

function BellDropdown({ unread, close }: { unread: number; close: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const { markOne, markAll } = useMarkRead();
  const latest = useQuery(trpc.notifications.list.queryOptions({ limit: LATEST }, { refetchOnMount: 'always' }));

  function open(notification: NotificationItem) {
    if (!notification.read) markOne.mutate({ id: notification.id });
    close();
    router.push(notification.link);
  }

  return (
    <div className={styles.dropdown}>
      <div className={styles.dropdownHeader}>
        <strong>Notifications</strong>
        <button type="button" className={styles.textButton} onClick={() => markAll.mutate({})} disabled={unread === 0 || markAll.isPending}>
          Mark all read
        </button>
      </div>
      <div className="menu-separator" />
      {latest.data === undefined ? (
        <p className={styles.dropdownNote}>{latest.error ? 'Notifications could not be loaded.' : 'Loading…'}</p>
      ) : latest.data.notifications.length === 0 ? (
        <p className={styles.dropdownNote}>Nothing yet. Invoices, payments, servers and members of your projects will show up here.</p>
      ) : (
        <ul className={styles.dropdownList} aria-label="Latest notifications">
          {latest.data.notifications.map((notification) => (
            <li key={notification.id}>
              <button type="button" className={`menu-item ${styles.dropdownItem}`} onClick={() => open(notification)}>
                <TypeDot type={notification.type} read={notification.read} />
                <span className={styles.itemText}>
                  <span className={notification.read ? styles.itemTitle : `${styles.itemTitle} ${styles.unread}`}>{notification.title}</span>
                  <span className={styles.itemBody}>{notification.body}</span>
                  <span className={styles.itemTime} title={formatDateTime(notification.createdAt)}>
                    {formatRelative(notification.createdAt)}
                  </span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="menu-separator" />
      <Link href="/notifications" className={`menu-item ${styles.viewAll}`} onClick={close}>
        View all notifications
      </Link>
    </div>
  );
}
