import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import postgres from 'postgres';
import { appDatabaseUrl } from './billingClock';
import { createProject, expect, signIn, test } from './fixtures';
import { addTestCard } from './serverFixtures';

const UPLOAD = 'hello from the object storage journey\n';

/**
 * Usage is measured again on a visit only once the last measurement is 5 minutes old, and the
 * bucket's page measured it before the upload; this ages that measurement instead of waiting.
 */
async function ageUsageMeasurement(bucketId: string): Promise<void> {
  if (!appDatabaseUrl) throw new Error('E2E_APP_DATABASE_URL is not set: run the suite with E2E_DATABASE_URL');
  const sql = postgres(appDatabaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`update buckets set usage_measured_at = usage_measured_at - interval '10 minutes' where id = ${bucketId}`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

test('create a bucket in the panel, upload through its S3 endpoint with a credential made there, see the usage, upgrade it and delete it', async ({
  page,
  account,
}) => {
  test.skip(!appDatabaseUrl, 'ages the usage measurement in the app database: run with E2E_DATABASE_URL');
  test.setTimeout(120_000);
  await signIn(page, account);
  const projectId = await createProject(page, `Storage ${Date.now().toString(36)}`);
  await addTestCard(page, projectId);
  const bucketName = `e2e-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

  await page.goto(`/projects/${projectId}/object-storage`);
  await expect(page.getByText('No buckets yet')).toBeVisible();
  await expect(page.getByText('Development S3 endpoint: not for production data')).toBeVisible();
  await page.getByRole('link', { name: 'Create bucket' }).first().click();
  await expect(page).toHaveURL(/\/object-storage\/new$/);

  const name = page.getByLabel('Bucket name');
  await name.fill('Uploads_1');
  await expect(page.getByText('Bucket names are lower-case letters, digits and hyphens')).toBeVisible();
  await name.fill(bucketName);
  await expect(page.getByText('Bucket names are lower-case letters, digits and hyphens')).toHaveCount(0);

  await page
    .getByRole('radiogroup', { name: 'Region' })
    .getByRole('radio', { name: /Frankfurt/ })
    .check();
  const starter = page.getByRole('radiogroup', { name: 'Tier' }).locator('label').filter({ hasText: 'STARTER' });
  await expect(starter).toContainText('$5.00/month');
  await expect(starter).toContainText('250 GB storage');
  await starter.getByRole('radio').check();
  await expect(page.getByRole('switch', { name: /CDN/ })).toBeDisabled();

  const dueToday = page.getByRole('region', { name: 'Price preview' }).getByTestId('preview-due-today');
  await expect(dueToday).toContainText('$');
  const createButton = page.getByRole('button', { name: /^Create and pay \$/ });
  await expect(createButton).toBeEnabled();
  await createButton.click();

  await expect(page).toHaveURL(new RegExp(`/object-storage/bkt_[^/]+$`), { timeout: 30_000 });
  const bucketId = page.url().split('/').at(-1)!;
  await expect(page.getByRole('heading', { level: 1 })).toContainText(bucketName);
  await expect(page.getByText('Active').first()).toBeVisible();
  const endpointUrl = (await page.getByTestId('s3-endpoint-url').textContent())!;
  const region = (await page.getByTestId('s3-region').textContent())!;
  expect(endpointUrl).toMatch(/^https?:\/\//);
  await expect(page.getByTestId('s3-path-style')).toContainText('Path-style');
  await expect(page.getByTestId('usage-objects')).toContainText('0 objects');

  await page.getByRole('button', { name: 'New credential' }).click();
  const dialog = page.getByRole('dialog', { name: 'New credential' });
  await dialog.getByLabel('Name').fill('journey-uploader');
  await expect(dialog.getByRole('radio', { name: /This bucket/ })).toBeChecked();
  await dialog.getByRole('radio', { name: /Read and write/ }).check();
  await dialog.getByRole('button', { name: 'Create credential' }).click();
  const command = (await page.getByTestId('new-credential-command').textContent())!;
  const keys = /^AWS_ACCESS_KEY_ID=(\S+) AWS_SECRET_ACCESS_KEY=(\S+) aws --endpoint-url (\S+) s3 cp file s3:\/\/(\S+)\/$/.exec(command);
  expect(keys, command).not.toBeNull();
  const [, accessKeyId, secretAccessKey, commandEndpoint, commandBucket] = keys!;
  expect(commandEndpoint).toBe(endpointUrl);
  expect(commandBucket).toBe(bucketName);
  await page.getByRole('button', { name: 'I have copied it' }).click();
  await expect(page.getByRole('table', { name: 'Storage credentials' })).toContainText('journey-uploader');

  const s3 = new S3Client({
    endpoint: endpointUrl,
    region,
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: { accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey! },
  });
  try {
    await s3.send(new PutObjectCommand({ Bucket: bucketName, Key: 'hello.txt', Body: UPLOAD, ContentType: 'text/plain' }));
  } finally {
    s3.destroy();
  }

  await ageUsageMeasurement(bucketId);
  await page.reload();
  await expect(page.getByTestId('usage-objects')).toContainText('1 object');
  const storage = page.getByTestId('usage-storage');
  await expect(storage).toHaveAttribute('data-value', String(Buffer.byteLength(UPLOAD)));
  await expect(storage).toContainText(`${Buffer.byteLength(UPLOAD)} B of 250 GB`);

  const tiers = page.getByRole('radiogroup', { name: 'Tier' });
  await tiers.getByRole('radio', { name: /Growth/ }).check();
  await expect(page.getByRole('region', { name: 'Price preview' })).toContainText('Upgrade to Growth');
  await expect(page.getByRole('region', { name: 'Price preview' }).getByTestId('preview-due-today')).toContainText('$');
  await page.getByRole('button', { name: /^Upgrade and pay \$/ }).click();
  await expect(page.getByText(`${bucketName} is now on the Growth tier`)).toBeVisible();
  await expect(page.getByText(/^Growth tier in Frankfurt/)).toBeVisible();
  await expect(page.getByTestId('usage-storage')).toContainText('of 1 TB');

  await page.getByRole('button', { name: 'Delete bucket' }).click();
  const confirm = page.getByRole('alertdialog');
  await confirm.getByLabel(/to confirm/).fill(bucketName);
  await confirm.getByRole('button', { name: 'Delete this bucket' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/object-storage$`));
  await expect(page.getByText('No buckets yet')).toBeVisible();
});
