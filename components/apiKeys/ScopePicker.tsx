'use client';

import { useId } from 'react';
import { scopeDirections, type Scope, type ScopeDirection, type ScopeResource } from '@/server/platform/auth/scopes';
import { PICKABLE_RESOURCES, SCOPE_RESOURCE_LABELS } from './scopeLabels';

const DIRECTIONS: readonly ScopeDirection[] = ['read', 'write'];

/**
 * One row per resource with read and write (read only for a read-only resource such as the audit
 * log). Ticking write also ticks read, because the API's write operations need both scopes; read
 * can still be unticked by hand.
 */
export function ScopePicker({ value, onChange, error }: { value: ReadonlySet<Scope>; onChange: (next: Set<Scope>) => void; error?: string }) {
  const labelId = useId();
  const errorId = useId();

  function toggle(resource: ScopeResource, direction: ScopeDirection, checked: boolean) {
    const next = new Set(value);
    const scope = `${resource}:${direction}` as Scope;
    if (checked) {
      next.add(scope);
      if (direction === 'write') next.add(`${resource}:read`);
    } else {
      next.delete(scope);
    }
    onChange(next);
  }

  function setAll(direction: ScopeDirection | 'none') {
    if (direction === 'none') return onChange(new Set());
    const next = new Set(value);
    for (const resource of PICKABLE_RESOURCES) {
      for (const granted of scopeDirections(resource)) {
        if (granted === 'read' || direction === 'write') next.add(`${resource}:${granted}` as Scope);
      }
    }
    onChange(next);
  }

  return (
    <fieldset className="field fieldset" aria-labelledby={labelId} aria-describedby={error ? errorId : undefined}>
      <div className="row-between">
        <span id={labelId} className="field-label">
          Scopes
        </span>
        <div className="row" style={{ gap: 2 }}>
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => setAll('read')}>
            All read
          </button>
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => setAll('write')}>
            All read & write
          </button>
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => setAll('none')}>
            Clear
          </button>
        </div>
      </div>
      <div className="scope-box">
        <div className="scope-box-scroll">
          <table className="scope-table">
            <thead>
              <tr>
                <th scope="col">Resource</th>
                <th scope="col" className="scope-check">
                  Read
                </th>
                <th scope="col" className="scope-check">
                  Write
                </th>
              </tr>
            </thead>
            <tbody>
              {PICKABLE_RESOURCES.map((resource) => (
                <tr key={resource}>
                  <th scope="row">{SCOPE_RESOURCE_LABELS[resource]}</th>
                  {DIRECTIONS.map((direction) => {
                    if (!scopeDirections(resource).includes(direction)) {
                      return (
                        <td key={direction} className="scope-check muted" aria-label={`No ${direction} scope`}>
                          —
                        </td>
                      );
                    }
                    const scope = `${resource}:${direction}` as Scope;
                    return (
                      <td key={direction} className="scope-check">
                        <label className="checkbox">
                          <input
                            type="checkbox"
                            name="scopes"
                            value={scope}
                            checked={value.has(scope)}
                            onChange={(event) => toggle(resource, direction, event.target.checked)}
                            aria-label={scope}
                          />
                        </label>
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
      <p className="field-hint">Write operations need the read scope of the same resource too. {value.size} selected.</p>
      {error ? (
        <p id="scope-error" className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
