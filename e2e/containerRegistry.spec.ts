import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { formatBytes } from '../components/format';
import type { Registry } from '../server/domains/containerRegistry/schema';
import { simulatedScanner } from '../server/domains/containerRegistry/scanner';
import { pullImage, pushImage } from '../test/registryPush';
import { createProject, expect, newAccount, test, verifyEmailViaMailbox } from './fixtures';
import { addTestCard, apiWrite } from './serverFixtures';

const SCREENSHOT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '.output', 'screenshots', 'container-registry');
const SEVERITY_LABELS: Record<string, string> = { CRITICAL: 'Critical', HIGH: 'High', MEDIUM: 'Medium', LOW: 'Low', INFORMATIONAL: 'Info' };

/** Amounts as the panel prints them: "$1.23" → 123 minor units. */
function minorUnits(text: string): number {
  const match = /\$([\d,]+)\.(\d{2})/.exec(text);
  if (!match) throw new Error(`no dollar amount in ${JSON.stringify(text)}`);
  return Number(match[1]!.replace(/,/g, '')) * 100 + Number(match[2]);
}

/** Which registry provider the app runs, as /healthz reports it: the journey passes with either. */
async function registryProviderKind(page: Page): Promise<string> {
  const res = await page.request.get('/healthz');
  const health = (await res.json()) as { providers?: Record<string, { kind: string }> };
  const kind = health.providers?.registry?.kind;
  if (!kind) throw new Error(`no registry provider in /healthz: ${JSON.stringify(health)}`);
  return kind;
}

/** The page as it is, at desktop and phone width, for people to look at (e2e/.output/screenshots/container-registry). */
async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
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

/**
 * What `docker login` and `docker push` do first: ask the registry, which answers 401 with a
 * Bearer challenge naming the token realm and service, then ask the realm for a token with the API
 * key as the Basic password (any username).
 */
async function registryToken(endpoint: string, apiKey: string, repository: string): Promise<string> {
  const challenge = await fetch(`http://${endpoint}/v2/`);
  expect(challenge.status).toBe(401);
  const header = challenge.headers.get('www-authenticate') ?? '';
  expect(header).toMatch(/^Bearer /);
  const params = Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key!, value!]));
  expect(new URL(params.realm!).pathname).toBe('/v1/registry/token');
  const url = new URL(params.realm!);
  url.searchParams.set('service', params.service!);
  url.searchParams.set('scope', `repository:${repository}:pull,push`);
  const res = await fetch(url, { headers: { authorization: `Basic ${Buffer.from(`any:${apiKey}`).toString('base64')}` } });
  const body = (await res.json()) as { token: string; access_token: string; expires_in: number; issued_at: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body.access_token).toBe(body.token);
  expect(body.expires_in).toBeGreaterThan(0);
  return body.token;
}

async function listRegistriesViaApi(page: Page, projectId: string): Promise<Registry[]> {
  const res = await page.request.get(`/v1/projects/${projectId}/storage/container-registry`);
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { data: Registry[] }).data;
}

test('sign up, create a registry and a public repository in the panel, push an image with an API key, see its tags and scan, delete it by digest, delete the registry', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const owner = newAccount('registry', 'Solomon Hykes');
  await page.goto('/signup');
  await page.getByLabel('Full name').fill(owner.name);
  await page.getByLabel('Work email').fill(owner.email);
  await page.getByLabel('Password').fill(owner.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/projects$/);
  await verifyEmailViaMailbox(page.request, owner.email);
  const projectId = await createProject(page, `Registry ${Date.now().toString(36)}`);
  await addTestCard(page, projectId);
  const provider = await registryProviderKind(page);
  const registryName = `e2e-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

  // The list: empty, with the call to action and, on a machine without docker-registry, the simulator notice.
  await page.goto(`/projects/${projectId}/container-registry`);
  await expect(page.getByRole('heading', { level: 1, name: 'Container registry' })).toBeVisible();
  await expect(page.getByText('No registries yet')).toBeVisible();
  const simulated = page.getByText('Container registries on this installation are simulated');
  if (provider === 'simulator') await expect(simulated).toBeVisible();
  else await expect(simulated).toHaveCount(0);
  await screenshot(page, 'list-empty');
  await page.getByRole('link', { name: 'Create registry' }).first().click();
  await expect(page).toHaveURL(/\/container-registry\/new$/);

  // The wizard checks the name, the KMS key and the retention ranges before anything is sent.
  const name = page.getByLabel('Registry name');
  await name.fill('Acme_1');
  await expect(page.getByText('Registry names are lower-case letters, digits and hyphens')).toBeVisible();
  await name.fill(registryName);
  await expect(page.getByText('Registry names are lower-case letters, digits and hyphens')).toHaveCount(0);
  await expect(page.getByTestId('image-name-preview')).toContainText(`/${registryName}/<repository>:<tag>`);
  await page
    .getByRole('radiogroup', { name: 'Region' })
    .getByRole('radio', { name: /Frankfurt/ })
    .check();

  const encryption = page.getByRole('radiogroup', { name: 'Encryption' });
  await expect(page.getByLabel('KMS key ARN')).toHaveCount(0);
  await encryption.getByRole('radio', { name: /AWS KMS key/ }).check();
  await page.getByLabel('KMS key ARN').fill('not-an-arn');
  await expect(page.getByText('The key must be a key ARN')).toBeVisible();
  await encryption.getByRole('radio', { name: /AES-256/ }).check();
  await expect(page.getByLabel('KMS key ARN')).toHaveCount(0);

  const keepLast = page.getByLabel('Keep the last');
  await keepLast.fill('1001');
  await expect(page.getByText('Must be 1 to 1000 images')).toBeVisible();
  await keepLast.fill('5');
  await expect(page.getByText('Must be 1 to 1000 images')).toHaveCount(0);
  await page.getByLabel('Delete untagged images after').fill('0');
  await expect(page.getByText('Must be 1 to 365 days')).toBeVisible();
  await page.getByLabel('Delete untagged images after').fill('14');
  await page
    .getByRole('radiogroup', { name: 'Tag mutability' })
    .getByRole('radio', { name: /Immutable tags/ })
    .check();
  await page
    .getByRole('radiogroup', { name: 'Tag mutability' })
    .getByRole('radio', { name: /Mutable tags/ })
    .check();

  const summary = page.getByRole('complementary', { name: 'Summary' });
  await expect(summary).toContainText(registryName);
  await expect(summary).toContainText('Frankfurt');
  await expect(summary).toContainText('Keep 5 tagged; untagged after 14 days');
  const preview = page.getByRole('region', { name: 'Price preview' });
  await expect(preview).toContainText('$1.00/month');
  await expect(preview).toContainText('Subtotal');
  await expect(preview).toContainText('Credit applied');
  const dueToday = minorUnits((await preview.getByTestId('preview-due-today').textContent()) ?? '');
  expect(dueToday).toBeGreaterThan(0);
  expect(dueToday).toBeLessThanOrEqual(100 * 1.3);
  const createButton = page.getByRole('button', { name: /^Create and pay \$/ });
  expect(minorUnits((await createButton.textContent()) ?? '')).toBe(dueToday);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'wizard');
  await createButton.click();

  // The registry: its login command and an empty list of repositories.
  await expect(page).toHaveURL(new RegExp(`/container-registry/creg_[^/]+$`), { timeout: 30_000 });
  const registryUrl = page.url();
  const heading = page.getByRole('heading', { level: 1 });
  await expect(heading).toContainText(registryName);
  await expect(heading).toContainText('Active');
  const endpoint = ((await page.getByTestId('registry-endpoint').textContent()) ?? '').trim();
  expect(endpoint).toMatch(/^[\w.[\]:-]+:\d+$/);
  await expect(page.getByTestId('docker-login')).toHaveText(`docker login ${endpoint} -u any -p <API key>`);
  await expect(page.getByRole('link', { name: 'API keys page' })).toHaveAttribute('href', `/projects/${projectId}/api-keys`);
  await expect(page.getByText('No repositories yet')).toBeVisible();
  const settings = page.getByRole('form', { name: 'Registry settings' });
  await expect(settings.getByLabel('Keep the last')).toHaveValue('5');
  await expect(settings.getByText('apply to every repository at once')).toBeVisible();

  // A public repository needs its egress cap.
  await page.getByRole('button', { name: 'New repository' }).click();
  const dialog = page.getByRole('dialog', { name: 'New repository' });
  await dialog.getByLabel('Repository name').fill('web');
  await dialog.getByRole('radio', { name: /Public/ }).check();
  await dialog.getByRole('button', { name: 'Create repository' }).click();
  await expect(dialog.getByText('Enter a whole number from 1 to 10000 GB')).toBeVisible();
  await dialog.getByLabel('Monthly egress cap (GB)').fill('50');
  await dialog.getByRole('button', { name: 'Create repository' }).click();
  await expect(page.getByText('Repository web was created')).toBeVisible();
  const repositoryRow = page.getByRole('table', { name: 'Repositories' }).getByRole('row', { name: /web/ });
  await expect(repositoryRow).toContainText('Public');
  await expect(repositoryRow).toContainText('0 GB of 50 GB');
  await expect(repositoryRow).toContainText('Never');
  await screenshot(page, 'registry');

  // An API key that may push, made on the API keys page.
  await page.goto(`/projects/${projectId}/api-keys`);
  await page.getByRole('button', { name: 'Create API key' }).first().click();
  const keyDialog = page.getByRole('dialog', { name: 'Create an API key' });
  await keyDialog.getByLabel('Name').fill('registry-ci');
  await keyDialog.getByRole('checkbox', { name: 'registry:read' }).check();
  await keyDialog.getByRole('checkbox', { name: 'registry:write' }).check();
  await keyDialog.getByRole('button', { name: 'Create key' }).click();
  const apiKey = ((await page.getByTestId('new-api-key').textContent()) ?? '').trim();
  expect(apiKey).toMatch(/^cpk_/);
  await page.getByRole('button', { name: 'I have copied it' }).click();

  // docker login and push, spelled out in HTTP: a token from the realm, then the blobs and the manifest under two tags.
  const repository = `${registryName}/web`;
  const token = await registryToken(endpoint, apiKey, repository);
  const pushed = await pushImage(`http://${endpoint}`, token, repository, 'v1', { layerCount: 2, seed: registryName });
  expect(pushed.status, pushed.body).toBe(201);
  const again = await pushImage(`http://${endpoint}`, token, repository, 'latest', { layerCount: 2, seed: registryName });
  expect(again.status, again.body).toBe(201);
  expect(again.digest).toBe(pushed.digest);
  const short = pushed.digest.slice('sha256:'.length, 'sha256:'.length + 12);
  const findings = await simulatedScanner.scan(repository, pushed.digest);

  await page.goto(registryUrl);
  await page.getByRole('table', { name: 'Repositories' }).getByRole('link', { name: 'web' }).click();
  await expect(page).toHaveURL(new RegExp(`/container-registry/creg_[^/]+/repositories/crepo_[^/]+$`));
  await expect(heading).toContainText('web');
  await expect(page.getByTestId('docker-push')).toHaveText(`docker push ${endpoint}/${repository}:latest`);
  await expect(page.getByTestId('docker-pull')).toHaveText(`docker pull ${endpoint}/${repository}:latest`);

  // The push notification is handled asynchronously: the page is read again until the scan is in.
  const imageRow = page
    .getByRole('table', { name: 'Images' })
    .getByRole('row')
    .filter({ has: page.locator(`[data-digest="${pushed.digest}"]`) });
  const counted = Object.entries(findings).filter(([, count]) => count > 0);
  const scanShown = counted.length > 0 ? imageRow.getByTestId('scan-findings') : imageRow.getByText('No findings');
  await expect(async () => {
    await page.reload();
    await expect(scanShown).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  await expect(imageRow).toContainText(short);
  await expect(imageRow.getByText('latest', { exact: true })).toBeVisible();
  await expect(imageRow.getByText('v1', { exact: true })).toBeVisible();
  await expect(imageRow).toContainText(formatBytes(pushed.sizeBytes));
  await expect(imageRow).toContainText('just now');
  for (const [severity, count] of counted) {
    await expect(imageRow.locator(`[data-severity="${severity}"]`)).toHaveText(`${count} ${SEVERITY_LABELS[severity]}`);
  }
  const credentials = page.getByRole('table', { name: 'Registry credentials' });
  await expect(credentials.getByRole('row', { name: /registry-ci/ })).toContainText('push');
  await expect(credentials.getByRole('row', { name: /Anyone/ })).toContainText('pull');
  await expect(page.getByRole('form', { name: 'Visibility and egress cap' }).getByLabel('Monthly egress cap (GB)')).toHaveValue('50');
  await screenshot(page, 'repository');

  // Deleted by digest through the panel, after a confirmation that names it.
  await imageRow.getByRole('button', { name: `Delete image ${short}` }).click();
  const confirmImage = page.getByRole('alertdialog', { name: `Delete image ${short}?` });
  await expect(confirmImage).toContainText(pushed.digest);
  await expect(confirmImage).toContainText('latest, v1');
  await screenshot(page, 'delete-image-dialog', { fullPage: false });
  await confirmImage.getByRole('button', { name: 'Delete image' }).click();
  await expect(page.getByText(`Image ${short} was deleted`)).toBeVisible();
  await expect(page.getByText('No images yet')).toBeVisible();
  expect((await pullImage(`http://${endpoint}`, token, repository, 'v1')).status).toBe(404);
  expect((await pullImage(`http://${endpoint}`, token, repository, pushed.digest)).status).toBe(404);

  // The registry goes after its typed name.
  await page.getByRole('link', { name: `← ${registryName}` }).click();
  await expect(heading).toContainText(registryName);
  await page.getByRole('button', { name: 'Delete registry' }).click();
  const confirm = page.getByRole('alertdialog', { name: `Delete ${registryName}?` });
  const confirmButton = confirm.getByRole('button', { name: 'Delete this registry' });
  await expect(confirmButton).toBeDisabled();
  await confirm.getByLabel(/to confirm/).fill(registryName);
  await confirmButton.click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/container-registry$`));
  await expect(page.getByText(`Registry ${registryName} was deleted`)).toBeVisible();
  await expect(page.getByText('No registries yet')).toBeVisible();
  expect(await listRegistriesViaApi(page, projectId)).toEqual([]);
});

test('the create form says why a registry was refused: no saved card (402, with the way to Billing), then a name already taken (409)', async ({
  page,
  account,
}) => {
  await page.goto('/login');
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/\/login/);
  const projectId = await createProject(page, `Registry refusals ${Date.now().toString(36)}`);
  const registryName = `taken-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

  await page.goto(`/projects/${projectId}/container-registry/new`);
  await page.getByLabel('Registry name').fill(registryName);
  await expect(page.getByRole('region', { name: 'Price preview' })).toContainText('$1.00/month');
  await page.getByRole('button', { name: /^Create and pay \$/ }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'A payment card is needed' });
  await expect(alert.getByRole('link', { name: 'Add a card on the Billing page' })).toHaveAttribute('href', `/projects/${projectId}/billing`);
  await expect(page).toHaveURL(/\/container-registry\/new$/);
  await screenshot(page, 'wizard-402');

  await addTestCard(page, projectId);
  await apiWrite(page, 'post', `/v1/projects/${projectId}/storage/container-registry`, { name: registryName, region: 'ams3' });
  await page.getByRole('button', { name: /^Create and pay \$/ }).click();
  await expect(page.getByText(`The registry name "${registryName}" is taken`)).toBeVisible();
  await expect(page).toHaveURL(/\/container-registry\/new$/);

  await page.goto(`/projects/${projectId}/container-registry`);
  const row = page.getByRole('table', { name: 'Registries' }).getByRole('row', { name: new RegExp(registryName) });
  await expect(row).toContainText('Amsterdam');
  await expect(row).toContainText('Active');
  await screenshot(page, 'list');
  for (const registry of await listRegistriesViaApi(page, projectId)) {
    await apiWrite(page, 'delete', `/v1/projects/${projectId}/storage/container-registry/${registry.id}`);
  }
});
