import { Webhook } from 'standardwebhooks';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../test/fakes/webhookReceiver';
import { createProject, expect, signIn, test } from './fixtures';

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
test.afterAll(async () => {
  await receiver.close();
});

const headersOf = (r: ReceivedWebhook) => ({ 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature });

test('add an endpoint, see its secret once, send a test event and see it delivered, pause and resume, rotate the secret, delete it', async ({
  page,
  account,
}) => {
  test.setTimeout(120_000);
  await signIn(page, account);
  const projectId = await createProject(page, `Webhooks ${Date.now().toString(36)}`);

  await page.getByRole('link', { name: 'Webhooks' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/webhooks$`));
  await expect(page.getByText('No webhook endpoints yet')).toBeVisible();

  await page.getByRole('button', { name: 'Add endpoint' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add a webhook endpoint' });
  await dialog.getByRole('textbox', { name: 'URL' }).fill('http://169.254.169.254/latest/meta-data');
  await dialog.getByRole('checkbox', { name: /project\.renamed/ }).check();
  await dialog.getByRole('button', { name: 'Add endpoint' }).click();
  await expect(dialog.getByText(/cloud metadata address/)).toBeVisible();

  await dialog.getByRole('textbox', { name: 'URL' }).fill(receiver.url);
  await dialog.getByRole('textbox', { name: /Description/ }).fill('Order sync');
  await dialog.getByRole('button', { name: 'Add endpoint' }).click();
  const secretDialog = page.getByRole('dialog', { name: 'Endpoint added' });
  const secret = (await secretDialog.getByTestId('webhook-secret').textContent()) ?? '';
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  await secretDialog.getByRole('button', { name: 'I have copied it' }).click();
  await expect(secretDialog).toBeHidden();

  const table = page.getByRole('table', { name: 'Webhook endpoints' });
  await expect(table.getByRole('row', { name: /Order sync/ })).toContainText('Active');
  await expect(page.getByText(secret)).toHaveCount(0);
  await table.getByRole('link', { name: receiver.url }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText(receiver.url);
  await expect(page.getByText(secret)).toHaveCount(0);

  await page.getByRole('button', { name: 'Send test event' }).click();
  const deliveries = page.getByRole('table', { name: 'Deliveries' });
  const testRow = deliveries.getByRole('row', { name: /webhook\.test/ });
  await expect(testRow).toContainText('Delivered');
  await expect(testRow).toContainText('204');
  const first = receiver.received.at(-1)!;
  expect(new Webhook(secret).verify(first.body, headersOf(first))).toMatchObject({ type: 'webhook.test', data: { projectId } });

  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByText('Deliveries are paused')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send test event' })).toBeDisabled();
  await page.getByRole('button', { name: 'Resume' }).click();
  await expect(page.getByText('Deliveries are paused')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Pause' })).toBeVisible();

  await page.getByRole('button', { name: 'Rotate secret' }).click();
  await page.getByRole('alertdialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
  const rotatedDialog = page.getByRole('dialog', { name: 'New signing secret' });
  const rotated = (await rotatedDialog.getByTestId('webhook-secret').textContent()) ?? '';
  expect(rotated).toMatch(/^whsec_/);
  expect(rotated).not.toBe(secret);
  await rotatedDialog.getByRole('button', { name: 'I have copied it' }).click();
  await expect(page.getByText(/The previous secret also signs until/)).toBeVisible();

  const before = receiver.received.length;
  await page.getByRole('button', { name: 'Send test event' }).click();
  await expect(deliveries.getByRole('row', { name: /webhook\.test/ })).toHaveCount(2);
  await expect(deliveries.getByRole('row', { name: /webhook\.test/ }).first()).toContainText('Delivered');
  await expect.poll(() => receiver.received.length).toBe(before + 1);
  const second = receiver.received.at(-1)!;
  expect(new Webhook(rotated).verify(second.body, headersOf(second))).toMatchObject({ type: 'webhook.test' });
  expect(new Webhook(secret).verify(second.body, headersOf(second))).toMatchObject({ type: 'webhook.test' });

  await deliveries.getByRole('button', { name: `Redeliver ${first.id}` }).click();
  await expect.poll(() => receiver.countsById().get(first.id)).toBe(2);

  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('alertdialog', { name: 'Delete this endpoint?' }).getByRole('button', { name: 'Delete endpoint' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/webhooks$`));
  await expect(page.getByText('No webhook endpoints yet')).toBeVisible();
});
