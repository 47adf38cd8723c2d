import { createHmac, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIRequestContext, Page } from '@playwright/test';
import { createProject, expect, signIn, test } from './fixtures';
import { addTestCard } from './serverFixtures';

const SCREENSHOT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '.output', 'screenshots', 'apps');
const REPOSITORY = 'demo-user/hello-node';

/** The page as it is, at desktop and phone width, for people to look at (e2e/.output/screenshots/apps). */
async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // Toasts of earlier steps would cover the page; under an open dialog they cannot be clicked, nor do they show.
  if ((await page.locator('dialog[open]').count()) === 0) {
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

/**
 * The secret git host 1 signs its deliveries with: the configured one, or the one the simulated
 * host derives from the app's AUTH_SECRET, which e2e/run.ts hands to the app and to this suite alike.
 */
function host1WebhookSecret(): string {
  if (process.env.GIT_HOST_1_WEBHOOK_SECRET) return process.env.GIT_HOST_1_WEBHOOK_SECRET;
  const authSecret = process.env.AUTH_SECRET;
  if (!authSecret) throw new Error('AUTH_SECRET is not set: e2e/run.ts must give the app under test and the suite the same AUTH_SECRET');
  return createHmac('sha256', authSecret).update('git-host-1 webhook secret').digest('hex');
}

async function readApi<T>(request: APIRequestContext, url: string): Promise<T> {
  const res = await request.get(url);
  expect(res.ok(), `GET ${url}: ${res.status()} ${await res.text()}`).toBe(true);
  return ((await res.json()) as { data: T }).data;
}

interface PushDelivery {
  status: number;
  body: { success: boolean; data?: { queued: number; duplicate?: boolean }; error?: { code: string } };
}

/** A push event as git host 1 sends it: the raw JSON body, signed with HMAC-SHA256 of exactly those bytes. */
async function deliverPush(
  request: APIRequestContext,
  push: { installationId: string; branch: string; after: string; message: string },
  { deliveryId = randomUUID(), secret = host1WebhookSecret() } = {},
): Promise<PushDelivery> {
  const body = JSON.stringify({
    ref: `refs/heads/${push.branch}`,
    before: '0'.repeat(40),
    after: push.after,
    created: false,
    deleted: false,
    forced: false,
    head_commit: { id: push.after, message: push.message, author: { name: 'Demo User', email: 'demo-user@example.com' } },
    repository: { full_name: REPOSITORY, name: 'hello-node', owner: { login: 'demo-user' } },
    installation: { id: Number(push.installationId) },
    sender: { login: 'demo-user' },
  });
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const res = await request.post('/v1/integrations/git-host-1/webhook', {
    data: body,
    headers: { 'Content-Type': 'application/json', 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': deliveryId, 'X-Hub-Signature-256': signature },
  });
  return { status: res.status(), body: (await res.json()) as PushDelivery['body'] };
}

test('install git host 1, browse a repository and its template, create an app from it, and deploy it again with a signed push', async ({ page, account }) => {
  test.setTimeout(240_000);
  await signIn(page, account);
  const projectId = await createProject(page, `Apps ${Date.now().toString(36)}`);
  await addTestCard(page, projectId);

  // The hosts, none connected; the apps area is empty and points to them.
  await page.goto(`/projects/${projectId}`);
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Apps' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/apps$`));
  await expect(page.getByText('No apps yet')).toBeVisible();
  await screenshot(page, 'list-empty');
  await page.getByRole('link', { name: 'New app' }).first().click();
  await expect(page.getByText('Connect a git host first')).toBeVisible();
  await page.getByRole('link', { name: 'Go to Integrations' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/integrations$`));
  const host1 = page.getByRole('region', { name: 'Git host 1 (app installation)' });
  await expect(host1).toContainText('Not connected');
  await expect(page.getByRole('region', { name: 'Git host 2' })).toContainText('Not connected');
  await expect(page.getByRole('region', { name: 'Git host 3' })).toContainText('Not connected');
  await expect(host1).toContainText('Simulated git host 1');
  await screenshot(page, 'integrations-empty');

  // The install round trip: the simulated host's page, the demo-user account, and back with the marker.
  await host1.getByRole('link', { name: 'Install the app' }).click();
  await expect(page).toHaveURL(/\/dev\/git-hosts\/git-host-1\/install\?state=/);
  await expect(page.getByTestId('simulated-host')).toBeVisible();
  const accounts = page.getByRole('table', { name: 'Accounts you can install on' });
  await expect(accounts.getByRole('row', { name: /globex/ })).toHaveCount(0);
  await screenshot(page, 'host-install');
  await accounts
    .getByRole('row', { name: /demo-user/ })
    .getByRole('button', { name: 'Install' })
    .click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/integrations\\?git-host-1=connected$`));
  await expect(page.getByText('Git host 1 is connected')).toBeVisible();
  await expect(host1).toContainText('Connected');
  await expect(host1.getByRole('list', { name: 'Linked accounts' })).toContainText('demo-user');
  await screenshot(page, 'integrations-connected');
  await page.getByRole('button', { name: 'Dismiss' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/integrations$`));

  // The picker lists what the installation reaches: demo-user's repositories, not another account's.
  await host1.getByRole('button', { name: 'Browse repositories' }).click();
  const picker = page.getByRole('dialog', { name: 'Repositories on git host 1' });
  const repositories = picker.getByRole('list', { name: 'Repositories' });
  await expect(repositories).toContainText(REPOSITORY);
  await expect(repositories).not.toContainText('acme-labs/');
  await picker.getByLabel('Filter').fill('nothing-like-this');
  await expect(picker.getByText('No repository matches')).toBeVisible();
  await picker.getByLabel('Filter').fill('hello');
  await screenshot(page, 'picker', { fullPage: false });
  await repositories.getByRole('button', { name: new RegExp(REPOSITORY) }).click();
  await expect(picker).toHaveCount(0);

  // The repository: its root, a folder, and the template's one WEB service.
  const browser = page.getByRole('region', { name: `Repository ${REPOSITORY}` });
  await expect(browser.getByRole('combobox', { name: 'Branch' })).toHaveValue('main');
  const files = browser.getByRole('table', { name: 'Files' });
  await expect(files).toContainText('.cloudpanel');
  await expect(files).toContainText('package.json');
  await expect(files).toContainText('README.md');
  await browser.getByRole('button', { name: 'Open the folder src' }).click();
  await expect(browser.getByRole('table', { name: 'Files in src' })).toContainText('index.js');
  await expect(browser.getByRole('navigation', { name: 'Folder' })).toContainText('src');
  const template = browser.getByRole('region', { name: 'Template hello-node' });
  await expect(template).toContainText('.cloudpanel/app.yaml');
  const services = template.getByRole('list', { name: 'Template services' });
  await expect(services.getByRole('listitem')).toHaveCount(1);
  await expect(services).toContainText('web');
  await expect(services).toContainText('Web service');
  await expect(services).toContainText('apps-s-1vcpu-1gb × 1 in nyc');
  await expect(services).toContainText('npm start');
  await expect(services).toContainText('SESSION_SECRET · secret');
  await screenshot(page, 'repository');
  await browser.getByRole('link', { name: 'Create app from this repository' }).click();

  // The create form opens on the repository and branch, with the template's services and their price.
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/apps/new\\?gitHost=git-host-1&repository=demo-user%2Fhello-node&branch=main$`));
  await expect(page.getByRole('radiogroup', { name: 'Git host' }).getByRole('radio', { name: /Git host 1/ })).toBeChecked();
  await expect(page.getByRole('combobox', { name: 'Repository' })).toHaveValue(REPOSITORY);
  await expect(page.getByRole('combobox', { name: 'Branch' })).toHaveValue('main');
  await expect(page.getByRole('radiogroup', { name: 'Services from' }).getByRole('radio', { name: /Use the template’s services/ })).toBeChecked();
  await expect(page.getByLabel('App name')).toHaveValue('hello-node');
  const preview = page.getByRole('region', { name: 'Price preview' });
  await expect(preview).toContainText('$12.00/month');
  const summary = page.getByRole('complementary', { name: 'Summary' });
  await expect(summary).toContainText('web: apps-s-1vcpu-1gb × 1');
  await expect(summary).toContainText('New York');
  await screenshot(page, 'create');
  await page.getByRole('button', { name: /^Create and pay \$/ }).click();

  // The app's page: its first deployment builds the branch's head and goes live, with its log.
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/apps/app_[^/?]+$`));
  const appUrl = page.url();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('hello-node');
  await expect(page.getByText('App hello-node was created')).toBeVisible();
  const latest = page.getByRole('region', { name: 'Latest deployment' });
  await expect(latest).toContainText('First deployment');
  await expect(latest.locator('[data-status]').first()).toHaveAttribute('data-status', 'LIVE', { timeout: 60_000 });
  await expect(latest.getByRole('log')).toContainText('Checked out commit');
  await expect(page.getByRole('heading', { level: 1 }).locator('[data-status]')).toHaveAttribute('data-status', 'LIVE');
  await expect(page.getByTestId('app-monthly')).toHaveText('$12.00/month');
  await screenshot(page, 'app-live');

  // A push as the host delivers it: refused unsigned or wrongly signed, acted on once when signed.
  const status = await readApi<{ accounts: { installationId: string; accountLogin: string }[] }>(
    page.request,
    `/v1/projects/${projectId}/integrations/git-host-1/status`,
  );
  const installationId = status.accounts.find((a) => a.accountLogin === 'demo-user')?.installationId;
  expect(installationId).toBeTruthy();
  const branches = await readApi<{ branches: { name: string; commitSha: string }[] }>(
    page.request,
    `/v1/projects/${projectId}/integrations/git-host-1/repos/demo-user/hello-node/branches`,
  );
  const head = branches.branches.find((b) => b.name === 'main')?.commitSha ?? '';
  expect(head).toMatch(/^[0-9a-f]{40}$/);
  const push = { installationId: installationId!, branch: 'main', after: head, message: 'Say hello in French\n\nBonjour instead of Hello.' };

  const forged = await deliverPush(page.request, push, { secret: 'not-the-app-secret' });
  expect(forged.status).toBe(401);
  expect(forged.body.error?.code).toBe('SIGNATURE_INVALID');
  const otherBranch = await deliverPush(page.request, { ...push, branch: 'feature/nothing-deploys-this' });
  expect(otherBranch.status).toBe(200);
  expect(otherBranch.body.data).toEqual({ queued: 0 });
  const deliveryId = randomUUID();
  const delivered = await deliverPush(page.request, push, { deliveryId });
  expect(delivered.status).toBe(202);
  expect(delivered.body.data).toEqual({ queued: 1 });
  const replayed = await deliverPush(page.request, push, { deliveryId });
  expect(replayed.status).toBe(200);
  expect(replayed.body.data).toEqual({ queued: 0, duplicate: true });

  // The push's deployment appears on the app page, builds, and goes live; the first one is superseded.
  await page.goto(appUrl);
  await expect(latest).toContainText('Say hello in French');
  await expect(latest).toContainText('Push');
  await expect(latest.locator('[data-status]').first()).toHaveAttribute('data-status', /^(QUEUED|BUILDING|LIVE)$/);
  await expect(latest.locator('[data-status]').first()).toHaveAttribute('data-status', 'LIVE', { timeout: 60_000 });
  await expect(latest.getByRole('log')).toContainText(`Checked out commit ${head}`);
  const history = page.getByRole('table', { name: 'Deployments' });
  await expect(history.getByRole('row')).toHaveCount(3);
  await expect(history.getByRole('row', { name: /Say hello in French/ }).locator('[data-status]')).toHaveAttribute('data-status', 'LIVE');
  await expect(history.getByRole('row', { name: /First deployment/ }).locator('[data-status]')).toHaveAttribute('data-status', 'SUPERSEDED');
  await screenshot(page, 'app-pushed');

  // The deployment's own page: what it built and its whole log.
  await latest.getByRole('link', { name: 'Open deployment' }).click();
  await expect(page).toHaveURL(/\/deployments\/dpl_[^/?]+$/);
  await expect(page.getByRole('heading', { level: 1 })).toContainText(head.slice(0, 7));
  await expect(page.getByText('Serving now')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Details' })).toContainText('Bonjour instead of Hello.');
  await expect(page.getByRole('log')).toContainText(`Checked out commit ${head}`);
  await screenshot(page, 'deployment');

  // The list, then deletion by typing the name.
  await page.goto(`/projects/${projectId}/apps`);
  const row = page.getByRole('table', { name: 'Apps' }).getByRole('row', { name: /hello-node/ });
  await expect(row).toContainText('Live');
  await expect(row).toContainText(REPOSITORY);
  await expect(row).toContainText('$12.00/month');
  await screenshot(page, 'list');
  await row.getByRole('link', { name: 'hello-node' }).click();
  await page.getByRole('button', { name: 'Delete app' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete hello-node?' });
  await expect(confirm.getByRole('button', { name: 'Delete this app' })).toBeDisabled();
  await confirm.getByLabel(/to confirm/).fill('hello-node');
  await screenshot(page, 'delete-dialog', { fullPage: false });
  await confirm.getByRole('button', { name: 'Delete this app' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/apps$`));
  await expect(page.getByText('App hello-node was deleted')).toBeVisible();
  await expect(page.getByText('No apps yet')).toBeVisible();
  // Nothing deploys a deleted app.
  const afterDelete = await deliverPush(page.request, push);
  expect(afterDelete.status).toBe(200);
  expect(afterDelete.body.data).toEqual({ queued: 0 });
});

test('connect git host 2 through its consent page, describe a service by hand, and connect the image hub', async ({ page, account }) => {
  test.setTimeout(180_000);
  await signIn(page, account);
  const projectId = await createProject(page, `Hosts ${Date.now().toString(36)}`);
  await addTestCard(page, projectId);
  await page.goto(`/projects/${projectId}/integrations`);

  // Consent refused, then granted.
  const host2 = page.getByRole('region', { name: 'Git host 2' });
  await host2.getByRole('link', { name: 'Connect git host 2' }).click();
  await expect(page).toHaveURL(/\/dev\/git-hosts\/git-host-2\/authorize\?/);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/integrations\\?git-host-2=denied$`));
  await expect(page.getByText('Git host 2 was not connected')).toBeVisible();
  await expect(host2).toContainText('Not connected');
  await host2.getByRole('link', { name: 'Connect git host 2' }).click();
  await page.getByRole('button', { name: 'Authorize' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/integrations\\?git-host-2=connected$`));
  await expect(page.getByText('Git host 2 is connected')).toBeVisible();
  await expect(host2).toContainText('demo-user');

  // A repository without a template: the form asks for its service; a name already taken is said on the field.
  await host2.getByRole('button', { name: 'Browse repositories' }).click();
  await page
    .getByRole('dialog', { name: 'Repositories on git host 2' })
    .getByRole('button', { name: /demo-team\/legacy-app/ })
    .click();
  const browser = page.getByRole('region', { name: 'Repository demo-team/legacy-app' });
  await expect(browser.getByRole('region', { name: 'App template' })).toContainText('No app template at this branch');
  await browser.getByRole('link', { name: 'Create app from this repository' }).click();
  await expect(page).toHaveURL(/\/apps\/new\?gitHost=git-host-2&repository=demo-team%2Flegacy-app&branch=/);
  await expect(page.getByRole('combobox', { name: 'Repository' })).toHaveValue('demo-team/legacy-app');
  await expect(page.getByText('No app template at this branch')).toBeVisible();
  await expect(page.getByLabel('App name')).toHaveValue('legacy-app');
  await page
    .getByRole('radiogroup', { name: 'Size' })
    .getByRole('radio', { name: /apps-s-1vcpu-2gb/ })
    .check();
  await page.getByLabel('Instances').fill('2');
  await expect(page.getByRole('region', { name: 'Price preview' })).toContainText('$50.00/month');
  await page
    .getByRole('radiogroup', { name: 'Region' })
    .getByRole('radio', { name: /Frankfurt/ })
    .check();
  await page.getByLabel('Run command').fill('php -S 0.0.0.0:8080');
  await page.getByRole('button', { name: 'Add variable' }).click();
  await page.getByLabel('Name of variable 1').fill('app_env');
  await expect(page.getByLabel('Name of variable 1')).toHaveValue('APP_ENV');
  await page.getByLabel('Value of variable 1').fill('production');
  await page.getByRole('button', { name: 'Add variable' }).click();
  await page.getByLabel('Name of variable 2').fill('DB_PASSWORD');
  await page.getByLabel('Value of variable 2').fill('s3cret-value');
  await page.getByRole('checkbox', { name: 'Secret' }).nth(1).check();
  await page.getByLabel('App name').fill('Legacy');
  await expect(page.getByText('name must be 1 to 40 lowercase letters')).toBeVisible();
  await page.getByLabel('App name').fill('legacy');
  await screenshot(page, 'create-service');
  await page.getByRole('button', { name: /^Create and pay \$/ }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/apps/app_[^/?]+$`));
  const services = page.getByRole('region', { name: 'Services' });
  await expect(services).toContainText('apps-s-1vcpu-2gb');
  await expect(services).toContainText('× 2');
  await expect(services).toContainText('APP_ENV');
  await expect(services).toContainText('DB_PASSWORD · secret');
  await expect(page.getByText('s3cret-value')).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Latest deployment' }).locator('[data-status]').first()).toHaveAttribute('data-status', /^(LIVE|FAILED)$/, {
    timeout: 60_000,
  });

  await page.goto(`/projects/${projectId}/apps/new?gitHost=git-host-2&repository=demo-team%2Flegacy-app&branch=main`);
  await page.getByLabel('App name').fill('legacy');
  await page.getByRole('button', { name: /^Create and pay \$/ }).click();
  await expect(page.getByText('An app named "legacy" already exists in this project')).toBeVisible();

  // The image hub: a refused token is said on the field; the demo account lists its repositories and their tags.
  await page.goto(`/projects/${projectId}/integrations`);
  const hub = page.getByRole('region', { name: 'Image hub' });
  await hub.getByLabel('Username').fill('demo');
  await hub.getByLabel('Access token').fill('dckr_pat_wrong');
  await hub.getByRole('button', { name: 'Verify and save' }).click();
  await expect(hub.getByText('the image hub refused this username and access token')).toBeVisible();
  await hub.getByLabel('Access token').fill('dckr_pat_demo_simulator');
  await hub.getByRole('button', { name: 'Verify and save' }).click();
  await expect(hub.getByTestId('image-hub-account')).toHaveText('demo');
  const images = page.getByRole('table', { name: 'Image repositories' });
  await expect(images).toContainText('demo/hello-node');
  await images.getByRole('button', { name: 'Show the tags of demo/hello-node' }).click();
  await expect(page.getByRole('table', { name: 'Tags of demo/hello-node' })).toContainText('latest');
  await screenshot(page, 'integrations-hosts');
});

test('a git host 1 round trip started without a return path ends on the Integrations page of the project it began in', async ({ page, account }) => {
  await signIn(page, account);
  const projectId = await createProject(page, `Return ${Date.now().toString(36)}`);
  // Before any round trip, the default return has no project to go to and shows the project list.
  await page.goto('/en/controlpanel');
  await expect(page).toHaveURL(/\/projects$/);
  await page.goto(`/v1/projects/${projectId}/integrations/git-host-1/connect`);
  await expect(page).toHaveURL(/\/dev\/git-hosts\/git-host-1\/install\?state=/);
  await page
    .getByRole('table', { name: 'Accounts you can install on' })
    .getByRole('row', { name: /acme-labs/ })
    .getByRole('button', { name: 'Install' })
    .click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/integrations\\?git-host-1=connected$`));
  await expect(page.getByText('Git host 1 is connected')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Git host 1 (app installation)' }).getByRole('list', { name: 'Linked accounts' })).toContainText('acme-labs');

  // Opened again, the default return still leads to that project, without an outcome to announce.
  await page.goto('/en/controlpanel');
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/integrations$`));
});
