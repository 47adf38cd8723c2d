import { createProject, expect, newAccount, newestMail, signIn, test } from './fixtures';

test('reset a forgotten password through the emailed link', async ({ page, browser, account }) => {
  await page.goto('/login');
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await expect(page.getByRole('heading', { name: 'Reset your password' })).toBeVisible();
  await page.getByLabel('Email').fill(account.email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByText('Check your inbox')).toBeVisible();

  const mail = await newestMail(browser, account.email);
  expect(mail.subject).toBe('Reset your password');
  const resetLink = mail.links.find((link) => link.includes('/reset-password/'));
  expect(resetLink, mail.text).toBeTruthy();

  const newPassword = `${account.password}-renewed`;
  await page.goto(resetLink!);
  await page.getByLabel('New password', { exact: true }).fill(newPassword);
  await page.getByLabel('Confirm new password').fill(`${newPassword}-typo`);
  await page.getByRole('button', { name: 'Set new password' }).click();
  await expect(page.getByText('The passwords do not match')).toBeVisible();
  await page.getByLabel('Confirm new password').fill(newPassword);
  await page.getByRole('button', { name: 'Set new password' }).click();
  await expect(page).toHaveURL(/\/login\?reset=1/);
  await expect(page.getByText('Your password has been changed')).toBeVisible();

  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('The email or password is not correct.')).toBeVisible();

  await signIn(page, { email: account.email, password: newPassword });
  await expect(page).toHaveURL(/\/projects$/);

  await page.goto(resetLink!);
  await page.getByLabel('New password', { exact: true }).fill(`${newPassword}-again`);
  await page.getByLabel('Confirm new password').fill(`${newPassword}-again`);
  await page.getByRole('button', { name: 'Set new password' }).click();
  await expect(page.getByText(/invalid, already used or expired/)).toBeVisible();
});

test('rename the account, change the password and stay signed in; sign out', async ({ page, account }) => {
  await signIn(page, account);
  await page.goto('/account');
  await page.getByLabel('Name').fill('Ada King');
  await page.getByRole('button', { name: 'Save name' }).click();
  await expect(page.getByText('Your name is now Ada King')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Account menu for Ada King' })).toBeVisible();

  await page.getByLabel('Current password').fill('not-the-password');
  await page.getByLabel('New password', { exact: true }).fill('a-brand-new-password');
  await page.getByLabel('Confirm new password').fill('a-brand-new-password');
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('The current password is not correct')).toBeVisible();

  await page.getByLabel('Current password').fill(account.password);
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('Password changed.')).toBeVisible();
  await page.goto('/projects');
  await expect(page.getByRole('heading', { level: 1, name: 'Projects' })).toBeVisible();

  await page.getByRole('button', { name: 'Account menu for Ada King' }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto('/projects');
  await expect(page).toHaveURL(/\/login/);

  await signIn(page, { email: account.email, password: 'a-brand-new-password' });
  await expect(page).toHaveURL(/\/projects$/);
});

test('sign up, see the address unverified, verify it from the dev mailbox, then accept an invitation', async ({ page, browser, account: owner }) => {
  const newcomer = newAccount('newcomer', 'Grace Hopper');
  const ownerContext = await browser.newContext();
  const ownerPage = await ownerContext.newPage();
  await signIn(ownerPage, owner);
  const projectName = `Verified ${Date.now().toString(36)}`;
  const projectId = await createProject(ownerPage, projectName);
  await ownerPage.goto(`/projects/${projectId}/members`);
  await ownerPage.getByLabel('Email').fill(newcomer.email);
  await ownerPage.getByRole('button', { name: 'Send invitation' }).click();
  await expect(ownerPage.getByRole('table', { name: 'Pending invitations' }).getByText(newcomer.email)).toBeVisible();
  const invitationPath = new URL((await newestMail(browser, newcomer.email)).links.find((link) => link.includes('/invitations/'))!).pathname;
  await ownerContext.close();

  await page.goto('/signup');
  await page.getByLabel('Full name').fill(newcomer.name);
  await page.getByLabel('Work email').fill(newcomer.email);
  await page.getByLabel('Password').fill(newcomer.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/projects$/);
  const banner = page.getByRole('status', { name: 'Email address not verified' });
  await expect(banner).toContainText(`Open the link we sent to ${newcomer.email}`);

  // Without the link's secret, an address nobody has verified cannot take the invitation.
  await page.goto(invitationPath);
  await page.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(page.getByText('Verify your email address first')).toBeVisible();
  await page.goto('/invitations');
  await expect(page.getByText('Verify your email address to see your invitations')).toBeVisible();
  await page.goto('/account');
  await expect(page.getByRole('region', { name: 'Email address' }).getByText('Not verified')).toBeVisible();
  await banner.getByRole('button', { name: 'Resend verification email' }).click();
  await expect(page.getByText(`We sent a new verification link to ${newcomer.email}`)).toBeVisible();

  const mail = await newestMail(browser, newcomer.email);
  expect(mail.subject).toBe('Confirm your email address');
  const verifyLink = mail.links.find((link) => link.includes('/verify-email/'));
  expect(verifyLink, mail.text).toBeTruthy();
  await page.goto(verifyLink!);
  await expect(page.getByText('Your email address is verified')).toBeVisible();
  await page.getByRole('link', { name: 'Continue to the panel' }).click();
  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.getByRole('status', { name: 'Email address not verified' })).toHaveCount(0);
  await page.goto('/account');
  await expect(page.getByRole('region', { name: 'Email address' }).getByText('Verified', { exact: true })).toBeVisible();

  await page.getByRole('link', { name: '1 pending invitation' }).click();
  await page
    .getByRole('article', { name: `Invitation to ${projectName}` })
    .getByRole('button', { name: 'Accept' })
    .click();
  await expect(page.getByRole('heading', { level: 1, name: projectName })).toBeVisible();

  // The link has done its work: opened again it says so, and to someone signed out it is not valid.
  await page.goto(verifyLink!);
  await expect(page.getByText('Your email address is already verified')).toBeVisible();
  const anonymous = await browser.newContext();
  const anonymousPage = await anonymous.newPage();
  await anonymousPage.goto(verifyLink!);
  await expect(anonymousPage.getByText('This link is not valid')).toBeVisible();
  await expect(anonymousPage.getByRole('link', { name: 'Sign in to send a new link' })).toBeVisible();
  await anonymous.close();
});

test('ten wrong passwords pause the sign-in of the account, the right one included, and the page says for how long', async ({ page, account }) => {
  await page.goto('/login');
  await page.getByLabel('Email').fill(account.email);
  const password = page.getByLabel('Password', { exact: true });
  const submit = page.getByRole('button', { name: 'Sign in' });
  for (let i = 0; i < 10; i += 1) {
    await password.fill(`wrong-password-${i}`);
    await submit.click();
    await expect(page.getByText('The email or password is not correct.')).toBeVisible();
  }
  await password.fill(account.password);
  await submit.click();
  await expect(page.getByText('Sign-in paused')).toBeVisible();
  await expect(page.getByText(/Too many failed attempts for this account or from your network\. Try again in \d+ (seconds?|minutes?), or reset/)).toBeVisible();
  await expect(page).toHaveURL(/\/login/);
});
