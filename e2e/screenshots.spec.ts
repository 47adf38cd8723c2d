import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from '@playwright/test';
import postgres from 'postgres';
import type { RedisDatabase } from '../server/domains/redis/schema';
import { appDatabaseUrl } from './billingClock';
import { createAccountViaApi, createProject, expect, newAccount, newestMail, signIn, test } from './fixtures';
import { addSshKeyViaApi, addTestCard, apiWrite, createServerViaApi, newEd25519PublicKey, serverActionViaApi, waitForServerStatus } from './serverFixtures';

const SCREENSHOT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'screenshots');
const VIEWPORTS = [
  { label: 'desktop', width: 1280, height: 800 },
  { label: 'phone', width: 390, height: 844 },
] as const;

/**
 * Captures the page at every viewport once `ready` shows, so no screenshot catches a loading state.
 * Open dialogs are captured as the viewport shows them: a full-page capture would scroll under the backdrop.
 */
async function capture(page: Page, name: string, ready: Locator, { fullPage = true } = {}): Promise<void> {
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await expect(ready).toBeVisible();
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${viewport.label}.png`), fullPage });
  }
  await page.setViewportSize({ width: VIEWPORTS[0].width, height: VIEWPORTS[0].height });
}

/**
 * The servers list with one server PROVISIONING next to RUNNING ones. Simulated power actions
 * settle in seconds, so each capture reboots the server first and is retried if the reboot had
 * settled before the screenshot was taken (the badge is checked again after it).
 */
async function captureServersWhileOneProvisions(page: Page, projectId: string, name: string): Promise<void> {
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await expect(async () => {
      const server = await waitForServerStatus(page, projectId, name, 'RUNNING');
      await serverActionViaApi(page, projectId, server.id, 'reboot');
      await page.goto(`/projects/${projectId}/servers`);
      const row = page.getByRole('table', { name: 'Servers' }).getByRole('row', { name: new RegExp(name) });
      await expect(row).toContainText('Provisioning', { timeout: 3000 });
      await expect(row).toContainText('Frankfurt 1', { timeout: 1000 });
      await expect(page.getByRole('table', { name: 'Servers' })).toContainText('Running', { timeout: 1000 });
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `servers-${viewport.label}.png`), fullPage: true });
      await expect(row).toContainText('Provisioning', { timeout: 100 });
    }).toPass({ timeout: 60_000 });
  }
  await page.setViewportSize({ width: VIEWPORTS[0].width, height: VIEWPORTS[0].height });
}

test('screenshots of the main pages at desktop and phone width', async ({ page, browser, request, account }) => {
  test.setTimeout(300_000);

  await page.goto('/login');
  await capture(page, 'login', page.getByRole('button', { name: 'Sign in' }));
  await page.goto('/signup');
  await capture(page, 'signup', page.getByRole('button', { name: 'Create account' }));
  await page.goto('/forgot-password');
  await capture(page, 'forgot-password', page.getByRole('button', { name: 'Send reset link' }));

  await signIn(page, account);
  await capture(page, 'projects-empty', page.getByText('Create your first project'));
  await page.goto('/projects/new');
  await capture(page, 'project-new', page.getByLabel('Project name'));

  const projectId = await createProject(page, 'Acme production');
  await createProject(page, 'Marketing site');
  await page.goto('/projects');
  await capture(page, 'projects', page.getByRole('link', { name: 'Open project Acme production' }));

  await page.goto(`/projects/${projectId}`);
  await capture(page, 'project-overview', page.getByRole('list', { name: 'Charges per month' }));

  await page.goto(`/projects/${projectId}/api-keys`);
  await capture(page, 'api-keys-empty', page.getByText('No API keys yet'));
  await page.getByRole('button', { name: 'Create API key' }).first().click();
  const createDialog = page.getByRole('dialog', { name: 'Create an API key' });
  await createDialog.getByLabel('Name').fill('GitHub Actions deploys');
  await createDialog.getByRole('checkbox', { name: 'projects:read' }).check();
  await createDialog.getByRole('checkbox', { name: 'servers:write' }).check();
  await createDialog.getByRole('checkbox', { name: 'domains:read' }).check();
  await capture(page, 'api-key-create', createDialog.getByRole('button', { name: 'Create key' }), { fullPage: false });
  await createDialog.getByRole('button', { name: 'Create key' }).click();
  await capture(page, 'api-key-secret', page.getByTestId('new-api-key'), { fullPage: false });
  await page.getByRole('button', { name: 'I have copied it' }).click();
  await capture(page, 'api-keys', page.getByRole('table', { name: 'API keys' }).getByText('GitHub Actions deploys'));
  await page.goto('/docs/cli');
  await capture(page, 'docs-cli', page.getByRole('heading', { level: 1, name: 'Command line and SDK' }));

  const teammate = newAccount('colleague', 'Margaret Hamilton');
  await createAccountViaApi(request, teammate);
  await page.goto(`/projects/${projectId}/members`);
  await page.getByLabel('Email').fill(teammate.email);
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await capture(page, 'members', page.getByRole('table', { name: 'Pending invitations' }).getByText(teammate.email));

  await page.goto(`/projects/${projectId}/settings`);
  await capture(page, 'project-settings', page.getByRole('button', { name: 'Delete project' }));
  await page.getByRole('button', { name: 'Delete project' }).click();
  await capture(page, 'project-delete-dialog', page.getByRole('alertdialog'), { fullPage: false });
  await page.keyboard.press('Escape');

  await page.goto(`/projects/${projectId}/databases`);
  await capture(page, 'databases-empty', page.getByRole('table', { name: 'Database tiers' }).getByRole('row', { name: /Scale/ }));

  await addTestCard(page, projectId);
  const keyId = await addSshKeyViaApi(page, projectId, 'Ada’s laptop', newEd25519PublicKey('ada@laptop').line);
  await page.goto(`/projects/${projectId}/ssh-keys`);
  const addKeyForm = page.getByRole('form', { name: 'Add an SSH key' });
  await addKeyForm.getByLabel('Name').fill('CI deploys');
  await addKeyForm.getByLabel('Public key').fill(newEd25519PublicKey('ci@github').line);
  await capture(page, 'ssh-keys', addKeyForm.getByTestId('key-fingerprint-preview'));
  await page.getByRole('button', { name: 'Generate key pair' }).first().click();
  await page.getByRole('dialog', { name: 'Generate an SSH key pair' }).getByLabel('Name').fill('Deploy bot');
  await page.getByRole('dialog', { name: 'Generate an SSH key pair' }).getByRole('button', { name: 'Generate key pair' }).click();
  await capture(page, 'ssh-key-generated', page.getByTestId('generated-private-key'), { fullPage: false });
  await page.getByRole('button', { name: 'I have saved it' }).click();

  await createServerViaApi(page, projectId, { name: 'web-1', region: 'ams3', slug: 's-2vcpu-4gb', sshKeyIds: [keyId] });
  await createServerViaApi(page, projectId, { name: 'worker-1', region: 'fra1', slug: 's-1vcpu-2gb', sshKeyIds: [keyId] });
  await page.goto(`/projects/${projectId}/servers/new`);
  await page.getByRole('radio', { name: /Amsterdam 3/ }).check();
  await page.getByRole('radio', { name: /s-2vcpu-4gb/ }).check();
  await page.getByRole('checkbox', { name: /laptop/ }).check();
  await page.getByLabel('Server name').fill('web-2');
  await page.evaluate(() => window.scrollTo(0, 0));
  await capture(page, 'server-create', page.getByRole('region', { name: 'Price preview' }).getByTestId('preview-due-today'));

  const web1 = await waitForServerStatus(page, projectId, 'web-1', 'RUNNING');
  await captureServersWhileOneProvisions(page, projectId, 'worker-1');

  await page.goto(`/projects/${projectId}/servers/${web1.id}`);
  await capture(page, 'server-detail', page.getByTestId('ssh-command'));
  await page.getByRole('button', { name: 'Delete server' }).click();
  await page
    .getByRole('alertdialog')
    .getByLabel(/to confirm/)
    .fill('web-');
  await capture(page, 'server-delete-dialog', page.getByRole('alertdialog'), { fullPage: false });
  await page.keyboard.press('Escape');

  await page.goto(`/projects/${projectId}/billing`);
  await capture(page, 'billing', page.getByRole('region', { name: 'Billing summary' }).getByText('Visa •••• 4242'));
  await page.goto('/account');
  await capture(page, 'account', page.getByRole('button', { name: 'Change password' }));

  const invitationLink = (await newestMail(browser, teammate.email)).links.find((l) => l.includes('/invitations/'))!;
  await page.goto('/dev/mailbox');
  await capture(page, 'dev-mailbox', page.getByTestId('mail-message').first());

  const anonymous = await browser.newContext();
  const anonymousPage = await anonymous.newPage();
  await anonymousPage.goto(invitationLink);
  await capture(anonymousPage, 'invitation-public', anonymousPage.getByRole('link', { name: 'Sign in to accept' }));
  await anonymous.close();

  const teammateContext = await browser.newContext();
  const teammatePage = await teammateContext.newPage();
  await signIn(teammatePage, teammate);
  await teammatePage.goto('/invitations');
  await capture(teammatePage, 'invitations', teammatePage.getByRole('button', { name: 'Accept' }));
  await teammatePage.goto(new URL(invitationLink).pathname);
  await capture(teammatePage, 'invitation-signed-in', teammatePage.getByRole('button', { name: 'Accept invitation' }));
  await teammateContext.close();
});

test('screenshots of an unverified address and its verification', async ({ page, browser, request, account: owner }) => {
  test.setTimeout(180_000);
  const newcomer = newAccount('unverified', 'Grace Hopper');
  const ownerContext = await browser.newContext();
  const ownerPage = await ownerContext.newPage();
  await signIn(ownerPage, owner);
  const projectId = await createProject(ownerPage, 'Analytical Engine');
  await ownerPage.goto(`/projects/${projectId}/members`);
  await ownerPage.getByLabel('Email').fill(newcomer.email);
  await ownerPage.getByRole('button', { name: 'Send invitation' }).click();
  await expect(ownerPage.getByRole('table', { name: 'Pending invitations' }).getByText(newcomer.email)).toBeVisible();
  await ownerContext.close();
  const invitationPath = new URL((await newestMail(browser, newcomer.email)).links.find((l) => l.includes('/invitations/'))!).pathname;
  await createAccountViaApi(request, newcomer, { verified: false });
  const verifyLink = (await newestMail(browser, newcomer.email)).links.find((l) => l.includes('/verify-email/'))!;

  await signIn(page, newcomer);
  await capture(page, 'email-unverified-banner', page.getByRole('status', { name: 'Email address not verified' }));
  await page.goto('/account');
  await capture(page, 'account-unverified', page.getByRole('region', { name: 'Email address' }).getByText('Not verified'));
  await page.goto('/invitations');
  await capture(page, 'invitations-unverified', page.getByText('Verify your email address to see your invitations'));
  await page.goto(invitationPath);
  await page.getByRole('button', { name: 'Accept invitation' }).click();
  await capture(page, 'invitation-unverified', page.getByText('Verify your email address first'));

  const anonymous = await browser.newContext();
  const anonymousPage = await anonymous.newPage();
  await anonymousPage.goto(verifyLink.replace(/[^/]+$/, 'a-link-that-was-never-sent-0123456789abcdef'));
  await capture(anonymousPage, 'verify-email-invalid', anonymousPage.getByRole('link', { name: 'Sign in to send a new link' }));
  await anonymous.close();
  await page.goto(verifyLink);
  await capture(page, 'verify-email', page.getByText('Your email address is verified'));
});

/** Reads the Redis databases until the named one is READY; reads are what settle a provisioning one. */
async function waitForRedisReady(page: Page, projectId: string, name: string): Promise<RedisDatabase> {
  let found: RedisDatabase | undefined;
  await expect(async () => {
    const res = await page.request.get(`/v1/projects/${projectId}/redis`);
    found = ((await res.json()) as { data: RedisDatabase[] }).data.find((d) => d.name === name);
    expect(found?.status).toBe('READY');
  }).toPass({ timeout: 30_000, intervals: [500] });
  return found!;
}

/**
 * An hour of readings for a database that was just created, so the usage chart shows what it
 * shows in use: readings arrive one a minute and a screenshot cannot wait an hour for them. The
 * newest is 20 s old, so the page shows it rather than taking a fresh one. Needs the app's
 * PostgreSQL database (E2E_DATABASE_URL); without it the chart has the one reading there is.
 */
async function fillUsageHistory(redisId: string, limitBytes: number): Promise<void> {
  if (!appDatabaseUrl) return;
  const sql = postgres(appDatabaseUrl, { max: 1, onnotice: () => {} });
  try {
    const now = Date.now();
    let networkIn = 0;
    let networkOut = 0;
    let operations = 0;
    const rows = Array.from({ length: 60 }, (_, i) => {
      const minute = 59 - i;
      const load = 0.6 + 0.4 * Math.sin(i / 6) + (i % 7) / 20;
      networkIn += Math.round(180_000 * load);
      networkOut += Math.round(420_000 * load);
      operations += Math.round(2400 * load);
      return {
        redis_id: redisId,
        sampled_at: new Date(now - minute * 60_000 - 20_000),
        memory_used_bytes: Math.round(limitBytes * (0.18 + 0.14 * (i / 59) + 0.02 * Math.sin(i / 3))),
        memory_limit_bytes: limitBytes,
        network_in_bytes: networkIn,
        network_out_bytes: networkOut,
        operations,
      };
    });
    await sql`delete from redis_usage_samples where redis_id = ${redisId}`;
    await sql`insert into redis_usage_samples ${sql(rows)}`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

test('screenshots of the Redis pages at desktop and phone width', async ({ page, account }) => {
  test.setTimeout(180_000);
  await signIn(page, account);
  const projectId = await createProject(page, 'Acme production');
  await page.goto(`/projects/${projectId}/redis`);
  await capture(page, 'redis-empty', page.getByText('No Redis databases yet'));

  await addTestCard(page, projectId);
  await apiWrite(page, 'post', `/v1/projects/${projectId}/redis`, {
    name: 'sessions',
    planSlug: 'redis-2gb',
    region: 'fra1',
    replication: true,
    dataPersistence: 'AOF_EVERY_1_SECOND',
  });
  await apiWrite(page, 'post', `/v1/projects/${projectId}/redis`, { name: 'rate-limits', planSlug: 'redis-256mb', region: 'nyc1' });

  await page.goto(`/projects/${projectId}/redis/new`);
  await page.getByLabel('Database name').fill('cache');
  await page
    .getByRole('radiogroup', { name: 'Region' })
    .getByRole('radio', { name: /Frankfurt/ })
    .check();
  await page.getByRole('radiogroup', { name: 'Plan' }).locator('label').filter({ hasText: 'Standard 1 GB' }).getByRole('radio').check();
  await page.getByRole('checkbox', { name: /Add a replica/ }).check();
  await page
    .getByRole('radiogroup', { name: 'Persistence' })
    .getByRole('radio', { name: /Snapshot every hour/ })
    .check();
  await page.evaluate(() => window.scrollTo(0, 0));
  await capture(page, 'redis-create', page.getByRole('region', { name: 'Price preview' }).getByTestId('preview-due-today'));

  const sessions = await waitForRedisReady(page, projectId, 'sessions');
  await waitForRedisReady(page, projectId, 'rate-limits');
  await fillUsageHistory(sessions.id, sessions.usableMemoryMb * 1024 * 1024);
  await page.goto(`/projects/${projectId}/redis`);
  await capture(page, 'redis', page.getByRole('table', { name: 'Redis databases' }).getByRole('row', { name: /sessions/ }));

  await page.goto(`/projects/${projectId}/redis/${sessions.id}`);
  await page.getByRole('button', { name: 'Reveal' }).click();
  await capture(page, 'redis-detail', page.getByRole('img', { name: /Memory used over the last hour/ }));
  await page.getByRole('button', { name: 'Delete database' }).click();
  await page
    .getByRole('alertdialog')
    .getByLabel(/to confirm/)
    .fill('sess');
  await capture(page, 'redis-delete-dialog', page.getByRole('alertdialog'), { fullPage: false });
  await page.keyboard.press('Escape');

  const left = await page.request.get(`/v1/projects/${projectId}/redis`);
  for (const database of ((await left.json()) as { data: RedisDatabase[] }).data) {
    await apiWrite(page, 'delete', `/v1/projects/${projectId}/redis/${database.id}`);
  }
});

test('screenshots of the Object storage pages at desktop and phone width', async ({ page, account }) => {
  test.setTimeout(180_000);
  await signIn(page, account);
  const projectId = await createProject(page, 'Acme production');
  await page.goto(`/projects/${projectId}/object-storage`);
  await capture(page, 'object-storage-empty', page.getByText('No buckets yet'));

  await addTestCard(page, projectId);
  const base = `/v1/projects/${projectId}/storage/object-storage`;
  const corsRules = [{ allowedOrigins: ['https://app.acme.test'], allowedMethods: ['GET', 'PUT'], allowedHeaders: ['Content-Type'], maxAgeSeconds: 3600 }];
  await apiWrite(page, 'post', base, {
    name: 'acme-uploads',
    provider: 'S3_PROVIDER',
    region: 'fra1',
    tier: 'STARTER',
    publicAccess: false,
    versioning: true,
    corsRules,
  });
  await apiWrite(page, 'post', base, {
    name: 'acme-assets',
    provider: 'S3_PROVIDER',
    region: 'nyc1',
    tier: 'GROWTH',
    publicAccess: true,
    versioning: false,
    cdnEnabled: true,
  });
  const listed = await page.request.get(base);
  const buckets = ((await listed.json()) as { data: Array<{ id: string; name: string }> }).data;
  const uploads = buckets.find((b) => b.name === 'acme-uploads')!;
  await apiWrite(page, 'post', `/v1/projects/${projectId}/iam`, { name: 'ci-deploys', bucketIds: null, access: 'read' });

  await page.goto(`/projects/${projectId}/object-storage/new`);
  await page.getByLabel('Bucket name').fill('acme-backups');
  await page.getByRole('radiogroup', { name: 'Tier' }).locator('label').filter({ hasText: 'GROWTH' }).getByRole('radio').check();
  await page.getByRole('switch', { name: /Public access/ }).check();
  await page.getByRole('switch', { name: /CDN/ }).check();
  await page.getByRole('button', { name: 'Add CORS rule' }).click();
  await page.getByLabel('Allowed origins').fill('https://*.acme.test');
  await page.evaluate(() => window.scrollTo(0, 0));
  await capture(page, 'object-storage-create', page.getByRole('region', { name: 'Price preview' }).getByTestId('preview-due-today'));

  await page.goto(`/projects/${projectId}/object-storage`);
  await capture(page, 'object-storage', page.getByRole('table', { name: 'Buckets' }).getByRole('row', { name: /acme-assets/ }));

  await page.goto(`/projects/${projectId}/object-storage/${uploads.id}`);
  await page
    .getByRole('radiogroup', { name: 'Tier' })
    .getByRole('radio', { name: /Growth/ })
    .check();
  await page.evaluate(() => window.scrollTo(0, 0));
  await capture(page, 'bucket-detail', page.getByRole('region', { name: 'Price preview' }).getByTestId('preview-due-today'));
  await page.getByRole('button', { name: 'New credential' }).click();
  await page.getByRole('dialog', { name: 'New credential' }).getByLabel('Name').fill('uploads-worker');
  await capture(page, 'bucket-credential-dialog', page.getByRole('dialog', { name: 'New credential' }), { fullPage: false });
  await page.getByRole('button', { name: 'Create credential' }).click();
  await capture(page, 'bucket-credential-secret', page.getByTestId('new-credential-command'), { fullPage: false });
  await page.getByRole('button', { name: 'I have copied it' }).click();
  await page.getByRole('button', { name: 'Delete bucket' }).click();
  await page
    .getByRole('alertdialog')
    .getByLabel(/to confirm/)
    .fill('acme-');
  await capture(page, 'bucket-delete-dialog', page.getByRole('alertdialog'), { fullPage: false });
  await page.keyboard.press('Escape');

  await page.goto(`/projects/${projectId}/object-storage/credentials`);
  await capture(page, 'object-storage-credentials', page.getByRole('table', { name: 'Storage credentials' }).getByText('uploads-worker'));
  await page.getByRole('button', { name: 'Change the scope of uploads-worker' }).click();
  await capture(page, 'credential-rescope-dialog', page.getByRole('dialog', { name: /Re-scope/ }), { fullPage: false });
  await page.keyboard.press('Escape');

  for (const bucket of buckets) await apiWrite(page, 'delete', `${base}/${bucket.id}`);
});

test('screenshots of the Domains and Integrations pages at desktop and phone width', async ({ page, account }) => {
  test.setTimeout(180_000);
  await signIn(page, account);
  const projectId = await createProject(page, 'Acme production');

  await page.goto(`/projects/${projectId}/integrations`);
  await capture(page, 'integrations-empty', page.getByRole('textbox', { name: 'API token' }));
  await page.getByRole('textbox', { name: 'API token' }).fill(`shot${randomBytes(30).toString('base64url')}`.slice(0, 40));
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.getByRole('switch', { name: 'Auto-DNS' }).check();
  await expect(page.getByRole('switch', { name: 'Auto-DNS' })).toBeChecked();

  await page.goto(`/projects/${projectId}/domains`);
  await capture(page, 'domains-empty', page.getByText('No domains yet'));
  await page.getByRole('button', { name: 'Add domain' }).first().click();
  const addDialog = page.getByRole('dialog', { name: 'Add a domain' });
  await addDialog.getByLabel('Domain name').fill('acme.example.com');
  await capture(page, 'domain-add-dialog', addDialog.getByText('Auto-DNS is on'), { fullPage: false });
  await addDialog.getByRole('button', { name: 'Add domain' }).click();
  await expect(page.getByText('Auto-DNS created the verification record')).toBeVisible();
  await page.getByRole('button', { name: 'Check now' }).click();
  await capture(page, 'domain-verified', page.getByText('Verified: the record was found'));

  await page.goto(`/projects/${projectId}/integrations`);
  await page.getByRole('switch', { name: 'Auto-DNS' }).uncheck();
  await expect(page.getByRole('switch', { name: 'Auto-DNS' })).not.toBeChecked();
  await apiWrite(page, 'post', `/v1/projects/${projectId}/domains`, { name: 'blog.example.net', type: 'EXTERNAL' });
  await page.goto(`/projects/${projectId}/domains/blog.example.net`);
  await page.getByRole('button', { name: 'Check now' }).click();
  await capture(page, 'domain-pending', page.getByTestId('check-reason'));
  await page.getByRole('button', { name: 'Remove domain' }).click();
  await page
    .getByRole('alertdialog')
    .getByLabel(/to confirm/)
    .fill('blog.exa');
  await capture(page, 'domain-remove-dialog', page.getByRole('alertdialog'), { fullPage: false });
  await page.keyboard.press('Escape');

  await page.goto(`/projects/${projectId}/domains`);
  await page.getByLabel('Name or idea').fill('acme-shop');
  await page.getByRole('button', { name: 'Search' }).click();
  await capture(page, 'domains', page.getByRole('table', { name: 'Domain names found' }).getByRole('row', { name: /acme-shop\.com/ }));

  await page.goto(`/projects/${projectId}/integrations`);
  await page.getByRole('button', { name: 'Show the records of example.com' }).click();
  await capture(page, 'integrations', page.getByRole('table', { name: 'DNS records of example.com' }).getByRole('row', { name: /www/ }));
  await page.getByRole('button', { name: 'Add record' }).click();
  const recordDialog = page.getByRole('dialog', { name: 'Add a record' });
  await recordDialog.getByLabel('Type').selectOption('MX');
  await recordDialog.getByLabel('Name').fill('@');
  await recordDialog.getByLabel('Content').fill('mx 1.example.com');
  await recordDialog.getByRole('button', { name: 'Add record' }).click();
  await capture(page, 'dns-record-dialog', recordDialog.getByText('must be a host name'), { fullPage: false });
  await page.keyboard.press('Escape');
});
