import type { ReactNode } from 'react';
import { LoadFailed } from './LoadFailed';
import { Table, type Column } from './Table';
import styles from './DataList.module.css';

/** The parts of a query result that a list reads; what `useQuery` returns fits as it is. */
export interface ListQuery<Item> {
  data: readonly Item[] | undefined;
  error: unknown;
  isFetching: boolean;
  refetch: () => unknown;
}

interface ListBasics<Item> {
  query: ListQuery<Item>;
  /** What the list holds, as people call it ("API keys"): the table's name and the failure's title. */
  label: string;
  /** Shown instead of an empty list. Lists that explain emptiness in their own layout leave it out. */
  empty?: ReactNode;
}

interface TableLayout<Item> {
  columns: readonly Column<Item>[];
  rowKey: (item: Item) => string;
  /** See Table: a mouse shortcut that needs a button in the row as well. */
  onRowClick?: (item: Item) => void;
  /** Skeleton rows while loading, about as many as the list usually holds. */
  loadingRows?: number;
  children?: never;
  loading?: never;
}

interface OwnLayout<Item> {
  /** Lays the items out where a table does not fit: cards, a chart, checkboxes. */
  children: (items: readonly Item[]) => ReactNode;
  /** A placeholder shaped like that layout, while the items load. */
  loading: ReactNode;
  columns?: never;
  rowKey?: never;
  onRowClick?: never;
  loadingRows?: never;
}

export type DataListProps<Item> = ListBasics<Item> & (TableLayout<Item> | OwnLayout<Item>);

const LOADING_ROWS = 3;

/**
 * A list with the states every list has besides its items: loading, failed (the server's message
 * and a retry) and empty. Items already shown stay when a later background read fails (polling,
 * a refetch after a change); the failure replaces only a list that never arrived.
 */
export function DataList<Item>(props: DataListProps<Item>) {
  const { query, label, empty } = props;
  const items = query.data;
  if (items === undefined && query.error) {
    return (
      <div className={styles.failed}>
        <LoadFailed title={`${label} could not be loaded`} error={query.error} retry={query.refetch} retrying={query.isFetching} />
      </div>
    );
  }
  if (items?.length === 0 && empty !== undefined) return <>{empty}</>;
  if (props.columns) {
    return (
      <Table
        label={label}
        columns={props.columns}
        rows={items}
        rowKey={props.rowKey}
        loadingRows={props.loadingRows ?? LOADING_ROWS}
        onRowClick={props.onRowClick}
      />
    );
  }
  return items === undefined ? <div aria-busy="true">{props.loading}</div> : <>{props.children(items)}</>;
}
