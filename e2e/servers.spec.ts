import { readFile } from 'node:fs/promises';
import { createProject, expect, signIn, test } from './fixtures';
import { addTestCard, newEd25519PublicKey } from './serverFixtures';
import type { ResourceHistoryEntry } from '../server/domains/projects/schema';

/** Amounts as the panel prints them: "$1.23" → 123 minor units. */
function minorUnits(text: string): number {
  const match = /\$([\d,]+)\.(\d{2})/.exec(text);
  if (!match) throw new Error(`no dollar amount in ${JSON.stringify(text)}`);
  return Number(match[1]!.replace(/,/g, '')) * 100 + Number(match[2]);
}

test('add an SSH key, create a server, watch it boot, see its charge, power it off and delete it', async ({ page, account }) => {
  test.setTimeout(150_000);
  await signIn(page, account);
  const projectId = await createProject(page, `Servers ${Date.now().toString(36)}`);
  await addTestCard(page, projectId);

  await page.goto(`/projects/${projectId}/ssh-keys`);
  await expect(page.getByText('No SSH keys yet')).toBeVisible();
  const addForm = page.getByRole('form', { name: 'Add an SSH key' });
  await addForm.getByLabel('Name').fill('Laptop');
  await addForm.getByLabel('Public key').fill('ssh-dss AAAAB3NzaC1kc3MAAACBAP8= old@host');
  await addForm.getByRole('button', { name: 'Add SSH key' }).click();
  await expect(addForm.getByText(/DSA keys \(ssh-dss\) are no longer accepted/)).toBeVisible();
  await expect(addForm.getByRole('link', { name: 'Learn about SSH keys' })).toHaveAttribute('href', /\/docs\/ssh-keys$/);

  const key = newEd25519PublicKey('ada@laptop');
  await addForm.getByLabel('Public key').fill(key.line);
  await expect(addForm.getByTestId('key-fingerprint-preview')).toHaveText(key.fingerprint);
  await addForm.getByRole('button', { name: 'Add SSH key' }).click();
  const keyTable = page.getByRole('table', { name: 'SSH keys' });
  await expect(keyTable.getByRole('row', { name: /Laptop/ })).toContainText(key.fingerprint);
  await expect(keyTable.getByRole('row', { name: /Laptop/ })).toContainText('ssh-ed25519');

  await page.goto(`/projects/${projectId}/servers`);
  await expect(page.getByText('No servers yet')).toBeVisible();
  await page.getByRole('link', { name: 'Create server' }).first().click();
  await expect(page).toHaveURL(/\/servers\/new$/);

  await page.getByRole('radio', { name: /Amsterdam 3/ }).check();
  await expect(page.getByRole('radio', { name: /s-1vcpu-512mb-10gb/ })).toBeDisabled();
  await expect(page.getByText('Too small: LAMP needs 25 GB of disk')).toBeVisible();
  await page.getByRole('radio', { name: /s-1vcpu-1gb/ }).check();
  await expect(page.getByText('Type LAMP')).toBeVisible();
  await expect(page.getByText('A server created without SSH keys cannot be reached.')).toBeVisible();
  await page.getByRole('checkbox', { name: /Laptop/ }).check();
  await expect(page.getByText('A server created without SSH keys cannot be reached.')).toHaveCount(0);
  await page.getByLabel('Server name').fill('web-e2e');

  const preview = page.getByRole('region', { name: 'Price preview' });
  await expect(preview.getByTestId('preview-due-today')).toContainText('$');
  const dueToday = minorUnits((await preview.getByTestId('preview-due-today').textContent()) ?? '');
  expect(dueToday).toBeGreaterThan(0);
  await expect(preview).toContainText('$6.00/month');
  const createButton = page.getByRole('button', { name: /^Create and pay \$/ });
  expect(minorUnits((await createButton.textContent()) ?? '')).toBe(dueToday);
  await createButton.click();

  await expect(page).toHaveURL(/\/servers\?created=web-e2e$/);
  await expect(page.getByText('Server web-e2e is being created')).toBeVisible();
  const row = page.getByRole('table', { name: 'Servers' }).getByRole('row', { name: /web-e2e/ });
  await expect(row).toContainText(/Provisioning|Running/);
  await expect(row).toContainText('Running', { timeout: 30_000 });
  await expect(row).toContainText('Amsterdam 3');
  await expect(row.locator('code')).toHaveText(/^\d+\.\d+\.\d+\.\d+$/);

  await row.getByRole('link', { name: 'web-e2e' }).click();
  const heading = page.getByRole('heading', { level: 1 });
  await expect(heading).toContainText('web-e2e');
  await expect(heading).toContainText('Running');
  const ip = ((await page.getByTestId('server-ip').textContent()) ?? '').trim();
  expect(ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  await expect(page.getByTestId('ssh-command')).toHaveText(`ssh root@${ip}`);
  await page.getByRole('button', { name: 'Copy SSH command' }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`ssh root@${ip}`);
  await expect(page.getByRole('list', { name: 'SSH keys of the server' })).toContainText(key.fingerprint);

  const stats = await page.request.get(`/v1/projects/${projectId}/stats`);
  expect(stats.ok(), await stats.text()).toBe(true);
  const history = ((await stats.json()) as { data: { resourceHistory: ResourceHistoryEntry[] } }).data.resourceHistory;
  const thisMonth = history.find((entry) => entry.inProgress);
  expect(thisMonth?.servers ?? 0).toBeGreaterThan(0);

  // The same charge, as a customer sees it: the month in progress on the Billing page's history.
  const serverPage = page.url();
  await page.goto(`/projects/${projectId}/billing`);
  await expect(page.getByRole('listitem', { name: /so far: .*\(Servers \$\d/ })).toBeVisible();
  await page.goto(serverPage);
  await expect(heading).toContainText('Running');

  await expect(page.getByRole('button', { name: 'Power on' })).toBeDisabled();
  await page.getByRole('button', { name: 'Power off' }).click();
  await expect(heading).toContainText('Provisioning');
  for (const label of ['Power on', 'Power off', 'Shutdown', 'Reboot', 'Power cycle']) {
    await expect(page.getByRole('button', { name: label })).toBeDisabled();
  }
  await expect(heading).toContainText('Off', { timeout: 30_000 });
  await expect(page.getByRole('button', { name: 'Power on' })).toBeEnabled();
  await expect(page.getByRole('button', { name: 'Power off' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Power cycle' })).toBeEnabled();

  await page.getByRole('button', { name: 'Delete server' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete web-e2e?' });
  const confirmButton = confirm.getByRole('button', { name: 'Delete this server' });
  await expect(confirmButton).toBeDisabled();
  await confirm.getByLabel(/to confirm/).fill('web-e2');
  await expect(confirmButton).toBeDisabled();
  await confirm.getByLabel(/to confirm/).fill('web-e2e');
  await confirmButton.click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/servers$`));
  await expect(page.getByText('No servers yet')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Servers' })).toHaveCount(0);
});

test('an SSH key still trusted by a server says so when deleted; a generated key is shown once and downloads', async ({ page, account }) => {
  await signIn(page, account);
  const projectId = await createProject(page, `Keys ${Date.now().toString(36)}`);
  await addTestCard(page, projectId);

  await page.goto(`/projects/${projectId}/ssh-keys`);
  await page.getByRole('button', { name: 'Generate key pair' }).first().click();
  const generateDialog = page.getByRole('dialog', { name: 'Generate an SSH key pair' });
  await generateDialog.getByLabel('Name').fill('CI deploys');
  await generateDialog.getByRole('button', { name: 'Generate key pair' }).click();

  const secretDialog = page.getByRole('dialog', { name: /SSH key .CI deploys. generated/ });
  await expect(secretDialog.getByText('cannot be shown again')).toBeVisible();
  const privateKey = (await page.getByTestId('generated-private-key').textContent()) ?? '';
  expect(privateKey).toContain('-----BEGIN OPENSSH PRIVATE KEY-----');
  const downloading = page.waitForEvent('download');
  await secretDialog.getByRole('button', { name: /Download/ }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('ci-deploys_ed25519.key');
  expect((await readFile(await download.path())).toString('utf8').trim()).toBe(privateKey.trim());
  await secretDialog.getByRole('button', { name: 'I have saved it' }).click();
  await expect(page.getByTestId('generated-private-key')).toHaveCount(0);
  await expect(page.getByRole('table', { name: 'SSH keys' }).getByRole('row', { name: /CI deploys/ })).toContainText('SHA256:');

  await page.goto(`/projects/${projectId}/servers/new`);
  await page.getByRole('radio', { name: /Frankfurt 1/ }).check();
  await page.getByRole('radio', { name: /s-1vcpu-2gb/ }).check();
  await page.getByRole('checkbox', { name: /CI deploys/ }).check();
  await page.getByLabel('Server name').fill('ci-runner');
  await page.getByRole('button', { name: /^Create and pay \$/ }).click();
  await expect(page.getByRole('table', { name: 'Servers' }).getByRole('row', { name: /ci-runner/ })).toBeVisible();

  await page.goto(`/projects/${projectId}/ssh-keys`);
  await page.getByRole('button', { name: 'Delete CI deploys' }).click();
  await page
    .getByRole('alertdialog', { name: /Delete SSH key/ })
    .getByRole('button', { name: 'Delete key' })
    .click();
  const result = page.getByRole('dialog', { name: /SSH key .CI deploys. deleted/ });
  await expect(result.getByText('Still accepted by 1 server')).toBeVisible();
  await result.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByText('No SSH keys yet')).toBeVisible();
});

test('creating a server without a saved card asks for one on the Billing page', async ({ page, account }) => {
  await signIn(page, account);
  const projectId = await createProject(page, `No card ${Date.now().toString(36)}`);

  await page.goto(`/projects/${projectId}/servers/new`);
  await page.getByRole('radio', { name: /London 1/ }).check();
  await page.getByRole('radio', { name: /s-1vcpu-1gb/ }).check();
  await expect(page.getByText('A server created without SSH keys cannot be reached.')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Price preview' }).getByTestId('preview-due-today')).toBeVisible();
  await page.getByRole('button', { name: /^Create and pay \$/ }).click();

  const alert = page.getByRole('alert').filter({ hasText: 'A payment card is needed' });
  await expect(alert).toContainText('Add a payment card to this project before creating paid resources');
  await expect(alert.getByRole('link', { name: 'Add a card on the Billing page' })).toHaveAttribute('href', `/projects/${projectId}/billing`);
  await expect(page).toHaveURL(/\/servers\/new$/);

  await page.goto(`/projects/${projectId}/servers`);
  await expect(page.getByText('No servers yet')).toBeVisible();
});
