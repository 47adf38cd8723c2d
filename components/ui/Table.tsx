import type { ReactNode } from 'react';
import { Alert } from './Alert';
import { Button } from './Button';
import { Skeleton } from './Skeleton';

export interface Column<Row> {
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** Extra class for both header and cells, e.g. "hide-sm" to drop a column on narrow screens. */
  className?: string;
}

const LOADING_ROWS = 3;

/**
 * A table that owns the three states every list has besides its rows: loading (skeleton rows),
 * failed (the server's message and a retry) and empty (the caller's empty state).
 */
export function DataTable<Row>({
  label,
  columns,
  rows,
  rowKey,
  loading,
  error,
  onRetry,
  empty,
  onRowClick,
}: {
  label: string;
  columns: readonly Column<Row>[];
  rows: readonly Row[] | undefined;
  rowKey: (row: Row) => string;
  loading: boolean;
  error?: string | null;
  onRetry?: () => void;
  empty: ReactNode;
  /**
   * A mouse shortcut for opening a row. Keyboard and screen-reader users need the same action on a
   * button inside the row, since a table row cannot take focus.
   */
  onRowClick?: (row: Row) => void;
}) {
  if (error) {
    return (
      <div style={{ padding: 16 }}>
        <Alert
          tone="danger"
          title="This list could not be loaded"
          action={
            onRetry ? (
              <Button size="sm" onClick={onRetry}>
                Try again
              </Button>
            ) : null
          }
        >
          {error}
        </Alert>
      </div>
    );
  }
  if (!loading && rows && rows.length === 0) return <>{empty}</>;
  return (
    <div className="table-wrap">
      <table className="table" aria-label={label} aria-busy={loading || undefined}>
        <thead>
          <tr>
            {columns.map((column, index) => (
              <th key={index} scope="col" className={column.className}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {loading || !rows
            ? Array.from({ length: LOADING_ROWS }, (_, rowIndex) => (
                <tr key={`loading-${rowIndex}`}>
                  {columns.map((column, index) => (
                    <td key={index} className={column.className}>
                      <Skeleton width={index === 0 ? '70%' : '50%'} />
                    </td>
                  ))}
                </tr>
              ))
            : rows.map((row) => (
                <tr key={rowKey(row)} onClick={onRowClick ? () => onRowClick(row) : undefined} style={onRowClick ? { cursor: 'pointer' } : undefined}>
                  {columns.map((column, index) => (
                    <td key={index} className={column.className}>
                      {column.cell(row)}
                    </td>
                  ))}
                </tr>
              ))}
        </tbody>
      </table>
    </div>
  );
}
