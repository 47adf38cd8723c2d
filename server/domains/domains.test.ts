import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { forEachOpenApiProcedure } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { isIconName } from '../../components/ui/Icon';
import { getDb } from '../../db';
import { appRouter, AUDITED_ACTIONS, JOBS, PANEL_AREAS } from '../app';
import type { DomainManifest } from '../platform/domain';
import { emit, eventTypes } from '../platform/events';
import { registeredCounters } from '../platform/counters';
import type { ProcedureMeta } from '../platform/trpc';
import { DOMAINS } from './index';

const manifests = DOMAINS as readonly DomainManifest[];

describe('the list of domains', () => {
  it('has one manifest per folder of server/domains, named like it', () => {
    const folders = readdirSync(import.meta.dirname).filter((entry) => statSync(path.join(import.meta.dirname, entry)).isDirectory());
    expect(manifests.map((d) => d.name).sort()).toEqual(folders.sort());
  });

  it('mounts exactly the manifests’ routers in the app router', () => {
    const keys = manifests.flatMap((d) => Object.keys(d.routers));
    expect(Object.keys(appRouter._def.record).sort()).toEqual([...keys].sort());
  });

  it('lists every scope its operations need among the manifest’s scopes', () => {
    for (const domain of manifests) {
      const declared = new Set<string>(domain.scopes ?? []);
      for (const domainRouter of Object.values(domain.routers)) {
        forEachOpenApiProcedure(domainRouter._def.procedures as never, ({ meta }) => {
          for (const scope of (meta as ProcedureMeta).scopes ?? []) {
            expect(declared.has(scope.split(':')[0]!), `${domain.name} uses ${scope}`).toBe(true);
          }
        });
      }
    }
  });

  it('derives the job list: every manifest job once, with the platform’s own', () => {
    const names = JOBS.map((j) => j.name);
    expect(new Set(names).size).toBe(names.length);
    for (const job of manifests.flatMap((d) => d.jobs ?? [])) expect(names).toContain(job.name);
    expect(names).toContain('platform.purge-rate-limits');
    expect(names).toContain('platform.mark-interrupted-audit-entries');
    expect(names).toContain('platform.purge-audit-entries');
  });

  it('derives the sidebar from the manifests, with icons the panel can draw', () => {
    const areas = [...PANEL_AREAS.project, ...PANEL_AREAS.resources];
    expect(areas).toEqual(expect.arrayContaining(manifests.flatMap((d) => d.panel ?? [])));
    expect(new Set(areas.map((a) => a.segment)).size).toBe(areas.length);
    for (const area of areas) expect(isIconName(area.icon), area.icon).toBe(true);
    expect(PANEL_AREAS.project.map((a) => a.segment)).toEqual(['', 'members', 'api-keys', 'billing', 'activity', 'settings']);
    expect(PANEL_AREAS.resources.map((a) => a.segment)).toEqual([
      'servers',
      'domains',
      'apps',
      'ssh-keys',
      'redis',
      'databases',
      'object-storage',
      'container-registry',
      'hosting',
      'secrets',
      'variables',
      'webhooks',
      'integrations',
    ]);
  });

  it('offers the audit log every mutation a caller must be signed in for, and nothing else', () => {
    expect(AUDITED_ACTIONS).toEqual(expect.arrayContaining(['sshKeys.create', 'projects.create', 'invitations.accept', 'apiKeys.revoke']));
    expect(AUDITED_ACTIONS).not.toContain('accounts.create');
    expect(AUDITED_ACTIONS).not.toContain('sshKeys.list');
    expect(AUDITED_ACTIONS).toEqual([...AUDITED_ACTIONS].sort());
  });

  it('registers the `_count` counters the manifests declare, and only those', () => {
    expect(registeredCounters().sort()).toEqual(manifests.flatMap((d) => (d.counters ?? []).map((c) => c.counter)).sort());
  });

  it('declares every event type a domain records; an undeclared one is refused', async () => {
    expect(eventTypes()).toEqual([...manifests.flatMap((d) => (d.events ?? []).map((e) => e.type))].sort());
    const db = await getDb();
    await expect(emit(db, null, 'server.exploded', {})).rejects.toThrow('not declared');
  });
});
