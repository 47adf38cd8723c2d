import { expect, test } from '@playwright/test';

test('every answer, page or API, forbids framing and sniffing and trims referrers', async ({ request }) => {
  for (const path of ['/login', '/v1/openapi.json', '/v1/no-such-thing', '/healthz']) {
    const headers = (await request.get(path)).headers();
    expect(headers['content-security-policy'], path).toBe("frame-ancestors 'none'");
    expect(headers['x-content-type-options'], path).toBe('nosniff');
    expect(headers['referrer-policy'], path).toBe('strict-origin-when-cross-origin');
    // The suite's APP_URL is http: HSTS would pin a browser to https on a host that does not serve it.
    expect(headers['strict-transport-security'], path).toBeUndefined();
  }
});
