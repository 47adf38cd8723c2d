import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from '@playwright/test';
import { appDatabaseUrl, backdateFailures, backdatePurchases, runJobNow } from './billingClock';
import { createAccountViaApi, createProject, expect, newAccount, signIn, test } from './fixtures';
import { addTestCard, apiWrite, createServerViaApi, waitForServerStatus } from './serverFixtures';

const SCREENSHOT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'screenshots');

const EXPIRY_YEAR = String(new Date().getUTCFullYear() + 3);

async function fillCard(form: Locator, cardNumber: string, country?: string): Promise<void> {
  await form.getByLabel('Card number').fill(cardNumber);
  await form.getByLabel('Expiry month').selectOption('08');
  await form.getByLabel('Expiry year').selectOption(EXPIRY_YEAR);
  await form.getByLabel('CVC').fill('123');
  if (country) await form.getByLabel('Country').selectOption(country);
  await form.getByRole('button', { name: 'Add card' }).click();
}

test('cards on the Billing page: a declined card is refused, the first card is the default, the default moves and the old card is removed', async ({
  page,
  account,
}) => {
  await signIn(page, account);
  await createProject(page, `Billing ${Date.now().toString(36)}`);

  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Billing' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Billing' })).toBeVisible();
  const summary = page.getByRole('region', { name: 'Billing summary' });
  await expect(summary.getByText(account.name)).toBeVisible();
  await expect(summary.getByTestId('summary-default-card')).toContainText('No card');
  const cards = page.getByRole('region', { name: 'Payment methods' });
  await expect(cards.getByText('No cards saved')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Invoices' }).getByText('No invoices yet')).toBeVisible();

  const form = page.getByRole('form', { name: 'Add a card' });
  await form.getByLabel('Card number').pressSequentially('4000000000000002');
  await expect(form.getByLabel('Card number')).toHaveValue('4000 0000 0000 0002');
  await form.getByRole('button', { name: 'Add card' }).click();
  await expect(form.getByText('Choose the month')).toBeVisible();
  await expect(form.getByText('CVC must be 3 or 4 digits')).toBeVisible();

  await fillCard(form, '4000 0000 0000 0002');
  await expect(form.getByRole('alert').filter({ hasText: 'The card was not saved' })).toContainText('Your card was declined.');
  await expect(cards.getByText('No cards saved')).toBeVisible();

  await fillCard(form, '4242 4242 4242 4242', 'DE');
  const visa = cards.getByRole('row', { name: /Visa •••• 4242/ });
  await expect(visa).toContainText('Default');
  await expect(form.getByText('The card was not saved')).toHaveCount(0);
  await expect(form.getByLabel('Card number')).toHaveValue('');

  await fillCard(form, '5555555555554444');
  const mastercard = cards.getByRole('row', { name: /Mastercard •••• 4444/ });
  await expect(mastercard).toBeVisible();
  await expect(mastercard).not.toContainText('Default');
  await expect(visa).toContainText('Default');

  await mastercard.getByRole('button', { name: 'Make Mastercard •••• 4444 the default' }).click();
  await expect(mastercard).toContainText('Default');
  await expect(visa).not.toContainText('Default');
  await expect(visa.getByRole('button', { name: 'Make Visa •••• 4242 the default' })).toBeVisible();

  await mastercard.getByRole('button', { name: 'Remove Mastercard •••• 4444' }).click();
  const refuse = page.getByRole('alertdialog', { name: 'Remove Mastercard •••• 4444?' });
  await refuse.getByRole('button', { name: 'Remove card' }).click();
  await expect(refuse.getByRole('alert')).toContainText('make another card the default before removing it');
  await refuse.getByRole('button', { name: 'Cancel' }).click();
  await expect(refuse).toBeHidden();

  await visa.getByRole('button', { name: 'Remove Visa •••• 4242' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Remove Visa •••• 4242?' });
  await confirm.getByRole('button', { name: 'Remove card' }).click();
  await expect(confirm).toBeHidden();
  await expect(visa).toHaveCount(0);
  await expect(cards.getByRole('row')).toHaveCount(2);
  await expect(mastercard).toContainText('Default');

  await expect(summary.getByTestId('summary-default-card')).toContainText('Mastercard •••• 4444');
  await expect(summary.getByTestId('summary-default-card')).toContainText(`Expires 08/${EXPIRY_YEAR}`);
  await page.reload();
  await expect(summary.getByTestId('summary-default-card')).toContainText('Mastercard •••• 4444');
  await expect(cards.getByRole('row', { name: /Mastercard •••• 4444/ })).toContainText('Default');
});

async function screenshot(page: Page, name: string): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

test('billing is offered to an admin, stays put until they accept on the Billing page, then moves to them', async ({
  page,
  browser,
  request,
  account: owner,
}) => {
  await signIn(page, owner);
  const projectId = await createProject(page, `Handover ${Date.now().toString(36)}`);
  await addTestCard(page, projectId);
  const admin = newAccount('admin', 'Grace Hopper');
  await createAccountViaApi(request, admin);
  const invitation = (await apiWrite(page, 'post', `/v1/projects/${projectId}/invitations`, { email: admin.email, role: 'admin' })) as { id: string };
  const adminContext = await browser.newContext();
  const adminPage = await adminContext.newPage();
  await signIn(adminPage, admin);
  await apiWrite(adminPage, 'post', `/v1/invitations/${invitation.id}/accept`);

  await page.goto(`/projects/${projectId}/billing`);
  const summary = page.getByRole('region', { name: 'Billing summary' });
  const transfer = page.getByRole('form', { name: 'Transfer billing' });
  await expect(transfer.getByLabel('Member', { exact: true })).toContainText('Grace Hopper');
  await transfer.getByRole('button', { name: 'Offer billing' }).click();
  const waiting = page.getByRole('region', { name: 'Billing offer' });
  await expect(waiting).toContainText('Billing offer waiting for an answer');
  await expect(waiting).toContainText('Grace Hopper');
  await expect(transfer).toHaveCount(0);
  await expect(summary).toContainText(owner.name);
  await expect(summary.getByTestId('summary-default-card')).toContainText('Visa •••• 4242');
  await screenshot(page, 'billing-offer-waiting');

  await adminPage.goto(`/projects/${projectId}/billing`);
  const offer = adminPage.getByRole('region', { name: 'Billing offer' });
  await expect(offer).toContainText('You are offered billing for this project');
  await expect(adminPage.getByRole('region', { name: 'Payment methods' })).toContainText(`${owner.name} has a default card on file`);
  await expect(adminPage.getByRole('region', { name: 'Payment methods' })).not.toContainText('4242');
  await screenshot(adminPage, 'billing-offer-received');
  await offer.getByRole('button', { name: 'Accept billing' }).click();
  await expect(adminPage.getByText('You now hold billing for this project')).toBeVisible();
  await expect(offer).toHaveCount(0);
  const adminSummary = adminPage.getByRole('region', { name: 'Billing summary' });
  await expect(adminSummary).toContainText('Grace Hopper');
  await expect(adminSummary.getByTestId('summary-default-card')).toContainText('No card');
  await expect(adminPage.getByRole('form', { name: 'Add a card' })).toBeVisible();
  await adminContext.close();

  await page.reload();
  await expect(summary).toContainText('Grace Hopper');
  await expect(page.getByRole('region', { name: 'Payment methods' })).toContainText('Grace Hopper has not saved a card yet');
  await page.goto(`/projects/${projectId}/members`);
  const graceRow = page.getByRole('table', { name: 'Members' }).getByRole('row', { name: /Grace Hopper/ });
  await expect(graceRow).toContainText('Biller');
  await expect(graceRow.getByLabel('Role of Grace Hopper').locator('option')).toHaveText(['Owner', 'Admin']);
});

test('a project suspended for an unpaid invoice has its servers powered off until the invoice is paid with a new card', async ({ page, account }) => {
  test.skip(!appDatabaseUrl, 'moves the billing clock in the app database: run with E2E_DATABASE_URL');
  test.setTimeout(180_000);
  await signIn(page, account);
  const projectId = await createProject(page, `Dunning ${Date.now().toString(36)}`);
  await addTestCard(page, projectId);
  await createServerViaApi(page, projectId, { name: 'shop-1', region: 'fra1', slug: 's-1vcpu-1gb', sshKeyIds: [] });
  await waitForServerStatus(page, projectId, 'shop-1', 'RUNNING');

  // The card on file from now on saves fine but declines every charge.
  const cardsPath = `/v1/projects/${projectId}/billing/payment-methods`;
  const visa = ((await (await page.request.get(cardsPath)).json()) as { data: Array<{ id: string }> }).data[0]!;
  const declining = (await apiWrite(page, 'post', cardsPath, { cardNumber: '4000 0000 0000 0341', expMonth: 12, expYear: 2030, cvc: '123' })) as { id: string };
  await apiWrite(page, 'post', `${cardsPath}/${declining.id}/default`);
  await apiWrite(page, 'delete', `${cardsPath}/${visa.id}`);

  const project = async () =>
    ((await (await page.request.get(`/v1/projects/${projectId}`)).json()) as { data: { blockedAt: string | null; suspendedAt: string | null } }).data;
  await backdatePurchases(projectId);
  await runJobNow('billing.monthly-close');
  await expect.poll(async () => (await project()).blockedAt, { timeout: 30_000 }).not.toBeNull();
  await page.goto(`/projects/${projectId}/billing`);
  await expect(page.getByRole('alert').filter({ hasText: 'This project is blocked' })).toContainText('is suspended and its servers are powered off');
  await screenshot(page, 'billing-blocked');

  await backdateFailures(projectId, 8);
  await runJobNow('billing.dunning');
  await expect.poll(async () => (await project()).suspendedAt, { timeout: 30_000 }).not.toBeNull();
  await waitForServerStatus(page, projectId, 'shop-1', 'OFF');

  await page.goto(`/projects/${projectId}/servers`);
  await expect(page.getByRole('alert').filter({ hasText: 'This project is suspended' })).toContainText('powered off');
  const row = page.getByRole('table', { name: 'Servers' }).getByRole('row', { name: /shop-1/ });
  await expect(row).toContainText('Off');
  await expect(row).toContainText('Suspended');
  await screenshot(page, 'servers-suspended');
  await row.getByRole('link', { name: 'shop-1' }).click();
  await expect(page.getByRole('button', { name: 'Power on' })).toBeDisabled();

  await page.goto(`/projects/${projectId}/billing`);
  const banner = page.getByRole('alert').filter({ hasText: 'This project is suspended' });
  await expect(banner).toContainText('Pay now charges Visa •••• 0341');
  await screenshot(page, 'billing-suspended');
  await banner.getByRole('button', { name: 'Pay now' }).click();
  await expect(banner.getByRole('alert')).toContainText('could not be paid');

  await fillCard(page.getByRole('form', { name: 'Add a card' }), '4242 4242 4242 4242');
  const cards = page.getByRole('region', { name: 'Payment methods' });
  await cards.getByRole('button', { name: 'Make Visa •••• 4242 the default' }).click();
  await expect(cards.getByRole('row', { name: /Visa •••• 4242/ })).toContainText('Default');
  await expect(banner).toContainText('Pay now charges Visa •••• 4242');
  await banner.getByRole('button', { name: 'Pay now' }).click();
  await expect(page.getByText(/Invoice for .* paid/)).toBeVisible();
  await expect(banner).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Invoices' }).getByRole('row').nth(1)).toContainText('Paid');

  await waitForServerStatus(page, projectId, 'shop-1', 'RUNNING');
  await page.goto(`/projects/${projectId}/servers`);
  await expect(page.getByRole('table', { name: 'Servers' }).getByRole('row', { name: /shop-1/ })).toContainText('Running');
  await expect(page.getByText('This project is suspended')).toHaveCount(0);
  await expect(page.getByText('Suspended')).toHaveCount(0);

  await page.goto('/account');
  const history = page.getByRole('region', { name: 'Billing history' });
  await expect(history.getByRole('row', { name: /Dunning/ })).toContainText('$6.00');
  await screenshot(page, 'account-billing-history');
});
