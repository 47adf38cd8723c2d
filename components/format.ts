import type { ProjectRole } from '@/server/platform/auth/roles';

const dateFormat = new Intl.DateTimeFormat('en', { year: 'numeric', month: 'short', day: 'numeric' });
const dateTimeFormat = new Intl.DateTimeFormat('en', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
const relativeFormat = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

export function formatDate(iso: string): string {
  return dateFormat.format(new Date(iso));
}

export function formatDateTime(iso: string): string {
  return dateTimeFormat.format(new Date(iso));
}

const UNITS: ReadonlyArray<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** "3 hours ago", "in 2 days", "just now". */
export function formatRelative(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relativeFormat.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'] as const;

/** Decimal units, as the tiers' allowances and S3 providers' bills count them: "1.5 GB" is 1.5 × 10⁹ bytes. */
export function formatBytes(bytes: number): string {
  return scaleBytes(bytes, 1000);
}

/** Binary units, as Redis and its plans count memory: "1.5 GB" is 1.5 × 2³⁰ bytes. */
export function formatBinaryBytes(bytes: number): string {
  return scaleBytes(bytes, 1024);
}

function scaleBytes(bytes: number, step: 1000 | 1024): string {
  let value = bytes;
  let unit = 0;
  while (value >= step && unit < BYTE_UNITS.length - 1) {
    value /= step;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 ? 0 : value >= 10 ? 1 : 2;
  // Number() drops the zeros toFixed pads with: "1 TB", not "1.00 TB".
  return `${Number(value.toFixed(digits))} ${BYTE_UNITS[unit]}`;
}

/** A plan's memory, given in MB: "512 MB", "2 GB". */
export function formatMemory(memoryMb: number): string {
  return memoryMb < 1024 ? `${memoryMb} MB` : `${memoryMb / 1024} GB`;
}

export function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? `${parts[0]![0]}${parts[parts.length - 1]![0]}` : (parts[0] ?? '?').slice(0, 2);
  return letters.toUpperCase();
}

export const ROLE_LABELS = { owner: 'Owner', admin: 'Admin', member: 'Member', viewer: 'Viewer' } as const satisfies Record<ProjectRole, string>;
