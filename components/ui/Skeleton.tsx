import type { CSSProperties } from 'react';

/** A placeholder block while data loads; screen readers hear the surrounding region's busy state instead. */
export function Skeleton({ width = '100%', height = 14, style }: { width?: number | string; height?: number | string; style?: CSSProperties }) {
  return <span className="skeleton" aria-hidden style={{ width, height, ...style }} />;
}
