import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestLog } from './context';
import { getLogger } from './logger';

describe('requestLog', () => {
  afterEach(() => vi.restoreAllMocks());

  it('makes no child logger until the request logs, then one, whose lines carry the request id', () => {
    const lines: Array<[string, object, string]> = [];
    const child = {
      error: (details: object, message: string) => lines.push(['error', details, message]),
      warn: (details: object, message: string) => lines.push(['warn', details, message]),
      info: (details: object, message: string) => lines.push(['info', details, message]),
    };
    const makeChild = vi.spyOn(getLogger(), 'child').mockReturnValue(child as unknown as ReturnType<ReturnType<typeof getLogger>['child']>);
    const log = requestLog('req_42');
    expect(makeChild).not.toHaveBeenCalled();
    log.error({ code: 'A' }, 'first');
    log.warn({ code: 'B' }, 'second');
    log.info({ code: 'C' }, 'third');
    expect(makeChild).toHaveBeenCalledTimes(1);
    expect(makeChild).toHaveBeenCalledWith({ reqId: 'req_42' });
    expect(lines).toEqual([
      ['error', { code: 'A' }, 'first'],
      ['warn', { code: 'B' }, 'second'],
      ['info', { code: 'C' }, 'third'],
    ]);
  });
});
