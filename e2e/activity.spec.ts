import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAccountViaApi, expect, newAccount, signIn, test } from './fixtures';
import { newEd25519PublicKey } from './serverFixtures';

const SCREENSHOT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'screenshots');

test('sign up, make a few changes, one refused, and find them on the Activity page; a viewer sees no Activity', async ({ page, browser, request }) => {
  const owner = newAccount('activity', 'Grace Hopper');
  await page.goto('/signup');
  await page.getByLabel('Full name').fill(owner.name);
  await page.getByLabel('Work email').fill(owner.email);
  await page.getByLabel('Password').fill(owner.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/projects$/);

  await page.goto('/projects/new');
  const projectName = `Audited ${Date.now().toString(36)}`;
  await page.getByLabel('Project name').fill(projectName);
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByRole('heading', { level: 1, name: projectName })).toBeVisible();
  const projectId = new URL(page.url()).pathname.split('/').pop()!;

  const nav = page.getByRole('navigation', { name: 'Project' });
  await nav.getByRole('link', { name: 'SSH keys' }).click();
  const addKeyForm = page.getByRole('form', { name: 'Add an SSH key' });
  const key = newEd25519PublicKey('grace@laptop');
  await addKeyForm.getByLabel('Name').fill('Laptop');
  await addKeyForm.getByLabel('Public key').fill(key.line);
  await addKeyForm.getByRole('button', { name: 'Add SSH key' }).click();
  await expect(page.getByText('SSH key Laptop was added')).toBeVisible();
  // The same key again: the server refuses it with 409, and that refusal is recorded too.
  await addKeyForm.getByLabel('Name').fill('Laptop again');
  await addKeyForm.getByLabel('Public key').fill(key.line);
  await addKeyForm.getByRole('button', { name: 'Add SSH key' }).click();
  await expect(addKeyForm.getByText(/already registered/)).toBeVisible();

  await nav.getByRole('link', { name: 'Activity' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/activity$`));
  const log = page.getByRole('table', { name: 'Audit log' });
  const rows = log.getByRole('row');
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(1)).toContainText('sshKeys.create');
  await expect(rows.nth(1)).toContainText('CONFLICT');
  await expect(rows.nth(1)).toContainText(owner.name);
  await expect(rows.nth(2)).toContainText('sshKeys.create');
  await expect(rows.nth(2)).toContainText('Succeeded');
  await expect(rows.nth(3)).toContainText('projects.create');
  await expect(log).not.toContainText(key.line.split(' ')[1]!);

  for (const viewport of [
    { label: 'desktop', width: 1280, height: 800 },
    { label: 'phone', width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    await expect(rows).toHaveCount(4);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `activity-${viewport.label}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  const filters = page.getByRole('form', { name: 'Filter the audit log' });
  await filters.getByLabel('Outcome').selectOption('error');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(1)).toContainText('CONFLICT');
  await filters.getByLabel('Outcome').selectOption('ok');
  await filters.getByLabel('Action').selectOption('projects.create');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(1)).toContainText('projects.create');
  await filters.getByLabel('From').fill('2020-01-01');
  await filters.getByLabel('To').fill('2020-01-02');
  await expect(page.getByText('No entries match these filters')).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).first().click();
  await expect(rows).toHaveCount(4);

  // The key form offers the log's one scope, read, and a key holding it reads the log over /v1.
  await nav.getByRole('link', { name: 'API keys' }).click();
  await page.getByRole('button', { name: 'Create API key' }).first().click();
  const createDialog = page.getByRole('dialog', { name: 'Create an API key' });
  await createDialog.getByLabel('Name').fill('Auditor');
  await expect(createDialog.getByRole('checkbox', { name: 'audit:write' })).toHaveCount(0);
  await createDialog.getByRole('checkbox', { name: 'audit:read' }).check();
  await createDialog.getByRole('button', { name: 'Create key' }).click();
  const auditorKey = (await page.getByTestId('new-api-key').textContent())?.trim() ?? '';
  await page.getByRole('button', { name: 'I have copied it' }).click();
  const read = await request.get(`/v1/projects/${projectId}/audit-log?outcome=CONFLICT`, { headers: { Authorization: `Bearer ${auditorKey}` } });
  expect(read.status()).toBe(200);
  expect(((await read.json()) as { data: { entries: { action: string }[] } }).data.entries.map((e) => e.action)).toEqual(['sshKeys.create']);

  // A viewer: no Activity link, and the page says who may read it.
  const viewer = newAccount('activity-viewer', 'Viewer Person');
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
  await viewerPage.goto(`/projects/${projectId}`);
  const viewerNav = viewerPage.getByRole('navigation', { name: 'Project' });
  await expect(viewerNav.getByRole('link', { name: 'Members' })).toBeVisible();
  await expect(viewerNav.getByRole('link', { name: 'Activity' })).toHaveCount(0);
  await viewerPage.goto(`/projects/${projectId}/activity`);
  await expect(viewerPage.getByText('Activity is visible to owners and admins')).toBeVisible();
  await viewerContext.close();

  await nav.getByRole('link', { name: 'Activity' }).click();
  await expect(log.getByText('invitations.accept')).toBeVisible();
  await expect(log.getByText('Viewer Person')).toBeVisible();
});
