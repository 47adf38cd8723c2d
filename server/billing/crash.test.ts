import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';

/**
 * A real process is killed (SIGKILL) after the card was charged and before the purchase was
 * recorded as complete; the next process's reconciliation must refund the charge, leaving no
 * resource billed and no money taken. Runs on the test's PostgreSQL database, or on an embedded
 * database in a folder both processes open in turn.
 */
describe('a crash between charge and commit', () => {
  it('ends with the charge refunded, never orphaned', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent' };
    const scratch = mkdtempSync(path.join(tmpdir(), 'crash-'));
    onTestFinished(() => rmSync(scratch, { recursive: true, force: true }));
    if (!process.env.DATABASE_URL) {
      delete env.DATABASE_URL;
      env.PGLITE_DIR = path.join(scratch, 'pglite');
    }
    const script = path.resolve(import.meta.dirname, '../../test/fixtures/purchaseCrash.ts');
    // One process, not a launcher with a child, so the kill ends the process that charged.
    const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { env, encoding: 'utf8', timeout: 60_000 });
    const crashed = run('crash');
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    const before = JSON.parse(crashed.stdout.trim()) as { purchaseId: string; chargeId: string };
    expect(before.chargeId).toMatch(/^pi_/);

    const recovered = run('recover', before.purchaseId);
    expect(recovered.status, recovered.stderr).toBe(0);
    const after = JSON.parse(recovered.stdout.trim()) as {
      settled: number;
      status: string;
      charge: { chargeId: string; amount: number; amountRefunded: number };
      billingItems: number;
    };
    expect(after.settled).toBeGreaterThanOrEqual(1);
    expect(after.status).toBe('refunded');
    expect(after.charge.chargeId).toBe(before.chargeId);
    expect(after.charge.amountRefunded).toBe(after.charge.amount);
    expect(after.billingItems).toBe(0);
  }, 120_000);
});
