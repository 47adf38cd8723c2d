import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startJobRunner, type JobDefinition } from './runner';

describe('job runner', () => {
  it('runs a job queued before a restart once a working runner starts on the same database', async () => {
    const queue = `test.durable-${randomBytes(4).toString('hex')}`;
    const received: Array<Record<string, unknown>> = [];
    let delivered!: () => void;
    const done = new Promise<void>((resolve) => {
      delivered = resolve;
    });
    const definitions: JobDefinition[] = [
      {
        name: queue,
        handler: async (data) => {
          received.push(data);
          delivered();
        },
      },
    ];

    const enqueueOnly = await startJobRunner(definitions, { work: false });
    const jobId = await enqueueOnly.send(queue, { marker: 'before-restart' });
    expect(jobId).toBeTruthy();
    await enqueueOnly.stop();
    expect(received).toEqual([]);

    const worker = await startJobRunner(definitions, { work: true });
    try {
      await Promise.race([done, new Promise((_, reject) => setTimeout(() => reject(new Error('the queued job did not run after the restart')), 15_000))]);
    } finally {
      await worker.stop();
    }
    expect(received).toEqual([{ marker: 'before-restart' }]);
  });
});
