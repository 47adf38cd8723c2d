import { createProject, expect, newAccount, signIn, test } from './fixtures';

test('sign up, create a project and an API key, then use it on the REST API', async ({ page, request }) => {
  const owner = newAccount('signup', 'Grace Hopper');

  await page.goto('/signup');
  await page.getByLabel('Full name').fill(owner.name);
  await page.getByLabel('Work email').fill(owner.email);
  await page.getByLabel('Password').fill(owner.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.getByText('Create your first project')).toBeVisible();

  await page.getByRole('link', { name: 'Create project' }).click();
  await expect(page).toHaveURL(/\/projects\/new$/);
  const projectName = `Launch ${Date.now().toString(36)}`;
  await page.getByLabel('Project name').fill(projectName);
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByRole('heading', { level: 1, name: projectName })).toBeVisible();
  const projectId = new URL(page.url()).pathname.split('/').pop()!;

  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'API keys' }).click();
  await expect(page.getByText('No API keys yet')).toBeVisible();
  await page.getByRole('button', { name: 'Create API key' }).first().click();
  const createDialog = page.getByRole('dialog', { name: 'Create an API key' });
  await createDialog.getByLabel('Name').fill('Read-only reporter');
  await createDialog.getByRole('button', { name: 'Create key' }).click();
  await expect(createDialog.getByText('Choose at least one scope')).toBeVisible();
  await createDialog.getByRole('checkbox', { name: 'projects:read' }).check();
  await createDialog.getByRole('checkbox', { name: 'members:read' }).check();
  await createDialog.getByRole('button', { name: 'Create key' }).click();

  const secretDialog = page.getByRole('dialog', { name: /API key .* created/ });
  await expect(secretDialog.getByText('Shown once — copy it now')).toBeVisible();
  await expect(secretDialog.getByTestId('api-key-usage')).toContainText('npx cloud auth login');
  await expect(secretDialog.getByTestId('api-key-usage')).toContainText('@cloudpanel/sdk');
  const guide = secretDialog.getByRole('link', { name: 'The command line and SDK guide' });
  await expect(guide).toHaveAttribute('href', '/docs/cli');
  const key = (await page.getByTestId('new-api-key').textContent())?.trim() ?? '';
  expect(key).toMatch(/^cpk_/);
  await secretDialog.getByRole('button', { name: 'Copy to clipboard' }).click();
  await expect(secretDialog.getByRole('button', { name: 'Copy to clipboard' })).toHaveText(/Copied/);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await secretDialog.getByRole('button', { name: 'I have copied it' }).click();
  await expect(page.getByTestId('new-api-key')).toHaveCount(0);

  const table = page.getByRole('table', { name: 'API keys' });
  await expect(table.getByText('Read-only reporter')).toBeVisible();
  await expect(table.getByText(key.slice(0, 12))).toBeVisible();
  await expect(table.getByText('projects:read')).toBeVisible();
  await expect(table.getByText('members:read')).toBeVisible();

  const read = await request.get(`/v1/projects/${projectId}`, { headers: { Authorization: `Bearer ${key}` } });
  expect(read.status()).toBe(200);
  const readBody = await read.json();
  expect(readBody).toMatchObject({ success: true, data: { id: projectId, name: projectName } });
  expect(readBody.data._count).toMatchObject({ members: 1 });

  const write = await request.patch(`/v1/projects/${projectId}`, {
    headers: { Authorization: `Bearer ${key}` },
    data: { name: `${projectName} renamed` },
  });
  expect(write.status()).toBe(403);
  expect(await write.json()).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } });

  await page.reload();
  await expect(table.getByText('just now')).toBeVisible();
});

test('a revoked API key is refused by the API', async ({ page, request, account }) => {
  await signIn(page, account);
  const projectId = await createProject(page, `Revocation ${Date.now().toString(36)}`);

  await page.goto(`/projects/${projectId}/api-keys`);
  await page.getByRole('button', { name: 'Create API key' }).first().click();
  const createDialog = page.getByRole('dialog', { name: 'Create an API key' });
  await createDialog.getByLabel('Name').fill('Short-lived');
  await createDialog.getByRole('checkbox', { name: 'projects:read' }).check();
  await createDialog.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.getByTestId('new-api-key').textContent())?.trim() ?? '';
  await page.getByRole('button', { name: 'I have copied it' }).click();

  const before = await request.get(`/v1/projects/${projectId}`, { headers: { Authorization: `Bearer ${key}` } });
  expect(before.status()).toBe(200);

  await page.getByRole('button', { name: 'Revoke Short-lived' }).click();
  const confirm = page.getByRole('alertdialog', { name: /Revoke/ });
  await confirm.getByRole('button', { name: 'Revoke key' }).click();
  await expect(page.getByText('No API keys yet')).toBeVisible();
  // The list empties optimistically; the toast confirms the server has revoked the key.
  await expect(page.getByText('API key Short-lived was revoked')).toBeVisible();

  const after = await request.get(`/v1/projects/${projectId}`, { headers: { Authorization: `Bearer ${key}` } });
  expect(after.status()).toBe(401);
  expect(await after.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
});

test('the command line and SDK guide is public and shows how to sign in, script and retry', async ({ page }) => {
  await page.goto('/docs/cli');
  await expect(page.getByRole('heading', { level: 1, name: 'Command line and SDK' })).toBeVisible();
  await expect(page.getByText('npx cloud auth login').first()).toBeVisible();
  const exitCodes = page.getByRole('table');
  await expect(exitCodes.getByRole('row')).toHaveCount(11);
  await expect(exitCodes).toContainText('Rate limited (429)');
  await expect(page.getByText("import { ApiError, createClient } from '@cloudpanel/sdk';")).toBeVisible();
});
