import type { Locator } from '@playwright/test';
import { createProject, expect, signIn, test } from './fixtures';

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
