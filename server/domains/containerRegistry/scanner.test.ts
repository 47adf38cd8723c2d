import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SEVERITIES, simulatedScanner } from './scanner';

const digestOf = (seed: number) => `sha256:${createHash('sha256').update(String(seed)).digest('hex')}`;

describe('the simulated scanner', () => {
  it('reports every severity, the same for the same image', async () => {
    const digest = digestOf(1);
    const first = await simulatedScanner.scan('acme/web', digest);
    expect(Object.keys(first)).toEqual([...SEVERITIES]);
    expect(await simulatedScanner.scan('acme/other', digest)).toEqual(first);
  });

  it('tells images apart, with mostly low-severity findings and critical ones rare', async () => {
    const reports = await Promise.all(Array.from({ length: 200 }, (_, i) => simulatedScanner.scan('acme/web', digestOf(i))));
    expect(new Set(reports.map((report) => JSON.stringify(report))).size).toBeGreaterThan(150);
    const total = (severity: string) => reports.reduce((sum, report) => sum + report[severity]!, 0);
    expect(total('LOW')).toBeGreaterThan(total('HIGH'));
    expect(total('CRITICAL')).toBeLessThan(total('MEDIUM'));
    expect(reports.filter((report) => report.CRITICAL! > 0).length).toBeLessThan(reports.length / 4);
  });
});
