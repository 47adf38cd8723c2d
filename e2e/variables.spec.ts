import { createAccountViaApi, createProject, expect, newAccount, newestMail, signIn, test } from './fixtures';

test('add and edit a variable, import .env files with and without overwrite, see the effective set, delete', async ({ page, account }) => {
  await signIn(page, account);
  const projectId = await createProject(page, `Variables ${Date.now().toString(36)}`);

  await page.goto(`/projects/${projectId}`);
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Variables' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/variables$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Variables' })).toBeVisible();
  await expect(page.getByText('No variables in Default')).toBeVisible();

  // Create
  const addForm = page.getByRole('form', { name: 'Add a variable' });
  await addForm.getByLabel('Name').fill('api url');
  await addForm.getByLabel('Value').fill('https://api.example.com');
  await addForm.getByRole('button', { name: 'Add variable' }).click();
  await expect(addForm.getByText('Name must be upper-case letters, digits and underscores, starting with a letter')).toBeVisible();
  await addForm.getByLabel('Name').fill('API_URL');
  await addForm.getByLabel('Description').fill('Where the app calls');
  await addForm.getByRole('button', { name: 'Add variable' }).click();
  const defaults = page.getByRole('table', { name: 'Variables in Default' });
  const apiRow = defaults.getByRole('row', { name: /API_URL/ });
  await expect(apiRow).toContainText('https://api.example.com');
  await expect(apiRow).toContainText('Where the app calls');
  await expect(page.getByRole('tab', { name: /Default/ })).toContainText('1');

  // The same name again in the same environment is refused on the field.
  await addForm.getByLabel('Name').fill('API_URL');
  await addForm.getByLabel('Value').fill('again');
  await addForm.getByRole('button', { name: 'Add variable' }).click();
  await expect(addForm.getByText('A variable named API_URL already exists in default')).toBeVisible();
  await addForm.getByLabel('Name').fill('');
  await addForm.getByLabel('Value').fill('');

  // Edit in place
  await apiRow.getByRole('button', { name: 'Edit API_URL' }).click();
  const editing = defaults.getByRole('row', { name: /Save/ });
  await editing.getByRole('textbox', { name: 'Value' }).fill('https://api.v2.example.com');
  await editing.getByRole('textbox', { name: 'Description' }).fill('');
  await editing.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('API_URL was saved')).toBeVisible();
  await expect(apiRow).toContainText('https://api.v2.example.com');
  await expect(apiRow).not.toContainText('Where the app calls');

  // Import into Default: a bad file is refused by line, then API_URL is skipped unless overwrite is chosen.
  await page.getByRole('button', { name: 'Import .env' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Import a .env file' });
  await expect(dialog.getByLabel('Into environment')).toHaveValue('default');
  await dialog.getByLabel('Contents').fill('DEBUG=false\nlower_case=1\nDEBUG=true\n');
  await dialog.getByRole('button', { name: 'Preview' }).click();
  const problems = dialog.getByRole('list', { name: 'Problems in the file' });
  await expect(problems).toContainText('Line 2');
  await expect(problems).toContainText('Line 3 DEBUG is already set on line 1');

  await dialog.getByLabel('Contents').fill('# shared\nexport API_URL="https://api.example.net"\nDEBUG=false\nGREETING="hello\\nworld"\n');
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByTestId('preview-created')).toContainText('Created · 2');
  await expect(dialog.getByTestId('preview-created')).toContainText('DEBUG, GREETING');
  await expect(dialog.getByTestId('preview-skipped')).toContainText('API_URL');
  await dialog.getByLabel('Replace values of names that already exist').check();
  await expect(dialog.getByRole('region', { name: 'Import preview' })).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByTestId('preview-updated')).toContainText('Updated · 1');
  await expect(dialog.getByTestId('preview-updated')).toContainText('API_URL');
  await dialog.getByRole('button', { name: 'Import 3 variables' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('3 variables imported into Default')).toBeVisible();
  await expect(apiRow).toContainText('https://api.example.net');
  await expect(defaults.getByRole('row', { name: /GREETING/ })).toContainText('hello\nworld');

  // Import a chosen file into Production.
  await page.getByRole('tab', { name: /Production/ }).click();
  await expect(page.getByText('No variables in Production')).toBeVisible();
  await page.getByRole('button', { name: 'Import .env' }).first().click();
  await expect(dialog.getByLabel('Into environment')).toHaveValue('production');
  await dialog.getByLabel('Choose a .env file').setInputFiles({
    name: 'production.env',
    mimeType: 'text/plain',
    buffer: Buffer.from('API_URL=https://api.prod.example.com\nLOG_LEVEL=warn # quiet\n'),
  });
  await expect(dialog.getByLabel('Contents')).toHaveValue(/LOG_LEVEL=warn/);
  await dialog.getByRole('button', { name: 'Preview' }).click();
  await expect(dialog.getByTestId('preview-created')).toContainText('API_URL, LOG_LEVEL');
  await dialog.getByRole('button', { name: 'Import 2 variables' }).click();
  const production = page.getByRole('table', { name: 'Variables in Production' });
  await expect(production.getByRole('row', { name: /LOG_LEVEL/ })).toContainText('warn');
  await expect(production.getByRole('row')).toHaveCount(3);

  // The effective set of Production: its own entries over the default ones.
  await page.getByRole('button', { name: 'Effective' }).click();
  const effective = page.getByRole('table', { name: 'Effective variables in Production' });
  await expect(effective.getByRole('row', { name: /API_URL/ })).toContainText('https://api.prod.example.com');
  await expect(effective.getByRole('row', { name: /API_URL/ })).toContainText('Production');
  await expect(effective.getByRole('row', { name: /DEBUG/ })).toContainText('Default');
  await expect(effective.getByRole('row', { name: /GREETING/ })).toContainText('Default');
  await expect(effective.getByRole('row', { name: /LOG_LEVEL/ })).toContainText('Production');

  // Delete Production's API_URL: the default one applies there again.
  await page.getByRole('button', { name: 'Set here' }).click();
  await production.getByRole('button', { name: 'Delete API_URL' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete API_URL?' });
  await expect(confirm).toContainText('receives the default entry of this name instead');
  await confirm.getByRole('button', { name: 'Delete variable' }).click();
  await expect(page.getByText('API_URL was deleted')).toBeVisible();
  await expect(production.getByRole('row', { name: /API_URL/ })).toHaveCount(0);
  await page.getByRole('button', { name: 'Effective' }).click();
  await expect(effective.getByRole('row', { name: /API_URL/ })).toContainText('https://api.example.net');
  await expect(effective.getByRole('row', { name: /API_URL/ })).toContainText('Default');
});

test('a viewer reads variables and their effective set but is offered no way to change them', async ({ page, browser, request, account: owner }) => {
  await signIn(page, owner);
  const projectName = `Read only ${Date.now().toString(36)}`;
  const projectId = await createProject(page, projectName);
  const origin = new URL(page.url()).origin;
  const write = async (path: string, data: unknown) => {
    const res = await page.request.post(path, { data, headers: { Origin: origin } });
    expect(res.ok(), await res.text()).toBe(true);
  };
  await write(`/v1/projects/${projectId}/variables`, { name: 'API_URL', value: 'https://api.example.com' });
  const viewer = newAccount('viewer', 'Vera Viewer');
  await createAccountViaApi(request, viewer);
  await write(`/v1/projects/${projectId}/invitations`, { email: viewer.email, role: 'viewer' });
  const link = (await newestMail(browser, viewer.email)).links.find((l) => l.includes('/invitations/'))!;

  const context = await browser.newContext();
  const viewerPage = await context.newPage();
  await signIn(viewerPage, viewer, new URL(link).pathname);
  await viewerPage.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(viewerPage.getByRole('heading', { level: 1, name: projectName })).toBeVisible();

  await viewerPage.goto(`/projects/${projectId}/variables`);
  const table = viewerPage.getByRole('table', { name: 'Variables in Default' });
  await expect(table.getByRole('row', { name: /API_URL/ })).toContainText('https://api.example.com');
  await expect(viewerPage.getByRole('button', { name: 'Import .env' })).toHaveCount(0);
  await expect(table.getByRole('button')).toHaveCount(0);
  await expect(viewerPage.getByRole('form', { name: 'Add a variable' })).toHaveCount(0);
  await viewerPage.getByRole('tab', { name: /Staging/ }).click();
  await expect(viewerPage.getByText('Members of the project can add variables.')).toBeVisible();
  await viewerPage.getByRole('button', { name: 'Effective' }).click();
  await expect(viewerPage.getByRole('table', { name: 'Effective variables in Staging' }).getByRole('row', { name: /API_URL/ })).toContainText('Default');
  await context.close();
});
