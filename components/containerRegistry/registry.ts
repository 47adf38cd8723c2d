'use client';

import { useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/app';
import type { RegistryProvider } from '@/server/providers/registry/types';
import { useTRPC } from '../trpc/TrpcProvider';

type Outputs = inferRouterOutputs<AppRouter>;
export type RegistryView = Outputs['containerRegistry']['get'];
export type RepositoryView = Outputs['containerRegistry']['getRepository'];
export type ImageView = Outputs['containerRegistry']['images'][number];
export type RegistryUserView = Outputs['containerRegistry']['credentials']['users'][number];
export type RegistryRegion = Outputs['containerRegistry']['regions'][number];

/** What page.tsx reads from the provider on the server: the pages cannot ask the API which one runs. */
export interface RegistryProviderInfo {
  kind: RegistryProvider['kind'];
  description: string;
  /** The registry host (`host:port`) every registry of this installation is reached at. */
  host: string;
}

/** Regions never change while the panel is open. */
const REGIONS_STALE_MS = 30 * 60_000;

export function useRegistryRegions(projectId: string) {
  const trpc = useTRPC();
  return useQuery(trpc.containerRegistry.regions.queryOptions({ projectId }, { staleTime: REGIONS_STALE_MS }));
}

/** Falls back to the slug while the regions load. */
export function regionName(slug: string, regions: readonly RegistryRegion[] | undefined): string {
  return regions?.find((r) => r.value === slug)?.label ?? slug;
}

export const MUTABILITY_LABELS = {
  MUTABLE: { label: 'Mutable tags', explained: 'A push may move a tag to a new image, as “latest” usually is.' },
  IMMUTABLE: { label: 'Immutable tags', explained: 'A push under a tag that already names another image is refused.' },
} as const;

export const ENCRYPTION_LABELS = {
  AES256: { label: 'AES-256', explained: 'Encrypted at rest with keys the platform manages.' },
  KMS: { label: 'AWS KMS key', explained: 'Encrypted with a KMS key of yours, named by its ARN.' },
} as const;

/** Severities as scanners report them, worst first; anything else a scanner sends is listed after. */
export const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFORMATIONAL'] as const;
export const SEVERITY_LABELS: Record<string, string> = {
  CRITICAL: 'Critical',
  HIGH: 'High',
  MEDIUM: 'Medium',
  LOW: 'Low',
  INFORMATIONAL: 'Info',
};

/** The findings with a count, worst first. */
export function findingsOf(findings: Record<string, number>): { severity: string; count: number }[] {
  const order = (severity: string) => {
    const index = (SEVERITIES as readonly string[]).indexOf(severity);
    return index < 0 ? SEVERITIES.length : index;
  };
  return Object.entries(findings)
    .filter(([, count]) => count > 0)
    .map(([severity, count]) => ({ severity, count }))
    .sort((a, b) => order(a.severity) - order(b.severity) || a.severity.localeCompare(b.severity));
}

/** "sha256:3f2a…" → "3f2a1b9c0d4e": what people read and compare; the whole digest is copied. */
export function shortDigest(digest: string): string {
  return digest.replace(/^sha256:/, '').slice(0, 12);
}

/** Egress in GB (10^9 bytes), to at most three decimals as the API gives it. */
export function formatGb(gb: number): string {
  const digits = gb === 0 || gb >= 100 ? 0 : gb >= 10 ? 1 : gb >= 1 ? 2 : 3;
  return `${Number(gb.toFixed(digits))} GB`;
}

export function loginCommand(endpoint: string): string {
  return `docker login ${endpoint} -u any -p <API key>`;
}

/** A registry's settings as a form edits them: numbers as typed, checked when saved. */
export interface RangeField {
  min: number;
  max: number;
}

/** A whole number within the range, or why not. */
export function checkWhole(value: string, range: RangeField, unit = ''): string | undefined {
  const suffix = unit ? ` ${unit}` : '';
  if (!/^\d+$/.test(value.trim())) return `Enter a whole number from ${range.min} to ${range.max}${suffix}`;
  const n = Number(value);
  if (n < range.min || n > range.max) return `Must be ${range.min} to ${range.max}${suffix}`;
  return undefined;
}
