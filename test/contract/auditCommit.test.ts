import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { generateEd25519KeyPair } from '../../server/domains/sshKeys/keyFormat';
import { queryRows } from '../db';
import { api, createProject, createUser, expectError, type TestUser } from '../helpers';

/**
 * The audit log's promise that no committed change lacks its entry (server/platform/audit.ts): the
 * entry is committed before the procedure writes, a procedure whose entry cannot be written does
 * not run, and a process killed between the commit and the entry's completion leaves the entry
 * pending for the job to mark interrupted.
 */
describe('no committed change without its entry', () => {
  let owner: TestUser;
  let projectId: string;
  const keysUrl = () => `/v1/projects/${projectId}/ssh-keys`;
  const sshKeyCount = async () => Number((await queryRows<{ n: string }>(sql`select count(*)::text as n from ssh_keys where project_id = ${projectId}`))[0]!.n);

  beforeAll(async () => {
    owner = await createUser();
    ({ projectId } = await createProject(owner));
  });

  it('commits the entry, pending, before the procedure writes anything', async () => {
    // The domain's own insert checks, inside its transaction, that a committed pending entry of this call exists.
    await queryRows(sql`create function require_pending_audit_entry() returns trigger language plpgsql as $$
      begin
        if not exists (select 1 from audit_entries where action = 'sshKeys.create' and outcome = 'pending' and project_id = new.project_id) then
          raise exception 'no pending audit entry';
        end if;
        return new;
      end $$`);
    await queryRows(sql`create trigger ssh_keys_require_audit before insert on ssh_keys for each row execute function require_pending_audit_entry()`);
    onTestFinished(async () => {
      await queryRows(sql`drop trigger ssh_keys_require_audit on ssh_keys`);
      await queryRows(sql`drop function require_pending_audit_entry()`);
    });

    const res = await api<{ id: string }>('POST', keysUrl(), {
      cookie: owner.cookie,
      body: { name: 'watched', publicKey: generateEd25519KeyPair('w').publicKey.publicKey },
    });
    expect(res.status).toBe(200);
    const [entry] = await queryRows<{ outcome: string }>(sql`select outcome from audit_entries where targets->>'resultId' = ${res.data.id}`);
    expect(entry?.outcome).toBe('ok');
  });

  it('does not run the procedure when its entry cannot be written', async () => {
    await queryRows(sql`create function refuse_pending_audit_entry() returns trigger language plpgsql as $$
      begin
        if new.outcome = 'pending' then raise exception 'audit log unavailable'; end if;
        return new;
      end $$`);
    await queryRows(sql`create trigger audit_entries_refuse before insert on audit_entries for each row execute function refuse_pending_audit_entry()`);
    onTestFinished(async () => {
      await queryRows(sql`drop trigger audit_entries_refuse on audit_entries`);
      await queryRows(sql`drop function refuse_pending_audit_entry()`);
    });

    const before = await sshKeyCount();
    const res = await api('POST', keysUrl(), {
      cookie: owner.cookie,
      body: { name: 'unrecorded', publicKey: generateEd25519KeyPair('u').publicKey.publicKey },
    });
    expectError(res, 500, 'INTERNAL_ERROR');
    expect(await sshKeyCount()).toBe(before);
  });

  it('leaves a pending entry when the process dies after the change committed, which the job marks interrupted', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent' };
    const scratch = mkdtempSync(path.join(tmpdir(), 'audit-crash-'));
    onTestFinished(() => rmSync(scratch, { recursive: true, force: true }));
    if (!process.env.DATABASE_URL) {
      delete env.DATABASE_URL;
      env.PGLITE_DIR = path.join(scratch, 'pglite');
    }
    const script = path.resolve(import.meta.dirname, '../fixtures/auditCrash.ts');
    const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { env, encoding: 'utf8', timeout: 60_000 });

    const crashed = run('crash');
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    const { projectId: crashedProject } = JSON.parse(crashed.stdout.trim()) as { projectId: string };

    const recovered = run('recover', crashedProject);
    expect(recovered.status, recovered.stderr).toBe(0);
    expect(JSON.parse(recovered.stdout.trim())).toEqual({
      keys: 1,
      before: { outcome: 'pending', requestId: 'req-crash' },
      interrupted: 1,
      after: { outcome: 'interrupted' },
    });
  }, 120_000);
});
