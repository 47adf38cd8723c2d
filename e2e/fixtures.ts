import { randomBytes } from 'node:crypto';
import { expect, test as base, type APIRequestContext, type Browser, type Page } from '@playwright/test';

export { expect };

export interface TestAccount {
  name: string;
  email: string;
  password: string;
}

export interface MailboxMessage {
  subject: string;
  text: string;
  links: string[];
}

/** An address no earlier run has used, so each test starts with an account of its own. */
export function uniqueEmail(label: string): string {
  return `${label}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}@example.com`;
}

export function newAccount(label: string, name = 'Ada Lovelace'): TestAccount {
  return { name, email: uniqueEmail(label), password: `pw-${randomBytes(8).toString('hex')}` };
}

/**
 * Creates an account through the public REST endpoint (quicker than the sign-up form) and, unless
 * `verified: false`, verifies its address with the link the dev mailbox shows, as its owner would.
 */
export async function createAccountViaApi(request: APIRequestContext, account: TestAccount, { verified = true } = {}): Promise<void> {
  const res = await request.post('/v1/accounts', { data: { name: account.name, email: account.email, password: account.password } });
  expect(res.status(), await res.text()).toBe(201);
  if (verified) await verifyEmailViaMailbox(request, account.email);
}

/** Opens the newest verification link the dev mailbox holds for the address, through the API the verification page calls. */
export async function verifyEmailViaMailbox(request: APIRequestContext, email: string): Promise<void> {
  const mailbox = await request.get(`/dev/mailbox?to=${encodeURIComponent(email)}`);
  const token = /\/verify-email\/([A-Za-z0-9_-]+)/.exec(await mailbox.text())?.[1];
  expect(token, `no verification link for ${email} in the dev mailbox`).toBeTruthy();
  const verified = await request.post('/v1/accounts/verify-email', { data: { token } });
  expect(verified.status(), await verified.text()).toBe(200);
}

export async function signIn(page: Page, account: Pick<TestAccount, 'email' | 'password'>, callbackUrl?: string): Promise<void> {
  await page.goto(callbackUrl ? `/login?callbackUrl=${encodeURIComponent(callbackUrl)}` : '/login');
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

/** Creates a project through the panel and returns its id (read from the URL it lands on). */
export async function createProject(page: Page, name: string): Promise<string> {
  await page.goto('/projects/new');
  await page.getByLabel('Project name').fill(name);
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
  const match = /\/projects\/([^/?#]+)$/.exec(new URL(page.url()).pathname);
  if (!match?.[1]) throw new Error(`unexpected URL after creating a project: ${page.url()}`);
  return match[1];
}

/** The newest message the dev mailbox holds for an address, read in a page of its own. */
export async function newestMail(browser: Browser, to: string): Promise<MailboxMessage> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const message = page.getByTestId('mail-message').first();
    await expect(async () => {
      await page.goto(`/dev/mailbox?to=${encodeURIComponent(to)}`);
      await expect(message).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 15_000 });
    const links = await message
      .getByTestId('mail-text')
      .locator('a')
      .evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href));
    return {
      subject: (await message.getByTestId('mail-subject').textContent()) ?? '',
      text: (await message.getByTestId('mail-text').textContent()) ?? '',
      links,
    };
  } finally {
    await context.close();
  }
}

/** A fresh account, created before the test; the test decides whether and where to sign in. */
export const test = base.extend<{ account: TestAccount }>({
  account: async ({ request }, use) => {
    const account = newAccount('owner');
    await createAccountViaApi(request, account);
    await use(account);
  },
});
