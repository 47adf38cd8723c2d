import { createAccountViaApi, createProject, expect, newAccount, signIn, test } from './fixtures';
import { addTestCard, apiWrite } from './serverFixtures';

test('create a secret and see its value once, switch environments, update it, read its history, delete it, buy packs', async ({ page }) => {
  test.setTimeout(120_000);
  const account = newAccount('secrets', 'Grace Hopper');
  await page.goto('/signup');
  await page.getByLabel('Full name').fill(account.name);
  await page.getByLabel('Work email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/projects$/);
  const projectId = await createProject(page, `Secrets ${Date.now().toString(36)}`);

  await page.getByRole('navigation').getByRole('link', { name: 'Secrets' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/secrets$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Secrets' })).toBeVisible();
  await expect(page.getByTestId('secrets-usage')).toContainText('0 of 5 secrets used');
  await expect(page.getByText('No default secrets')).toBeVisible();

  // Create in production: the value is shown once, with a copy button, and is gone after closing.
  await page.getByRole('tab', { name: 'Production' }).click();
  await expect(page.getByText('No production secrets')).toBeVisible();
  await page.getByRole('button', { name: 'New secret' }).first().click();
  const create = page.getByRole('dialog', { name: 'New secret' });
  await create.getByLabel('Name').fill('bad-name');
  await create.getByLabel('Value').fill('x');
  await create.getByRole('button', { name: 'Create secret' }).click();
  await expect(create.getByText('Name must be upper-case letters, digits and underscores, starting with a letter')).toBeVisible();
  const value = `sk_live_${Date.now().toString(36)}_e2e-value`;
  await create.getByLabel('Name').fill('STRIPE_KEY');
  await create.getByLabel('Value').fill(value);
  await create.getByLabel('Description').fill('Payments API key');
  await expect(create.getByLabel('Environment')).toHaveValue('production');
  await create.getByRole('button', { name: 'Create secret' }).click();

  const shown = page.getByRole('dialog', { name: /Secret STRIPE_KEY created/ });
  await expect(shown).toContainText('You will not see this value again');
  await expect(shown.getByTestId('secret-value-once')).toHaveText(value);
  await expect(shown).toContainText('sk••••••••ue');
  await shown.getByRole('button', { name: 'Copy to clipboard' }).click();
  await expect(shown.getByRole('button', { name: 'Copy to clipboard' })).toContainText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
  await shown.getByRole('button', { name: 'I have copied it' }).click();
  await expect(page.getByText(value)).toHaveCount(0);

  const production = page.getByRole('table', { name: 'Production secrets' });
  const row = production.getByRole('row', { name: /STRIPE_KEY/ });
  await expect(row).toContainText('Payments API key');
  await expect(row).toContainText('v1');
  await expect(row).toContainText('by Grace Hopper');
  await expect(page.getByTestId('secrets-usage')).toContainText('1 of 5 secrets used');

  // The default tab does not list a production secret.
  await page.getByRole('tab', { name: 'Default' }).click();
  await expect(page.getByText('No default secrets')).toBeVisible();
  await page.getByRole('tab', { name: 'Production' }).click();

  // Update: the new value is shown once and the version goes up.
  await row.getByRole('button', { name: 'Update value of STRIPE_KEY' }).click();
  const update = page.getByRole('dialog', { name: 'Update STRIPE_KEY' });
  await update.getByLabel('New value').fill(`${value}-rotated`);
  await update.getByRole('button', { name: 'Replace value' }).click();
  const updated = page.getByRole('dialog', { name: /Secret STRIPE_KEY updated to version 2/ });
  await expect(updated.getByTestId('secret-value-once')).toHaveText(`${value}-rotated`);
  await updated.getByRole('button', { name: 'I have copied it' }).click();
  await expect(row).toContainText('v2');

  // The history names who did what.
  await row.getByRole('button', { name: 'History of STRIPE_KEY' }).click();
  const history = page.getByRole('dialog', { name: 'History of STRIPE_KEY' });
  const entries = history.getByTestId('secret-audit').getByRole('listitem');
  await expect(entries).toHaveCount(2);
  await expect(entries.nth(0)).toContainText('Updated');
  await expect(entries.nth(1)).toContainText('Created');
  await expect(entries.nth(1)).toContainText(`Grace Hopper (${account.email})`);
  await history.getByRole('button', { name: 'Close' }).first().click();

  // Delete, after confirming.
  await row.getByRole('button', { name: 'Delete STRIPE_KEY' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete secret STRIPE_KEY?' });
  await confirm.getByRole('button', { name: 'Delete secret' }).click();
  await expect(page.getByText('No production secrets')).toBeVisible();
  await expect(page.getByTestId('secrets-usage')).toContainText('0 of 5 secrets used');

  // Buy two packs with a saved card: the button charges exactly the preview.
  await addTestCard(page, projectId);
  await page.getByRole('button', { name: 'Buy more secrets' }).click();
  const upgrade = page.getByRole('dialog', { name: 'Buy more secrets' });
  await upgrade.getByLabel('Packs of 5 secrets').fill('2');
  const dueToday = upgrade.getByTestId('preview-due-today');
  await expect(dueToday).toContainText('$');
  const amount = /\$[\d,]+\.\d{2}/.exec((await dueToday.textContent()) ?? '')?.[0];
  expect(amount).toBeTruthy();
  await upgrade.getByRole('button', { name: `Pay ${amount} and add 10 secrets` }).click();
  await expect(upgrade).toHaveCount(0);
  await expect(page.getByTestId('secrets-usage')).toContainText('0 of 15 secrets used');
  await expect(page.getByTestId('secrets-usage')).toContainText('2 packs bought');
});

test('a viewer reads the names and versions of secrets without any button that writes', async ({ page, browser, request, account: owner }) => {
  await signIn(page, owner);
  const projectId = await createProject(page, `Secrets team ${Date.now().toString(36)}`);
  await apiWrite(page, 'post', `/v1/projects/${projectId}/secrets`, { name: 'DATABASE_URL', value: 'postgres://app@db/app', description: 'Main database' });

  const viewer = newAccount('secrets-viewer', 'Dorothy Vaughan');
  await createAccountViaApi(request, viewer);
  const invitation = (await apiWrite(page, 'post', `/v1/projects/${projectId}/invitations`, { email: viewer.email, role: 'viewer' })) as { id: string };
  const viewerContext = await browser.newContext();
  const viewerPage = await viewerContext.newPage();
  await signIn(viewerPage, viewer);
  await apiWrite(viewerPage, 'post', `/v1/invitations/${invitation.id}/accept`, {});

  await viewerPage.goto(`/projects/${projectId}/secrets`);
  const row = viewerPage.getByRole('table', { name: 'Default secrets' }).getByRole('row', { name: /DATABASE_URL/ });
  await expect(row).toContainText('Main database');
  await expect(row).toContainText('v1');
  await expect(viewerPage.getByTestId('secrets-usage')).toContainText('1 of 5 secrets used');
  await expect(viewerPage.getByRole('button', { name: 'New secret' })).toHaveCount(0);
  await expect(viewerPage.getByRole('button', { name: /Update value|History|Delete/ })).toHaveCount(0);
  await expect(viewerPage.getByRole('button', { name: 'Buy more secrets' })).toHaveCount(0);
  await viewerContext.close();
});
