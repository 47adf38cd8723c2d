import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import postgres from 'postgres';
import type { Tenant } from '../server/domains/databases/schema';
import { createProject, expect, newAccount, test, verifyEmailViaMailbox } from './fixtures';
import { addTestCard } from './serverFixtures';

const SCREENSHOT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '.output', 'screenshots', 'databases');
/** The cluster's superuser, as e2e/run.ts hands it to the app: only to drop what this journey made if it stopped half-way. */
const CLUSTER_URL = process.env.TEST_TENANT_CLUSTER_URL;

/** The page as it is, at desktop and phone width, for people to look at (e2e/.output/screenshots/databases). */
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

async function availability(page: Page, projectId: string): Promise<{ available: boolean; reason: string | null; pooler: boolean }> {
  const res = await page.request.get(`/v1/projects/${projectId}/databases/shared/availability`);
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { data: { available: boolean; reason: string | null; pooler: boolean } }).data;
}

async function listTenantsViaApi(page: Page, projectId: string): Promise<Tenant[]> {
  const res = await page.request.get(`/v1/projects/${projectId}/databases/shared`);
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { data: Tenant[] }).data;
}

/** A customer's client: TLS required (or, to see it refused, none), one connection, closed after the work. */
async function withClient<T>(uri: string, work: (sql: postgres.Sql) => Promise<T>, { tls = true } = {}): Promise<T> {
  const sql = postgres(uri, { ssl: tls ? 'require' : false, max: 1, connect_timeout: 10, onnotice: () => {} });
  try {
    return await work(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Whether the cluster (or the pooler) lets the string's user in: the refusal's message when it does not. */
async function loginRefusal(uri: string, { tls = true } = {}): Promise<string | null> {
  try {
    await withClient(uri, (sql) => sql`select 1`, { tls });
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** The string without its sslmode, so the client's own setting decides. */
function withoutTls(uri: string): string {
  const url = new URL(uri);
  url.searchParams.delete('sslmode');
  return url.toString();
}

function withPassword(uri: string, password: string): string {
  const url = new URL(uri);
  url.password = password;
  return url.toString();
}

/**
 * The database and the three roles the app made for this journey, dropped on the cluster: a
 * deleted tenant is kept for days for recovery, and the app that would purge it ends with the run.
 * Only names that start with the journey's own random database name are touched.
 */
async function dropJourneyTenant(dbName: string): Promise<void> {
  if (!CLUSTER_URL || !/^e2e_[a-z0-9]+$/.test(dbName)) return;
  const sql = postgres(CLUSTER_URL, { max: 1, onnotice: () => {} });
  try {
    const [database] = await sql`select datname from pg_database where datname = ${dbName}`;
    if (database) await sql.unsafe(`drop database if exists "${dbName}" with (force)`);
    const roles = await sql<{ rolname: string }[]>`
      select rolname from pg_roles where rolname = ${dbName} or rolname ~ ${`^${dbName}_[0-9a-f]{6}(_pool)?$`}
      order by length(rolname) desc`;
    for (const { rolname } of roles) await sql.unsafe(`drop role if exists "${rolname}"`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

test('create a shared PostgreSQL database, connect directly and through the pool, rotate its password, change its tier and delete it', async ({ page }) => {
  test.setTimeout(180_000);
  const owner = newAccount('databases', 'Michael Stonebraker');
  await page.goto('/signup');
  await page.getByLabel('Full name').fill(owner.name);
  await page.getByLabel('Work email').fill(owner.email);
  await page.getByLabel('Password').fill(owner.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/projects$/);
  await verifyEmailViaMailbox(page.request, owner.email);
  const projectId = await createProject(page, `Databases ${Date.now().toString(36)}`);
  const cluster = await availability(page, projectId);
  test.skip(
    !cluster.available,
    `the app has no tenant cluster (${cluster.reason}): run with TEST_TENANT_CLUSTER_URL naming a cluster prepared by scripts/postgres-tenant-cluster.sh`,
  );
  expect(cluster.pooler, 'the journey connects through PgBouncer').toBe(true);
  await addTestCard(page, projectId);
  const dbName = `e2e_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

  try {
    // The list: the area in the navigation, empty, with the tiers and their prices.
    await page.goto(`/projects/${projectId}`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Databases' }).click();
    await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/databases$`));
    await expect(page.getByRole('heading', { level: 1, name: 'Databases' })).toBeVisible();
    await expect(page.getByText('No databases yet')).toBeVisible();
    await expect(page.getByText('Databases cannot be created on this installation')).toHaveCount(0);
    const tiers = page.getByRole('table', { name: 'Database tiers' });
    await expect(tiers.getByRole('row')).toHaveCount(5);
    await expect(tiers.getByRole('row').filter({ hasText: 'Micro' })).toContainText('$5.00/month');
    await expect(tiers.getByRole('row').filter({ hasText: 'Micro' })).toContainText('2 GB');
    await expect(tiers.getByRole('row').filter({ hasText: 'Scale' })).toContainText('$99.00/month');
    await expect(tiers.getByRole('row').filter({ hasText: 'Scale' })).toContainText('50 GB');
    await screenshot(page, 'list-empty');
    await page.getByRole('link', { name: 'New database' }).first().click();
    await expect(page).toHaveURL(/\/databases\/new$/);

    // The form checks the name as it is typed, with the schema's rules.
    const name = page.getByLabel('Database name');
    await name.fill('Acme-App');
    await expect(page.getByText('dbName may hold only lower-case letters, digits and underscores')).toBeVisible();
    await name.fill('pg_acme');
    await expect(page.getByText('dbName must not start with pg_')).toBeVisible();
    await name.fill(dbName);
    await expect(page.getByText('dbName must not start with pg_')).toHaveCount(0);

    const tierChoice = page.getByRole('radiogroup', { name: 'Tier' });
    await expect(tierChoice.getByRole('radio', { name: /Starter/ })).toBeChecked();
    const micro = tierChoice.locator('label').filter({ hasText: 'Micro' });
    await expect(micro).toContainText('$5.00/month');
    await expect(micro).toContainText('2 direct connections');
    await expect(micro).toContainText('Pool of 3');
    await micro.getByRole('radio').check();
    const poolModes = page.getByRole('radiogroup', { name: 'Pool mode' });
    await expect(poolModes.getByRole('radio', { name: /Transaction/ })).toBeChecked();
    await expect(poolModes).toContainText('multi-statement transactions are refused');
    await poolModes.getByRole('radio', { name: /Session/ }).check();
    const summary = page.getByRole('complementary', { name: 'Summary' });
    await expect(summary).toContainText(dbName);
    await expect(summary).toContainText('Session, 3 connections');
    const preview = page.getByRole('region', { name: 'Price preview' });
    await expect(preview).toContainText('$5.00/month');
    await screenshot(page, 'create');
    await page.getByRole('button', { name: /^Create and pay \$/ }).click();

    // The credentials, shown once, each with its copy button.
    const dialog = page.getByRole('dialog', { name: `Database ${dbName} created` });
    await expect(dialog).toContainText('The password is shown only now');
    const user = (await dialog.getByTestId('credentials-user').textContent()) ?? '';
    const password = (await dialog.getByTestId('credentials-password').textContent()) ?? '';
    const uri = (await dialog.getByTestId('credentials-uri').textContent()) ?? '';
    const poolUri = (await dialog.getByTestId('credentials-pool-uri').textContent()) ?? '';
    expect(user).toMatch(new RegExp(`^${dbName}_[0-9a-f]{6}$`));
    expect(password.length).toBeGreaterThanOrEqual(24);
    expect(uri).toMatch(new RegExp(`^postgresql://${user}:${password}@[^/]+:\\d+/${dbName}\\?sslmode=require$`));
    expect(poolUri).toMatch(new RegExp(`^postgresql://${user}:${password}@[^/]+:\\d+/${dbName}\\?sslmode=require$`));
    expect(new URL(poolUri).port).not.toBe(new URL(uri).port);
    await expect(dialog.getByTestId('credentials-psql')).toHaveText(`psql "${uri}"`);
    await expect(dialog.getByRole('button', { name: /^Copy / })).toHaveCount(5);
    await screenshot(page, 'credentials', { fullPage: false });

    // What the customer's application does with them: directly, then through PgBouncer (session mode keeps prepared statements).
    // Without TLS the same login is refused, by the cluster and by the pooler.
    expect(await loginRefusal(withoutTls(uri), { tls: false })).not.toBeNull();
    expect(await loginRefusal(withoutTls(poolUri), { tls: false })).not.toBeNull();
    await withClient(uri, async (sql) => {
      const [where] = await sql<{ db: string }[]>`select current_database() as db`;
      expect(where?.db).toBe(dbName);
      await sql`create table notes (id serial primary key, body text not null)`;
      await sql`insert into notes (body) values (${'written directly'})`;
    });
    await withClient(poolUri, async (sql) => {
      await sql`insert into notes (body) values (${'written through the pool'})`;
      const rows = await sql<{ body: string }[]>`select body from notes order by id`;
      expect(rows.map((row) => row.body)).toEqual(['written directly', 'written through the pool']);
    });

    // The database's page: where to connect, without the password.
    await dialog.getByRole('button', { name: 'I have copied them' }).click();
    await expect(page).toHaveURL(/\/databases\/pdb_[^/?]+$/);
    const tenantUrl = page.url();
    await expect(page.getByRole('heading', { level: 1, name: dbName })).toBeVisible();
    await expect(page.getByText(`Database ${dbName} was created`)).toBeVisible();
    const connection = page.getByRole('region', { name: 'Connection' });
    const bareUri = withPassword(uri, '');
    await expect(connection.getByTestId('db-uri')).toHaveText(bareUri);
    await expect(connection.getByTestId('db-psql')).toHaveText(`psql "${bareUri}"`);
    await expect(connection.getByTestId('db-user')).toHaveText(user);
    await expect(connection.getByTestId('pool-uri')).toHaveText(withPassword(poolUri, ''));
    await expect(connection.getByTestId('pool-port')).toHaveText(new URL(poolUri).port);
    await expect(connection).not.toContainText(password);
    const storage = page.getByRole('region', { name: 'Storage' });
    await expect(storage).toContainText('2 GB');
    // The first reading comes with the database.
    await expect(storage.getByTestId(`storage-${dbName}`)).toContainText('of 2 GB');
    await expect(storage).toContainText('Measured');
    await screenshot(page, 'overview');

    // Rotation: confirmed first, then the new password once; the old one is refused at once, directly and through the pool.
    await page.getByRole('button', { name: 'Rotate password' }).click();
    const rotateConfirm = page.getByRole('alertdialog', { name: `Rotate the password of ${dbName}?` });
    await expect(rotateConfirm).toContainText('every open session of the database, direct and through the pool, is dropped');
    await screenshot(page, 'rotate-confirm', { fullPage: false });
    await rotateConfirm.getByRole('button', { name: 'Rotate password' }).click();
    const rotated = page.getByRole('dialog', { name: `New password for ${dbName}` });
    const newPassword = (await rotated.getByTestId('credentials-password').textContent()) ?? '';
    expect(newPassword).not.toBe(password);
    await expect(rotated.getByTestId('credentials-uri')).toHaveText(withPassword(uri, newPassword));
    await rotated.getByRole('button', { name: 'I have copied them' }).click();
    await expect(rotated).toHaveCount(0);
    expect(await loginRefusal(uri)).toMatch(/password authentication failed/);
    expect(await loginRefusal(poolUri)).toMatch(/password authentication failed|SASL authentication failed/);
    const newUri = withPassword(uri, newPassword);
    const newPoolUri = withPassword(poolUri, newPassword);
    expect(await loginRefusal(newUri)).toBeNull();
    await withClient(newPoolUri, async (sql) => {
      const [notes] = await sql<{ count: number }[]>`select count(*)::int as count from notes`;
      expect(notes?.count).toBe(2);
    });

    // An upgrade to Starter, previewed and charged; the new limits show at once.
    await page
      .getByRole('radiogroup', { name: 'Tier' })
      .getByRole('radio', { name: /Starter/ })
      .check();
    await expect(page.getByRole('region', { name: 'Price preview' })).toContainText('Upgrade to Starter');
    await screenshot(page, 'tier-change');
    await page.getByRole('button', { name: /^Upgrade and pay \$/ }).click();
    await expect(page.getByText(`${dbName} is now on the Starter tier`)).toBeVisible();
    await expect(page.getByRole('region', { name: 'Price preview' })).toHaveCount(0);
    await expect(storage).toContainText('5 GB');
    await expect(page.getByRole('radiogroup', { name: 'Tier' }).locator('label').filter({ hasText: 'current' })).toContainText('Starter');
    await expect(storage.getByTestId(`storage-${dbName}`)).toContainText('of 5 GB');
    await screenshot(page, 'overview-starter');

    // The list shows it before it goes.
    await page.goto(`/projects/${projectId}/databases`);
    const row = page.getByRole('table', { name: 'Databases' }).getByRole('row').filter({ hasText: dbName });
    await expect(row).toContainText('Starter');
    await expect(row).toContainText('Session');
    await expect(row).toContainText(`${new URL(uri).hostname}:${new URL(uri).port}`);
    await expect(row).toContainText('Ready');
    await screenshot(page, 'list');

    // Delete, typing the name; the recovery note says what happens to the data.
    await page.goto(tenantUrl);
    await page.getByRole('button', { name: 'Delete database' }).click();
    const confirm = page.getByRole('alertdialog', { name: `Delete ${dbName}?` });
    await expect(confirm).toContainText('Logins are refused and the pool removed at once; the database is kept for');
    await expect(confirm).toContainText('days for recovery (contact support), then dropped');
    await expect(confirm.getByRole('button', { name: 'Delete this database' })).toBeDisabled();
    await confirm.getByLabel(/to confirm/).fill(dbName);
    await screenshot(page, 'delete-dialog', { fullPage: false });
    await confirm.getByRole('button', { name: 'Delete this database' }).click();
    await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/databases$`));
    await expect(page.getByText(`Database ${dbName} was deleted`)).toBeVisible();
    await expect(page.getByText('No databases yet')).toBeVisible();
    expect(await listTenantsViaApi(page, projectId)).toEqual([]);
    expect(await loginRefusal(newUri)).not.toBeNull();
    expect(await loginRefusal(newPoolUri)).not.toBeNull();
  } finally {
    await dropJourneyTenant(dbName);
  }
});
