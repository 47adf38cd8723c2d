import { expect, signIn, test } from './fixtures';

test('a form whose answer is lost on the way back is sent again with the same Idempotency-Key and creates one project', async ({ page, account }) => {
  await signIn(page, account);
  const sent: { url: string; key: string | null }[] = [];
  await page.route('**/api/trpc/projects.create**', async (route) => {
    const request = route.request();
    sent.push({ url: request.url(), key: await request.headerValue('idempotency-key') });
    if (sent.length > 1) return route.continue();
    // The server creates the project, but its answer never reaches the browser.
    await route.fetch();
    await route.abort('connectionreset');
  });
  const replayed = page.waitForResponse((res) => res.url().includes('/api/trpc/projects.create') && res.status() === 200);

  await page.goto('/projects/new');
  await page.getByLabel('Project name').fill('Exactly once');
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Exactly once' })).toBeVisible();

  expect(sent).toHaveLength(2);
  expect(sent[0]!.key).toMatch(/^[0-9a-f]{32}$/);
  expect(sent[1]!.key).toBe(sent[0]!.key);
  expect(new URL(sent[0]!.url).searchParams.has('batch')).toBe(false);
  expect(await (await replayed).headerValue('idempotent-replayed')).toBe('true');

  const projects = await page.request.get('/v1/projects');
  const names = ((await projects.json()) as { data: { name: string }[] }).data.map((p) => p.name);
  expect(names).toEqual(['Exactly once']);
});
