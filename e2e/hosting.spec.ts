import { mkdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { createConnection, type RowDataPacket } from 'mysql2/promise';
import { Client } from 'ssh2';
import type { Site } from '../server/domains/hosting/schema';
import { createProject, expect, newAccount, test, verifyEmailViaMailbox } from './fixtures';
import { addTestCard } from './serverFixtures';

const SCREENSHOT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '.output', 'screenshots', 'hosting');

/** Amounts as the panel prints them: "$1.23" → 123 minor units. */
function minorUnits(text: string): number {
  const match = /\$([\d,]+)\.(\d{2})/.exec(text);
  if (!match) throw new Error(`no dollar amount in ${JSON.stringify(text)}`);
  return Number(match[1]!.replace(/,/g, '')) * 100 + Number(match[2]);
}

/** Which web and MySQL providers the app runs, as /healthz reports them: the journey passes with either. */
async function hostingProviderKinds(page: Page): Promise<{ web: string; databases: string }> {
  const res = await page.request.get('/healthz');
  const health = (await res.json()) as { providers?: Record<string, { kind: string }> };
  const web = health.providers?.hostingWeb?.kind;
  const databases = health.providers?.hostingDatabases?.kind;
  if (!web || !databases) throw new Error(`no hosting providers in /healthz: ${JSON.stringify(health)}`);
  return { web, databases };
}

async function listSitesViaApi(page: Page, projectId: string): Promise<Site[]> {
  const res = await page.request.get(`/v1/projects/${projectId}/hosting/shared`);
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { data: Site[] }).data;
}

/** The page as it is, at desktop and phone width, for people to look at (e2e/.output/screenshots/hosting). */
async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // Toasts of earlier steps would cover the page; under an open dialog they cannot be clicked, nor do they show.
  if ((await page.locator('dialog[open]').count()) === 0) {
    // A toast may leave by itself meanwhile: its button is then gone, which is as good.
    for (const close of await page.locator('.toast-close').all()) await close.click({ timeout: 1000 }).catch(() => undefined);
  }
  for (const viewport of [
    { label: 'desktop', width: 1280, height: 800 },
    { label: 'phone', width: 390, height: 844 },
  ]) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    // Open dialogs are captured as the viewport shows them: a full-page capture would scroll under the backdrop.
    if (fullPage) await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${viewport.label}.png`), fullPage });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** What nginx answers for the site's own address, asked on loopback with the site's Host header. */
function fetchSite(url: string): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: Number(target.port || 80), path: '/', headers: { host: target.host }, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url}`)));
    req.on('error', reject);
    req.end();
  });
}

/** A file read over SFTP as the site's user, the way a customer's client would. */
function readOverSftp(options: { host: string; port: number; username: string; password: string }, file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    client.on('error', reject);
    client.on('ready', () => {
      client.sftp((err, sftp) => {
        if (err) {
          client.end();
          reject(err);
          return;
        }
        sftp.readFile(file, (readErr, data) => {
          client.end();
          if (readErr) reject(readErr);
          else resolve(data.toString('utf8'));
        });
      });
    });
    client.connect({ ...options, readyTimeout: 15_000, hostVerifier: () => true });
  });
}

test('create a site with a database in the panel, upload and edit index.php, attach a redirect domain, add a database, and delete the site', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const owner = newAccount('hosting', 'Rasmus Lerdorf');
  await page.goto('/signup');
  await page.getByLabel('Full name').fill(owner.name);
  await page.getByLabel('Work email').fill(owner.email);
  await page.getByLabel('Password').fill(owner.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/projects$/);
  await verifyEmailViaMailbox(page.request, owner.email);
  const projectId = await createProject(page, `Hosting ${Date.now().toString(36)}`);
  await addTestCard(page, projectId);
  const providers = await hostingProviderKinds(page);
  // Site names are global and letters and digits only here, so the site's address is a plain hostname.
  const siteName = `e2e${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

  // The list: empty, with the call to action and, without nginx and php-fpm, the simulator notice.
  await page.goto(`/projects/${projectId}/hosting`);
  await expect(page.getByRole('heading', { level: 1, name: 'Hosting' })).toBeVisible();
  await expect(page.getByText('No sites yet')).toBeVisible();
  const simulated = page.getByText('Sites on this installation are not served');
  if (providers.web === 'simulator') await expect(simulated).toBeVisible();
  else await expect(simulated).toHaveCount(0);
  await screenshot(page, 'list-empty');
  await page.getByRole('link', { name: 'Create site' }).first().click();
  await expect(page).toHaveURL(/\/hosting\/new$/);

  // The wizard checks the name, the storage blocks and the database name as they are typed.
  const name = page.getByLabel('Site name');
  await name.fill('Acme-1');
  await expect(page.getByText('lower-case letter followed by lower-case letters, digits or underscores')).toBeVisible();
  await name.fill(siteName);
  await expect(page.getByText('lower-case letter followed by lower-case letters, digits or underscores')).toHaveCount(0);

  const tiers = page.getByRole('radiogroup', { name: 'Tier' });
  const growth = tiers.locator('label').filter({ hasText: 'Growth' });
  await expect(growth).toContainText('$15.00/month');
  await expect(growth).toContainText('25 GB disk');
  await expect(growth).toContainText('10 domains · 10 databases');
  await expect(tiers.getByRole('radio', { name: /Starter/ })).toBeChecked();
  await page
    .getByRole('radiogroup', { name: 'PHP version' })
    .getByRole('radio', { name: /PHP 8\.2/ })
    .check();

  const storage = page.getByLabel('Extra storage (GB)');
  await storage.fill('15');
  await expect(page.getByText('extraStorageGb comes in blocks of 10 GB')).toBeVisible();
  await storage.fill('10');
  await expect(page.getByText('extraStorageGb comes in blocks of 10 GB')).toHaveCount(0);
  await expect(page.getByText('The site gets 20 GB in all.')).toBeVisible();

  const database = page.getByLabel('Database name');
  await database.fill('Blog');
  await expect(page.getByText('Database names are lower-case letters and digits, starting with a letter')).toBeVisible();
  await database.fill('blog');
  await expect(page.getByText(`${siteName}_blog`)).toBeVisible();

  const summary = page.getByRole('complementary', { name: 'Summary' });
  await expect(summary).toContainText(siteName);
  await expect(summary).toContainText('20 GB');
  const preview = page.getByRole('region', { name: 'Price preview' });
  // Starter at $5.00 and one block of storage at $2.00.
  await expect(preview).toContainText('$7.00/month');
  const dueToday = minorUnits((await preview.getByTestId('preview-due-today').textContent()) ?? '');
  expect(dueToday).toBeGreaterThan(0);
  expect(dueToday).toBeLessThanOrEqual(700);
  await screenshot(page, 'wizard');
  await page.getByRole('button', { name: /^Create and pay \$/ }).click();

  // The site's page: the database came with it, and the site starts serving.
  await expect(page).toHaveURL(/\/hosting\/hst_[^/?]+$/);
  const siteUrl = page.url();
  await expect(page.getByRole('heading', { level: 1, name: siteName })).toBeVisible();
  await expect(page.getByText(`Site ${siteName} was created with the database ${siteName}_blog`)).toBeVisible();
  await expect(page.getByText('The site was created, but its database was not')).toHaveCount(0);
  await expect(page.getByTestId('site-ready')).toContainText('Ready', { timeout: 30_000 });
  const address = (await page.getByTestId('site-url').textContent()) ?? '';
  expect(address).toMatch(new RegExp(`^http://${siteName}\\.`));
  const limits = page.getByRole('region', { name: 'Limits' });
  await expect(limits).toContainText('20 GB');
  await expect(limits).toContainText('256 MB');
  await screenshot(page, 'overview');

  // A tier change is previewed before anything is charged; this one is cancelled.
  await page
    .getByRole('radiogroup', { name: 'Tier' })
    .getByRole('radio', { name: /Growth/ })
    .check();
  await expect(page.getByRole('region', { name: 'Price preview' })).toContainText('Upgrade to Growth');
  await expect(page.getByRole('button', { name: /^Upgrade and pay \$/ })).toBeVisible();
  await screenshot(page, 'tier-change');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('region', { name: 'Price preview' })).toHaveCount(0);

  // Files: into public_html, upload index.php with its progress, open it, change it, save it.
  await page.getByRole('tab', { name: 'Files' }).click();
  await expect(page).toHaveURL(/\?tab=files$/);
  const files = page.getByRole('table', { name: 'Files in the home folder' });
  await files.getByRole('button', { name: 'public_html', exact: true }).click();
  await expect(page).toHaveURL(/path=public_html/);
  await expect(page.getByRole('navigation', { name: 'Folder' })).toContainText('public_html');
  const folder = page.getByRole('table', { name: 'Files in public_html' });
  await expect(folder.getByRole('button', { name: 'index.php', exact: true })).toBeVisible();
  await page.getByLabel('Upload files').setInputFiles({
    name: 'index.php',
    mimeType: 'application/x-php',
    buffer: Buffer.from('<?php\necho "hello from " . "e2e";\n'),
  });
  const upload = page.getByTestId('upload').filter({ hasText: 'public_html/index.php' });
  await expect(upload).toContainText('Uploaded');
  await expect(upload.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
  await expect(folder.getByRole('row').filter({ hasText: 'index.php' })).toContainText('34 B');
  await screenshot(page, 'files');

  await folder.getByRole('button', { name: 'index.php', exact: true }).click();
  await expect(page).toHaveURL(/file=public_html%2Findex\.php/);
  const editor = page.getByLabel('Contents of public_html/index.php');
  await expect(editor).toHaveValue('<?php\necho "hello from " . "e2e";\n');
  const edited = '<?php\necho "edited " . "in the panel";\n';
  await editor.fill(edited);
  await expect(page.getByText('unsaved changes')).toBeVisible();
  await screenshot(page, 'editor');
  await page.getByRole('region', { name: 'Editor' }).getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('index.php was saved')).toBeVisible();
  await expect(page.getByText('unsaved changes')).toHaveCount(0);
  await page.getByRole('button', { name: 'Close' }).click();
  await expect(folder.getByRole('row').filter({ hasText: 'index.php' })).toContainText('39 B');
  // Opened again, the file is read afresh from disk.
  await folder.getByRole('button', { name: 'index.php', exact: true }).click();
  await expect(editor).toHaveValue(edited);
  await page.getByRole('button', { name: 'Close' }).click();
  const downloadHref = await folder.getByRole('link', { name: 'Download index.php' }).getAttribute('href');
  const downloaded = await page.request.get(downloadHref ?? '');
  expect(downloaded.status()).toBe(200);
  expect(await downloaded.text()).toBe(edited);
  if (providers.web !== 'simulator') {
    // nginx and the site's php-fpm pool run the edited script.
    await expect.poll(async () => (await fetchSite(address)).body, { timeout: 15_000 }).toBe('edited in the panel');
  }

  // Domains: a redirect, whose DNS records are shown to copy.
  await page.getByRole('tab', { name: 'Domains' }).click();
  await expect(page).toHaveURL(/\?tab=domains$/);
  await expect(page.getByText('No domains attached')).toBeVisible();
  await page.getByRole('button', { name: 'Attach domain' }).click();
  const attach = page.getByRole('dialog', { name: 'Attach a domain' });
  const hostname = `old-${siteName}.example.com`;
  await attach.getByLabel('Hostname').fill(hostname);
  await expect(attach.getByRole('textbox', { name: /^Folder/ })).toBeVisible();
  await attach.getByRole('radio', { name: /Redirect/ }).check();
  await expect(attach.getByRole('textbox', { name: /^Folder/ })).toHaveCount(0);
  await attach.getByRole('button', { name: 'Attach domain' }).click();
  await expect(attach.getByText('Enter the address to redirect to')).toBeVisible();
  await attach.getByLabel('Redirect to').fill('https://www.example.org/new');
  await attach.getByRole('radio', { name: /302 Temporary/ }).check();
  await screenshot(page, 'domain-attach-dialog', { fullPage: false });
  await attach.getByRole('button', { name: 'Attach domain' }).click();
  await expect(attach).toHaveCount(0);
  const records = page.getByRole('region', { name: `DNS records for ${hostname}` });
  await expect(records.getByTestId('dns-record-type')).toHaveText('CNAME');
  await expect(records.getByTestId('dns-record-name')).toHaveText(hostname);
  await expect(records.getByTestId('dns-record-value')).toHaveText(new URL(address).hostname);
  await expect(records.getByTestId('dns-txt-type')).toHaveText('TXT');
  await expect(records.getByTestId('dns-txt-name')).toHaveText(`_panel-site-verify.${hostname}`);
  await expect(records.getByTestId('dns-txt-value')).toHaveText(/^[0-9a-f]{32}$/);
  const row = page.getByRole('table', { name: 'Domains' }).getByRole('row').filter({ hasText: hostname });
  await expect(row).toContainText('Redirect');
  await expect(row).toContainText('302 → https://www.example.org/new');
  await expect(row).toContainText('Verifying DNS');
  await screenshot(page, 'domains');
  // Editing replaces the whole behaviour: the redirect becomes a parked page.
  await page.getByRole('button', { name: `Edit ${hostname}` }).click();
  const edit = page.getByRole('dialog', { name: `Edit ${hostname}` });
  await expect(edit.getByRole('radio', { name: /Redirect/ })).toBeChecked();
  await expect(edit.getByLabel('Redirect to')).toHaveValue('https://www.example.org/new');
  await edit.getByRole('radio', { name: /Parked/ }).check();
  await edit.getByRole('button', { name: 'Save' }).click();
  await expect(edit).toHaveCount(0);
  await expect(row).toContainText('Parked');
  await expect(row).not.toContainText('https://www.example.org/new');
  // Dismissed, the records come back from the row while the domain is verifying.
  await records.getByRole('button', { name: 'Done' }).click();
  await expect(records).toHaveCount(0);
  await row.getByRole('button', { name: 'DNS records' }).click();
  await expect(records.getByTestId('dns-record-name')).toHaveText(hostname);

  // Databases: the one made with the site, and a new one whose password is revealed.
  await page.getByRole('tab', { name: 'Databases' }).click();
  await expect(page.getByRole('region', { name: 'Database blog' })).toBeVisible();
  await page.getByLabel('Database name').fill('shop');
  await expect(page.getByText(`Created as ${siteName}_shop`)).toBeVisible();
  await page.getByRole('button', { name: 'Create database' }).click();
  await expect(page.getByText(`Database ${siteName}_shop was created`)).toBeVisible();
  const shop = page.getByRole('region', { name: 'Database shop' });
  await expect(shop.getByTestId('db-name-shop')).toHaveText(`${siteName}_shop`);
  await expect(shop.getByTestId('db-password-shop')).toHaveText('•'.repeat(16));
  await shop.getByRole('button', { name: 'Reveal password' }).click();
  await expect(shop.getByTestId('db-password-shop')).not.toHaveText('•'.repeat(16));
  const dbPassword = (await shop.getByTestId('db-password-shop').textContent()) ?? '';
  expect(dbPassword.length).toBeGreaterThanOrEqual(16);
  if (providers.databases === 'mysql') {
    const connection = await createConnection({
      host: (await shop.getByTestId('db-host-shop').textContent()) ?? '',
      port: Number(await shop.getByTestId('db-port-shop').textContent()),
      user: (await shop.getByTestId('db-user-shop').textContent()) ?? '',
      password: dbPassword,
      database: `${siteName}_shop`,
    });
    try {
      const [rows] = await connection.query<RowDataPacket[]>('SELECT DATABASE() AS name');
      expect(rows[0]?.name).toBe(`${siteName}_shop`);
    } finally {
      await connection.end();
    }
  }
  await screenshot(page, 'databases');

  // SFTP: the details and the command to copy, and a login that reads the edited file.
  await page.getByRole('tab', { name: 'SFTP' }).click();
  const sftpPort = Number(await page.getByTestId('sftp-port').textContent());
  const sftpHost = (await page.getByTestId('sftp-host').textContent()) ?? '';
  await expect(page.getByTestId('sftp-username')).toHaveText(siteName);
  await expect(page.getByTestId('sftp-command')).toHaveText(`sftp -P ${sftpPort} ${siteName}@${sftpHost}`);
  expect(sftpPort).not.toBe(22);
  await page.getByRole('button', { name: 'Reveal password' }).click();
  await expect(page.getByTestId('sftp-password')).not.toHaveText('•'.repeat(16));
  const sftpPassword = (await page.getByTestId('sftp-password').textContent()) ?? '';
  expect(await readOverSftp({ host: sftpHost, port: sftpPort, username: siteName, password: sftpPassword }, 'public_html/index.php')).toBe(edited);
  await screenshot(page, 'sftp');

  // The list shows the site, ready.
  await page.goto(`/projects/${projectId}/hosting`);
  const listed = page.getByRole('table', { name: 'Hosting sites' }).getByRole('row').filter({ hasText: siteName });
  await expect(listed).toContainText('Ready');
  await expect(listed).toContainText('Starter');
  await expect(listed).toContainText('PHP 8.2');
  await screenshot(page, 'list');

  // Delete, typing the name.
  await page.goto(siteUrl);
  await page.getByRole('button', { name: 'Delete site' }).click();
  const confirm = page.getByRole('alertdialog', { name: `Delete ${siteName}?` });
  await expect(confirm.getByRole('button', { name: 'Delete this site' })).toBeDisabled();
  await confirm.getByLabel(/to confirm/).fill(siteName);
  await screenshot(page, 'delete-dialog', { fullPage: false });
  await confirm.getByRole('button', { name: 'Delete this site' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/hosting$`));
  await expect(page.getByText(`Site ${siteName} was deleted`)).toBeVisible();
  await expect(page.getByText('No sites yet')).toBeVisible();
  expect(await listSitesViaApi(page, projectId)).toEqual([]);
});
