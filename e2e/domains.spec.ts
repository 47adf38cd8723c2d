import { randomBytes } from 'node:crypto';
import type { Page } from '@playwright/test';
import { createAccountViaApi, createProject, expect, newAccount, signIn, test } from './fixtures';

/** A token the DNS simulator accepts: 40 characters of [A-Za-z0-9_-]; each new one opens an account with fresh demo zones. */
function simulatorToken(): string {
  return `e2e${randomBytes(30).toString('base64url')}`.slice(0, 40);
}

/** Which DNS provider the app runs, as /healthz reports it. */
async function dnsProviderKind(page: Page): Promise<string> {
  const res = await page.request.get('/healthz');
  const health = (await res.json()) as { providers?: Record<string, { kind: string }> };
  const kind = health.providers?.dns?.kind;
  if (!kind) throw new Error(`no dns provider in /healthz: ${JSON.stringify(health)}`);
  return kind;
}

async function addDomain(page: Page, projectId: string, name: string): Promise<void> {
  await page.goto(`/projects/${projectId}/domains`);
  await page.getByRole('button', { name: 'Add domain' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add a domain' });
  await dialog.getByLabel('Domain name').fill(name);
  await dialog.getByRole('button', { name: 'Add domain' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/domains/${name.replace(/\./g, '\\.')}`));
}

test('connect the DNS provider, verify domains through auto-DNS and in one click, and manage zone records', async ({ page, browser, request, account }) => {
  test.setTimeout(180_000);
  await signIn(page, account);
  const projectId = await createProject(page, `Domains ${Date.now().toString(36)}`);
  test.skip((await dnsProviderKind(page)) !== 'simulator', 'the journey connects the DNS simulator with a made-up token');

  // Connect: a refused token is said on the field, a good one lists the account's zones.
  await page.goto(`/projects/${projectId}/integrations`);
  const providerCard = page.getByRole('region', { name: 'DNS provider' });
  await expect(providerCard).toContainText('Not connected');
  await expect(page.getByText('The DNS provider on this installation is simulated')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Connect with OAuth' })).toHaveCount(0);
  const tokenField = providerCard.getByRole('textbox', { name: 'API token' });
  await expect(tokenField).toHaveAttribute('type', 'password');
  await tokenField.fill(`revoked${'x'.repeat(33)}`);
  await providerCard.getByRole('button', { name: 'Connect' }).click();
  await expect(providerCard.getByText('the DNS provider refused this token')).toBeVisible();
  await tokenField.fill(simulatorToken());
  await providerCard.getByRole('button', { name: 'Connect' }).click();
  await expect(providerCard).toContainText('Connected');
  await expect(providerCard).toContainText('API token');
  const zones = page.getByRole('table', { name: 'DNS zones' });
  await expect(zones).toContainText('example.com');
  await expect(zones).toContainText('example.net');

  const autoDns = providerCard.getByRole('switch', { name: 'Auto-DNS' });
  await expect(autoDns).not.toBeChecked();
  await autoDns.check();
  await expect(page.getByText('Auto-DNS is on')).toBeVisible();
  await expect(autoDns).toBeChecked();

  // Auto-DNS creates the TXT record as the domain is added; the check then finds it.
  await page.goto(`/projects/${projectId}/domains`);
  await expect(page.getByText('No domains yet')).toBeVisible();
  await page.getByRole('button', { name: 'Add domain' }).first().click();
  const addDialog = page.getByRole('dialog', { name: 'Add a domain' });
  await expect(addDialog).toContainText('Auto-DNS is on');
  await addDialog.getByLabel('Domain name').fill('co.uk');
  await addDialog.getByRole('button', { name: 'Add domain' }).click();
  await expect(addDialog.getByText('co.uk is a public suffix')).toBeVisible();
  await addDialog.getByLabel('Domain name').fill('shop.example.com');
  await addDialog.getByRole('button', { name: 'Add domain' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/domains/shop\\.example\\.com\\?auto-dns=created$`));
  const heading = page.getByRole('heading', { level: 1 });
  await expect(heading).toContainText('shop.example.com');
  await expect(heading).toContainText('Pending');
  await expect(page.getByText('Auto-DNS created the verification record in your DNS account')).toBeVisible();
  const verificationName = '_cloudpanel-verify.shop.example.com';
  await expect(page.getByTestId('verification-name')).toHaveText(verificationName);
  const shopRecords = page.getByRole('table', { name: 'DNS records of shop.example.com' });
  await expect(shopRecords.getByRole('row', { name: new RegExp(verificationName.replace(/\./g, '\\.')) })).toContainText('TXT');
  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.getByText('Verified: the record was found')).toBeVisible();
  await expect(heading).toContainText('Verified');
  await expect(page.getByRole('button', { name: 'Check now' })).toHaveCount(0);

  // Auto-DNS off: the record is created in one click from the domain page.
  await page.goto(`/projects/${projectId}/integrations`);
  await autoDns.uncheck();
  await expect(page.getByText('Auto-DNS is off')).toBeVisible();
  await page.goto(`/projects/${projectId}/domains`);
  await page.getByRole('button', { name: 'Add domain' }).first().click();
  await addDialog.getByLabel('Domain name').fill('shop.example.com');
  await addDialog.getByRole('button', { name: 'Add domain' }).click();
  await expect(addDialog.getByText('The domain shop.example.com has already been added to a project')).toBeVisible();
  await addDialog.getByRole('button', { name: 'Cancel' }).click();
  await addDomain(page, projectId, 'example.net');
  await expect(page.getByText('Auto-DNS created the verification record')).toHaveCount(0);
  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.getByText('The record was not found yet')).toBeVisible();
  await expect(page.getByTestId('check-reason')).toContainText('The name does not exist yet');
  await expect(page.getByTestId('check-reason')).toContainText('NXDOMAIN');
  await expect(page.getByLabel('Last check')).toContainText('_cloudpanel-verify.example.net');
  await page.getByRole('button', { name: 'Create this record' }).click();
  await expect(page.getByText('The TXT record was created in your DNS account')).toBeVisible();
  await expect(page.getByRole('table', { name: 'DNS records of example.net' })).toContainText('_cloudpanel-verify.example.net');
  await page.getByRole('button', { name: 'Check now' }).click();
  await expect(page.getByText('Verified: the record was found')).toBeVisible();
  await expect(heading).toContainText('Verified');

  await page.goto(`/projects/${projectId}/domains`);
  const domainsTable = page.getByRole('table', { name: 'Domains' });
  await expect(domainsTable.getByRole('row', { name: /shop\.example\.com/ })).toContainText('Verified');
  await expect(domainsTable.getByRole('row', { name: /example\.net/ })).toContainText('Verified');

  // Records of a zone: the form's rules, the provider's refusals, then create, edit and delete.
  await page.goto(`/projects/${projectId}/integrations`);
  await page.getByRole('button', { name: 'Show the records of example.com' }).click();
  const records = page.getByRole('table', { name: 'DNS records of example.com' });
  await expect(records.getByRole('row', { name: /www/ })).toContainText('CNAME');
  await expect(records).toContainText(verificationName.replace('.example.com', ''));
  await page.getByRole('button', { name: 'Add record' }).click();
  const recordDialog = page.getByRole('dialog', { name: 'Add a record' });
  await expect(recordDialog.getByLabel('Priority')).toHaveCount(0);
  await recordDialog.getByLabel('Type').selectOption('MX');
  await expect(recordDialog.getByLabel('Priority')).toBeVisible();
  await expect(recordDialog.getByLabel('Proxied through the provider')).toHaveCount(0);
  await recordDialog.getByLabel('Type').selectOption('SRV');
  await expect(recordDialog.getByText('priority weight port target')).toBeVisible();
  await recordDialog.getByLabel('Type').selectOption('A');
  await expect(recordDialog.getByLabel('Priority')).toHaveCount(0);
  await expect(recordDialog.getByLabel('Proxied through the provider')).toBeEnabled();
  await recordDialog.getByLabel('TTL', { exact: true }).selectOption('seconds');
  await expect(recordDialog.getByLabel('Proxied through the provider')).toBeDisabled();
  await recordDialog.getByLabel('TTL', { exact: true }).selectOption('automatic');
  await recordDialog.getByLabel('Name').fill('api');
  await recordDialog.getByLabel('Content').fill('192.0.2.999');
  await recordDialog.getByRole('button', { name: 'Add record' }).click();
  await expect(recordDialog.getByText('content of an A record must be an IPv4 address such as 192.0.2.1')).toBeVisible();
  await recordDialog.getByLabel('Content').fill('192.0.2.50');
  await recordDialog.getByRole('button', { name: 'Add record' }).click();
  await expect(page.getByText('The A record api.example.com was created')).toBeVisible();
  const apiRow = records.getByRole('row', { name: /192\.0\.2\./ });
  await expect(apiRow).toContainText('api');
  await expect(apiRow).toContainText('Auto');

  // The provider refuses a CNAME beside another record of the same name; its 422 lands on the Name field.
  await page.getByRole('button', { name: 'Add record' }).click();
  await recordDialog.getByLabel('Type').selectOption('CNAME');
  await recordDialog.getByLabel('Name').fill('api');
  await recordDialog.getByLabel('Content').fill('app.example.org');
  await recordDialog.getByRole('button', { name: 'Add record' }).click();
  await expect(recordDialog.getByText('a CNAME record cannot share its name with any other record')).toBeVisible();
  await recordDialog.getByRole('button', { name: 'Cancel' }).click();

  await page.getByRole('button', { name: 'Edit the A record api.example.com' }).click();
  const editDialog = page.getByRole('dialog', { name: 'Edit the A record' });
  await expect(editDialog.getByLabel('Name')).toHaveValue('api');
  await editDialog.getByLabel('Content').fill('192.0.2.51');
  await editDialog.getByLabel('TTL', { exact: true }).selectOption('seconds');
  await editDialog.getByLabel('TTL in seconds').fill('30');
  await editDialog.getByRole('button', { name: 'Save record' }).click();
  await expect(editDialog.getByText('ttl must be 1 (automatic) or 60 to 86400 seconds')).toBeVisible();
  await editDialog.getByLabel('TTL in seconds').fill('300');
  await editDialog.getByRole('button', { name: 'Save record' }).click();
  await expect(page.getByText('The A record api.example.com was saved')).toBeVisible();
  await expect(apiRow).toContainText('192.0.2.51');
  await expect(apiRow).toContainText('5 min');

  await page.getByRole('button', { name: 'Delete the A record api.example.com' }).click();
  const deleteDialog = page.getByRole('alertdialog', { name: 'Delete the A record api.example.com?' });
  await deleteDialog.getByRole('button', { name: 'Delete record' }).click();
  await expect(page.getByText('The A record api.example.com was deleted')).toBeVisible();
  await expect(records.getByRole('row', { name: /192\.0\.2\.51/ })).toHaveCount(0);

  // A viewer reads everything and is offered no change.
  const viewer = newAccount('domains-viewer', 'Viewer Person');
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
  await viewerPage.goto(`/projects/${projectId}/domains`);
  await expect(viewerPage.getByRole('table', { name: 'Domains' }).getByRole('row', { name: /shop\.example\.com/ })).toBeVisible();
  await expect(viewerPage.getByRole('button', { name: 'Add domain' })).toHaveCount(0);
  await viewerPage.goto(`/projects/${projectId}/domains/example.net`);
  await expect(viewerPage.getByRole('heading', { level: 1 })).toContainText('example.net');
  await expect(viewerPage.getByTestId('verification-value')).toHaveText(/^cloudpanel-verify=/);
  await expect(viewerPage.getByRole('button', { name: 'Remove domain' })).toHaveCount(0);
  await expect(viewerPage.getByRole('button', { name: 'Check now' })).toHaveCount(0);
  await viewerPage.goto(`/projects/${projectId}/integrations`);
  const viewerProvider = viewerPage.getByRole('region', { name: 'DNS provider' });
  await expect(viewerProvider).toContainText('Connected');
  await expect(viewerProvider.getByRole('switch', { name: 'Auto-DNS' })).toBeDisabled();
  await expect(viewerPage.getByRole('button', { name: 'Disconnect' })).toHaveCount(0);
  await viewerPage.getByRole('button', { name: 'Show the records of example.com' }).click();
  await expect(viewerPage.getByRole('table', { name: 'DNS records of example.com' }).getByRole('row', { name: /www/ })).toBeVisible();
  await expect(viewerPage.getByRole('button', { name: 'Add record' })).toHaveCount(0);
  await expect(viewerPage.getByRole('button', { name: /^Edit the / })).toHaveCount(0);
  await expect(viewerPage.getByRole('button', { name: /^Delete the / })).toHaveCount(0);
  await viewerContext.close();

  // Removing a domain asks for its name; disconnecting keeps the records in the account.
  await page.goto(`/projects/${projectId}/domains/example.net`);
  await page.getByRole('button', { name: 'Remove domain' }).click();
  const removeDialog = page.getByRole('alertdialog', { name: 'Remove example.net?' });
  const removeButton = removeDialog.getByRole('button', { name: 'Remove this domain' });
  await expect(removeButton).toBeDisabled();
  await removeDialog.getByLabel(/to confirm/).fill('example.net');
  await removeButton.click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/domains$`));
  await expect(page.getByText('example.net was removed')).toBeVisible();
  await expect(domainsTable.getByRole('row', { name: /example\.net/ })).toHaveCount(0);

  await page.goto(`/projects/${projectId}/integrations`);
  await page.getByRole('button', { name: 'Disconnect' }).click();
  const disconnectDialog = page.getByRole('alertdialog', { name: 'Disconnect the DNS provider?' });
  await expect(disconnectDialog).toContainText('Every record in your DNS account stays as it is');
  await disconnectDialog.getByRole('button', { name: 'Disconnect' }).click();
  await expect(page.getByText('The DNS provider was disconnected')).toBeVisible();
  await expect(providerCard).toContainText('Not connected');
  await expect(page.getByRole('table', { name: 'DNS zones' })).toHaveCount(0);
});

test('the Integrations page says how an OAuth round trip ended', async ({ page, account }) => {
  await signIn(page, account);
  const projectId = await createProject(page, `OAuth ${Date.now().toString(36)}`);
  await page.goto(`/projects/${projectId}/integrations?dns-provider=denied`);
  await expect(page.getByText('The DNS provider was not connected')).toBeVisible();
  await page.getByRole('button', { name: 'Dismiss' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/integrations$`));
  await expect(page.getByText('The DNS provider was not connected')).toHaveCount(0);
  await page.goto(`/projects/${projectId}/integrations?dns-provider=connected`);
  await expect(page.getByText('Your DNS provider is connected')).toBeVisible();
});
