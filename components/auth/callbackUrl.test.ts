import { describe, expect, it } from 'vitest';
import { safeCallbackUrl } from './callbackUrl';

describe('safeCallbackUrl', () => {
  it('keeps same-site paths with their query and fragment', () => {
    expect(safeCallbackUrl('/projects/prj_1/servers?created=web-1#top')).toBe('/projects/prj_1/servers?created=web-1#top');
    expect(safeCallbackUrl(['/account', '/other'])).toBe('/account');
  });

  it('refuses anything that could leave the site', () => {
    for (const hostile of [
      'https://evil.test',
      '//evil.test',
      '/\\evil.test',
      '/\t/evil.test',
      '/\n/evil.test',
      '/\r//evil.test',
      '/\u0000/evil.test',
      '\t//evil.test',
      'javascript:alert(1)',
      'evil.test',
      '',
    ]) {
      expect(safeCallbackUrl(hostile), JSON.stringify(hostile)).toBe('/projects');
    }
    expect(safeCallbackUrl(undefined)).toBe('/projects');
    expect(safeCallbackUrl(null)).toBe('/projects');
  });
});
