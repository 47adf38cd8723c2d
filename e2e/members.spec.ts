import { createAccountViaApi, createProject, expect, newAccount, newestMail, signIn, test } from './fixtures';

test('invite a teammate, who signs up and accepts, becomes a viewer and cannot manage API keys; the owner deletes the project', async ({
  page,
  browser,
  account: owner,
}) => {
  await signIn(page, owner);
  const projectName = `Team ${Date.now().toString(36)}`;
  const projectId = await createProject(page, projectName);

  const teammate = newAccount('teammate', 'Katherine Johnson');
  await page.goto(`/projects/${projectId}/members`);
  await page.getByLabel('Email').fill(teammate.email);
  await page.getByLabel('Role', { exact: true }).selectOption('member');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  const pending = page.getByRole('table', { name: 'Pending invitations' });
  await expect(pending.getByText(teammate.email)).toBeVisible();

  const mail = await newestMail(browser, teammate.email);
  expect(mail.subject).toContain(projectName);
  const invitationLink = mail.links.find((link) => link.includes('/invitations/'));
  expect(invitationLink, mail.text).toBeTruthy();

  const teammateContext = await browser.newContext();
  const teammatePage = await teammateContext.newPage();
  await teammatePage.goto(invitationLink!);
  await expect(teammatePage.getByText(`invited you to join ${projectName}`)).toBeVisible();
  await teammatePage.getByRole('link', { name: 'Create an account' }).click();
  await teammatePage.getByLabel('Full name').fill(teammate.name);
  await teammatePage.getByLabel('Work email').fill(teammate.email);
  await teammatePage.getByLabel('Password').fill(teammate.password);
  await teammatePage.getByRole('button', { name: 'Create account' }).click();
  await expect(teammatePage).toHaveURL(new RegExp(`/invitations/`));
  await teammatePage.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(teammatePage.getByRole('heading', { level: 1, name: projectName })).toBeVisible();

  await page.reload();
  const members = page.getByRole('table', { name: 'Members' });
  await expect(members.getByText(teammate.email)).toBeVisible();
  await expect(page.getByText('No pending invitations')).toBeVisible();
  await members.getByLabel(`Role of ${teammate.name}`).selectOption('viewer');
  await expect(page.getByText(`${teammate.name} is now viewer`)).toBeVisible();

  await teammatePage.goto(`/projects/${projectId}/api-keys`);
  await expect(teammatePage.getByText('API keys are managed by owners and admins')).toBeVisible();
  await expect(teammatePage.getByRole('button', { name: 'Create API key' })).toHaveCount(0);
  await teammateContext.close();

  await page.goto(`/projects/${projectId}/settings`);
  await page.getByRole('button', { name: 'Delete project' }).click();
  const confirm = page.getByRole('alertdialog', { name: `Delete ${projectName}?` });
  const confirmButton = confirm.getByRole('button', { name: 'Delete this project' });
  await expect(confirmButton).toBeDisabled();
  await confirm.getByLabel(/to confirm/).fill(projectName);
  await confirmButton.click();
  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.getByText('Create your first project')).toBeVisible();
});

test('an invitation for someone else cannot be accepted by the signed-in account', async ({ page, browser, request, account: owner }) => {
  await signIn(page, owner);
  const projectId = await createProject(page, `Guarded ${Date.now().toString(36)}`);
  const invitee = newAccount('invitee');
  await page.goto(`/projects/${projectId}/members`);
  await page.getByLabel('Email').fill(invitee.email);
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByRole('table', { name: 'Pending invitations' }).getByText(invitee.email)).toBeVisible();
  const link = (await newestMail(browser, invitee.email)).links.find((l) => l.includes('/invitations/'))!;

  const stranger = newAccount('stranger');
  await createAccountViaApi(request, stranger);
  const strangerContext = await browser.newContext();
  const strangerPage = await strangerContext.newPage();
  await signIn(strangerPage, stranger, new URL(link).pathname);
  await strangerPage.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(strangerPage.getByText('This invitation was sent to another email address')).toBeVisible();
  await strangerContext.close();
});
