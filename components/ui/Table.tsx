import type { ReactNode } from 'react';
import { Skeleton } from './Skeleton';

export interface Column<Row> {
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  /** Extra class for both header and cells, e.g. "hide-sm" to drop a column on narrow screens. */
  className?: string;
}

/**
 * Rows under a header. Until `rows` arrive the same columns show skeleton cells, so the page
 * keeps its layout when the data lands.
 */
export function Table<Row>({
  label,
  columns,
  rows,
  rowKey,
  loadingRows,
  onRowClick,
}: {
  label: string;
  columns: readonly Column<Row>[];
  rows: readonly Row[] | undefined;
  rowKey: (row: Row) => string;
  loadingRows: number;
  /**
   * A mouse shortcut for opening a row. Keyboard and screen-reader users need the same action on a
   * button inside the row, since a table row cannot take focus.
   */
  onRowClick?: (row: Row) => void;
}) {
  return (
    <div className="table-wrap">
      <table className="table" aria-label={label} aria-busy={rows === undefined || undefined}>
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
          {rows === undefined
            ? Array.from({ length: loadingRows }, (_, rowIndex) => (
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
