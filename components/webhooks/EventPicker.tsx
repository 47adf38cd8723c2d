'use client';

import { useId } from 'react';
import type { WebhookEventType } from '@/server/domains/webhooks/schema';
import { ALL_EVENTS } from '@/server/domains/webhooks/schema';
import { Skeleton } from '../ui/Skeleton';
import styles from './webhooks.module.css';

/** Checkboxes of the event catalogue, grouped by resource, with "All events" (`*`) above them. */
export function EventPicker({
  catalogue,
  value,
  onChange,
  error,
}: {
  catalogue: readonly WebhookEventType[] | undefined;
  value: ReadonlySet<string>;
  onChange: (next: Set<string>) => void;
  error?: string;
}) {
  const labelId = useId();
  const errorId = useId();
  const all = value.has(ALL_EVENTS);
  const groups = new Map<string, WebhookEventType[]>();
  for (const entry of catalogue ?? []) {
    const resource = entry.type.split('.')[0]!;
    groups.set(resource, [...(groups.get(resource) ?? []), entry]);
  }

  function toggle(type: string, checked: boolean) {
    const next = new Set(value);
    if (checked) next.add(type);
    else next.delete(type);
    onChange(next);
  }

  return (
    <fieldset className="field fieldset" aria-labelledby={labelId} aria-describedby={error ? errorId : undefined}>
      <span id={labelId} className="field-label">
        Events
      </span>
      <label className="checkbox">
        <input type="checkbox" checked={all} onChange={(event) => onChange(event.target.checked ? new Set([ALL_EVENTS]) : new Set())} />
        All events, including types added later
      </label>
      {all ? null : (
        <div className={styles.picker} aria-busy={catalogue === undefined}>
          {catalogue === undefined ? (
            <Skeleton height={120} />
          ) : (
            [...groups.entries()].map(([resource, entries]) => (
              <div key={resource} className={styles.group}>
                <div className={styles.groupName}>{resource.replace(/_/g, ' ')}</div>
                {entries.map((entry) => (
                  <label key={entry.type} className={styles.eventOption}>
                    <input
                      type="checkbox"
                      name="events"
                      value={entry.type}
                      checked={value.has(entry.type)}
                      onChange={(event) => toggle(entry.type, event.target.checked)}
                    />
                    <code>{entry.type}</code>
                    <span className={styles.eventDescription}>{entry.description}</span>
                  </label>
                ))}
              </div>
            ))
          )}
        </div>
      )}
      {error ? (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      ) : (
        <p className="field-hint">{all ? 'Every event of the project.' : `${value.size} selected.`}</p>
      )}
    </fieldset>
  );
}
