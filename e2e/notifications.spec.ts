import { createAccountViaApi, createProject, expect, newAccount, signIn, test } from './fixtures';
import type { Page } from '@playwright/test';

/**
 * react-query reads again when the window hears `visibilitychange`: what happens when someone comes back to
 * the tab. The worker dispatches events every second, so a few returns may be needed.
 */
async function returnToTab(page: Page): Promise<void> {
  await page.evaluate(() => window.dispatchEvent(new Event('visibilitychange')));
}

test('a teammate joins and creates an API key: the bell counts it, the page filters and marks read', async ({ page, browser, account: owner }) => {
  await signIn(page, owner);
  const projectName = `Bells ${Date.now().toString(36)}`;
  const projectId = await createProject(page, projectName);
  const bell = page.getByRole('button', { name: /^Notifications, / });
  await expect(bell).toHaveAccessibleName('Notifications, none unread');

  const teammate = newAccount('teammate', 'Grace Hopper');
  await createAccountViaApi(page.request, teammate);
  await page.goto(`/projects/${projectId}/members`);
  await page.getByLabel('Email').fill(teammate.email);
  await page.getByLabel('Role', { exact: true }).selectOption('admin');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByRole('table', { name: 'Pending invitations' }).getByText(teammate.email)).toBeVisible();

  const teammateContext = await browser.newContext();
  const teammatePage = await teammateContext.newPage();
  await signIn(teammatePage, teammate, '/invitations');
  await teammatePage.getByRole('button', { name: 'Accept' }).click();
  await expect(teammatePage.getByRole('heading', { level: 1, name: projectName })).toBeVisible();

  await expect(async () => {
    await returnToTab(page);
    await expect(bell).toHaveAccessibleName('Notifications, 1 unread', { timeout: 1000 });
  }).toPass({ timeout: 20_000 });

  const created = await teammatePage.request.post(`/v1/projects/${projectId}/api-keys`, {
    data: { name: 'deploy bot', scopes: ['servers:read'] },
    headers: { origin: new URL(teammatePage.url()).origin },
  });
  expect(created.status(), await created.text()).toBe(201);
  await teammateContext.close();

  await expect(async () => {
    await returnToTab(page);
    await expect(bell).toHaveAccessibleName('Notifications, 2 unread', { timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId('notification-count')).toHaveText('2');

  await bell.click();
  const latest = page.getByRole('list', { name: 'Latest notifications' });
  await expect(latest.getByText('API key created')).toBeVisible();
  await expect(latest.getByText(`Grace Hopper accepted your invitation to ${projectName}.`)).toBeVisible();
  await page.screenshot({ path: 'e2e/.output/notifications-bell.png' });
  await page.getByRole('link', { name: 'View all notifications' }).click();
  await expect(page).toHaveURL(/\/notifications$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();

  const list = page.getByRole('list', { name: 'Notifications' });
  const rows = list.getByRole('listitem');
  await expect(rows).toHaveCount(2);
  await page.getByLabel('Type', { exact: true }).selectOption('SUCCESS');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAccessibleName('Invitation accepted');
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByRole('button', { name: /^Event types: / }).click();
  await page.getByRole('group', { name: 'Event types' }).getByLabel('api_key.created').check();
  await page.keyboard.press('Escape');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAccessibleName('API key created');
  await expect(rows.first()).toContainText('Grace Hopper created the API key "deploy bot"');
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(rows).toHaveCount(2);
  await page.screenshot({ path: 'e2e/.output/notifications-page.png', fullPage: true });

  await list.getByRole('listitem', { name: 'Invitation accepted' }).getByRole('button', { name: 'Mark read' }).click();
  await expect(list.getByRole('listitem', { name: 'Invitation accepted' }).getByText('Read', { exact: true })).toBeVisible();
  await expect(bell).toHaveAccessibleName('Notifications, 1 unread');
  await page.getByLabel('Status', { exact: true }).selectOption('false');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAccessibleName('API key created');
  await page.getByLabel('Status', { exact: true }).selectOption('');

  await page.getByRole('main').getByRole('button', { name: 'Mark all read' }).click();
  await expect(page.getByText('Marked 1 notification read')).toBeVisible();
  await expect(bell).toHaveAccessibleName('Notifications, none unread');
  await expect(page.getByTestId('notification-count')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Mark read' })).toHaveCount(0);
});
