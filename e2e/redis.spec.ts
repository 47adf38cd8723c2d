import Redis from 'ioredis';
import type { Page } from '@playwright/test';
import { createAccountViaApi, createProject, expect, newAccount, signIn, test } from './fixtures';
import { addTestCard, apiWrite } from './serverFixtures';
import type { RedisDatabase } from '../server/domains/redis/schema';

/** Amounts as the panel prints them: "$1.23" → 123 minor units. */
function minorUnits(text: string): number {
  const match = /\$([\d,]+)\.(\d{2})/.exec(text);
  if (!match) throw new Error(`no dollar amount in ${JSON.stringify(text)}`);
  return Number(match[1]!.replace(/,/g, '')) * 100 + Number(match[2]);
}

/** Which Redis provider the app runs, as /healthz reports it: the journey passes with either. */
async function redisProviderKind(page: Page): Promise<string> {
  const res = await page.request.get('/healthz');
  const health = (await res.json()) as { providers?: Record<string, { kind: string }> };
  const kind = health.providers?.redis?.kind;
  if (!kind) throw new Error(`no redis provider in /healthz: ${JSON.stringify(health)}`);
  return kind;
}

async function listRedisViaApi(page: Page, projectId: string): Promise<RedisDatabase[]> {
  const res = await page.request.get(`/v1/projects/${projectId}/redis`);
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { data: RedisDatabase[] }).data;
}

/** One command on a short-lived connection that gives up at once, so a stopped database fails fast. */
async function ping(url: string): Promise<string> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return await client.ping();
  } finally {
    client.disconnect();
  }
}

test('create a Redis database in the panel, watch it become ready, copy its URL, see its usage, and delete it', async ({ page, browser, request, account }) => {
  test.setTimeout(150_000);
  await signIn(page, account);
  const projectId = await createProject(page, `Redis ${Date.now().toString(36)}`);
  await addTestCard(page, projectId);
  const provider = await redisProviderKind(page);

  await page.goto(`/projects/${projectId}/redis`);
  await expect(page.getByText('No Redis databases yet')).toBeVisible();
  const simulated = page.getByText('Redis databases on this installation are simulated');
  if (provider === 'simulator') await expect(simulated).toBeVisible();
  else await expect(simulated).toHaveCount(0);
  await page.getByRole('link', { name: 'Create database' }).first().click();
  await expect(page).toHaveURL(/\/redis\/new$/);

  const name = page.getByLabel('Database name');
  await name.fill('Cache_1');
  await expect(page.getByText('Name may contain lower-case letters, digits and hyphens')).toBeVisible();
  await name.fill('cache-e2e');
  await expect(page.getByText('Name may contain lower-case letters, digits and hyphens')).toHaveCount(0);

  const regions = page.getByRole('radiogroup', { name: 'Region' });
  const plans = page.getByRole('radiogroup', { name: 'Plan' });
  const persistence = page.getByRole('radiogroup', { name: 'Persistence' });
  await regions.getByRole('radio', { name: /Singapore/ }).check();
  await expect(plans.getByRole('radio', { name: /Pro 8 GB/ })).toBeDisabled();
  await expect(page.getByText('Not sold in Singapore; sold in Frankfurt, New York')).toBeVisible();
  await regions.getByRole('radio', { name: /Frankfurt/ }).check();
  await expect(plans.getByRole('radio', { name: /Pro 8 GB/ })).toBeEnabled();

  await plans.getByRole('radio', { name: /Hobby 256 MB/ }).check();
  await expect(page.getByRole('checkbox', { name: /Add a replica/ })).toBeDisabled();
  await expect(persistence.getByRole('radio', { name: /Log every second/ })).toBeDisabled();
  await expect(persistence.getByRole('radio', { name: /No persistence/ })).toBeChecked();

  const standard = plans.locator('label').filter({ hasText: 'Standard 1 GB' });
  await standard.getByRole('radio').check();
  await expect(standard).toContainText('$15.00/month');
  await page.getByRole('checkbox', { name: /Add a replica/ }).check();
  // Replication bills the plan twice and keeps half the memory for the replica.
  await expect(standard).toContainText('$30.00/month');
  await expect(standard).toContainText('512 MB usable');
  await persistence.getByRole('radio', { name: /Log every second/ }).check();
  await expect(page.getByText('a crash loses at most the last second')).toBeVisible();

  const summary = page.getByRole('complementary', { name: 'Summary' });
  await expect(summary).toContainText('Frankfurt');
  await expect(summary).toContainText('Standard 1 GB');
  await expect(summary).toContainText('Log every second');
  const preview = page.getByRole('region', { name: 'Price preview' });
  await expect(preview).toContainText('$30.00/month');
  const dueToday = minorUnits((await preview.getByTestId('preview-due-today').textContent()) ?? '');
  expect(dueToday).toBeGreaterThan(0);
  const createButton = page.getByRole('button', { name: /^Create and pay \$/ });
  expect(minorUnits((await createButton.textContent()) ?? '')).toBe(dueToday);
  await createButton.click();

  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/redis/rds_`));
  const detailUrl = page.url();
  const heading = page.getByRole('heading', { level: 1 });
  await expect(heading).toContainText('cache-e2e');
  await expect(heading).toContainText('Ready', { timeout: 30_000 });
  const usage = page.getByRole('region', { name: 'Usage' });

  await expect(page.getByTestId('redis-username')).toHaveText('default');
  await expect(page.getByTestId('redis-password')).toHaveText(/^•+$/);
  await expect(page.getByTestId('redis-url')).toContainText('•');
  await expect(page.getByRole('button', { name: 'Copy connection URL' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Reveal' }).click();
  const url = ((await page.getByTestId('redis-url').textContent()) ?? '').trim();
  const host = ((await page.getByTestId('redis-host').textContent()) ?? '').trim();
  const port = ((await page.getByTestId('redis-port').textContent()) ?? '').trim();
  expect(url).toMatch(/^redis:\/\/default:[^@•]+@/);
  expect(url.endsWith(`@${host}:${port}`)).toBe(true);
  await page.getByRole('button', { name: 'Copy connection URL' }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(url);
  if (provider === 'embedded') {
    expect(Number(port)).toBeGreaterThanOrEqual(28600);
    expect(Number(port)).toBeLessThanOrEqual(28699);
    expect(await ping(url)).toBe('PONG');
  }

  await expect(usage.getByTestId('usage-memory')).toContainText('of 512 MB');
  await expect(usage.getByRole('meter', { name: 'Memory used' })).toBeVisible();
  await expect(usage.getByTestId('usage-network-in')).toHaveText(/\d/);
  await expect(usage.getByTestId('usage-operations')).toHaveText(/\d/);
  await expect(usage.getByRole('img', { name: /Memory used over the last hour/ })).toBeVisible();

  await page.goto(`/projects/${projectId}/redis`);
  const row = page.getByRole('table', { name: 'Redis databases' }).getByRole('row', { name: /cache-e2e/ });
  await expect(row).toContainText('Ready');
  await expect(row).toContainText('Frankfurt');
  await expect(row).toContainText('512 MB');
  await expect(row).toContainText('Replica');
  await expect(row).toContainText('Log every second');

  // A viewer sees the database and its connection details, and neither the create nor the delete button.
  const viewer = newAccount('redis-viewer', 'Viewer Person');
  await createAccountViaApi(request, viewer);
  const origin = new URL(page.url()).origin;
  const invitation = await page.request.post(`/v1/projects/${projectId}/invitations`, {
    data: { email: viewer.email, role: 'viewer' },
    headers: { Origin: origin },
  });
  expect(invitation.status(), await invitation.text()).toBe(201);
  const invitationId = ((await invitation.json()) as { data: { id: string } }).data.id;
  const viewerContext = await browser.newContext();
  const viewerPage = await viewerContext.newPage();
  await signIn(viewerPage, viewer);
  const accepted = await viewerPage.request.post(`/v1/invitations/${invitationId}/accept`, { headers: { Origin: origin } });
  expect(accepted.status(), await accepted.text()).toBe(200);
  await viewerPage.goto(`/projects/${projectId}/redis`);
  await expect(viewerPage.getByRole('table', { name: 'Redis databases' }).getByRole('row', { name: /cache-e2e/ })).toBeVisible();
  await expect(viewerPage.getByRole('link', { name: 'Create database' })).toHaveCount(0);
  await viewerPage.goto(detailUrl);
  await expect(viewerPage.getByRole('heading', { level: 1 })).toContainText('cache-e2e');
  await expect(viewerPage.getByTestId('redis-host')).toHaveText(host);
  await expect(viewerPage.getByRole('button', { name: 'Delete database' })).toHaveCount(0);
  await viewerContext.close();

  await row.getByRole('link', { name: 'cache-e2e' }).click();
  await expect(heading).toContainText('cache-e2e');
  await page.getByRole('button', { name: 'Delete database' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete cache-e2e?' });
  const confirmButton = confirm.getByRole('button', { name: 'Delete this database' });
  await expect(confirmButton).toBeDisabled();
  await confirm.getByLabel(/to confirm/).fill('cache-e2');
  await expect(confirmButton).toBeDisabled();
  await confirm.getByLabel(/to confirm/).fill('cache-e2e');
  await confirmButton.click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/redis$`));
  await expect(page.getByText('Redis database cache-e2e was deleted')).toBeVisible();
  await expect(page.getByText('No Redis databases yet')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Redis databases' })).toHaveCount(0);
  expect(await listRedisViaApi(page, projectId)).toEqual([]);
  if (provider === 'embedded') await expect(ping(url)).rejects.toThrow();
});

test('the create form says why a database was refused: no saved card (402), then a name already taken (409)', async ({ page, account }) => {
  await signIn(page, account);
  const projectId = await createProject(page, `Redis refusals ${Date.now().toString(36)}`);

  await page.goto(`/projects/${projectId}/redis/new`);
  await page.getByLabel('Database name').fill('queue');
  await page
    .getByRole('radiogroup', { name: 'Region' })
    .getByRole('radio', { name: /New York/ })
    .check();
  await page.getByRole('radiogroup', { name: 'Plan' }).locator('label').filter({ hasText: 'Hobby 256 MB' }).getByRole('radio').check();
  await expect(page.getByRole('region', { name: 'Price preview' })).toContainText('$5.00/month');
  await page.getByRole('button', { name: /^Create and pay \$/ }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'A payment card is needed' });
  await expect(alert.getByRole('link', { name: 'Add a card on the Billing page' })).toHaveAttribute('href', `/projects/${projectId}/billing`);
  await expect(page).toHaveURL(/\/redis\/new$/);

  await addTestCard(page, projectId);
  await apiWrite(page, 'post', `/v1/projects/${projectId}/redis`, { name: 'queue', planSlug: 'redis-256mb', region: 'nyc1' });
  await page.getByRole('button', { name: /^Create and pay \$/ }).click();
  await expect(page.getByText('A Redis database named "queue" already exists in this project')).toBeVisible();
  await expect(page).toHaveURL(/\/redis\/new$/);

  for (const database of await listRedisViaApi(page, projectId)) await apiWrite(page, 'delete', `/v1/projects/${projectId}/redis/${database.id}`);
});
