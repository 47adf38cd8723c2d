import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Schema } from '@cloudpanel/sdk';
import { describe, expect, it } from 'vitest';
import { newWorld } from '../../test/world.ts';
import { EXIT } from '../src/errors.ts';
import { cloud, envFor } from './cli.ts';

/** GET over HTTP with the URL's own Host header: names under .localhost are loopback (RFC 6761), which not every resolver knows. */
function httpGet(address: string): Promise<{ status: number; body: string }> {
  const url = new URL(address);
  const host = url.hostname.endsWith('.localhost') ? '127.0.0.1' : url.hostname;
  return new Promise((resolve, reject) => {
    http
      .get({ host, port: url.port, path: `${url.pathname}${url.search}`, headers: { host: url.host } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      })
      .on('error', reject);
  });
}

describe('cloud hosting', () => {
  it('buys a site, moves text and binary files in and out byte for byte, serves them over HTTP, and manages its domains, databases and tier', async () => {
    const world = await newWorld('hosting');
    const env = envFor(world);
    const name = `c${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
    const local = mkdtempSync(path.join(os.tmpdir(), 'cloud-hosting-'));

    const prices = await cloud(['hosting', 'prices'], { env });
    expect(prices.code, prices.stderr).toBe(0);
    expect(prices.stdout).toMatch(/^TIER\s+MONTHLY\n/);
    expect(prices.stdout).toMatch(/STARTER\s+\$5\.00/);
    const features = await cloud(['hosting', 'features', '--json'], { env });
    expect(features.json()).toMatchObject({ databases: expect.any(Boolean) });
    const preview = await cloud(['hosting', 'preview', '--tier', 'growth', '--json'], { env });
    expect(preview.json()).toMatchObject({ monthly: 1500 });

    // Creation: the database's password is shown this once, with a warning; the SFTP password not at all.
    const created = await cloud(['hosting', 'create', name, '--database', 'main'], { env });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toMatch(/^Charged \$\d+\.\d\d today, then \$5\.00 a month$/m);
    expect(created.stderr).toContain('Save the database password now');
    expect(created.stdout).toMatch(new RegExp(`^Name:\\s+${name}$`, 'm'));
    const site = (await world.client.get('/projects/{projectId}/hosting/shared', { params: { path: { projectId: world.projectId } } })).find(
      (s) => s.siteName === name,
    )!;
    const sitePath = { params: { path: { projectId: world.projectId, tenantId: site.tenantId } } };
    const [database] = await world.client.get('/projects/{projectId}/hosting/shared/{tenantId}/databases', sitePath);
    const { dbPassword } = await world.client.get('/projects/{projectId}/hosting/shared/{tenantId}/databases/{databaseId}', {
      params: { path: { projectId: world.projectId, tenantId: site.tenantId, databaseId: database!.id } },
    });
    expect(created.stdout).toMatch(new RegExp(`^Password:\\s+${dbPassword}$`, 'm'));
    const { sftpPassword } = await world.client.get('/projects/{projectId}/hosting/shared/{tenantId}', {
      params: { ...sitePath.params, query: { credentials: 'true' } },
    });

    const listed = await cloud(['hosting', 'list', '--json'], { env });
    expect(listed.json<Schema<'HostingSite'>[]>()).toEqual([expect.objectContaining({ tenantId: site.tenantId, siteName: name, tier: 'STARTER' })]);
    const got = await cloud(['hosting', 'get', name], { env });
    expect(got.stdout).toMatch(new RegExp(`^URL:\\s+${site.url.replace(/[.]/g, '\\.')}$`, 'm'));
    expect(got.stdout).not.toContain(sftpPassword!);
    const byId = await cloud(['hosting', 'get', site.tenantId, '--json'], { env });
    expect(byId.json()).toMatchObject({ siteName: name });
    expect(byId.json()).not.toHaveProperty('sftpPassword');

    const access = await cloud(['hosting', 'access', name], { env });
    expect(access.stdout).toMatch(new RegExp(`^Connect:\\s+sftp -P ${site.sftp.port} ${name}@${site.sftp.host.replace(/\./g, '\\.')}$`, 'm'));
    expect(access.stdout).not.toContain(sftpPassword!);
    const withPassword = await cloud(['hosting', 'access', name, '--show-password', '--json'], { env });
    expect(withPassword.json()).toMatchObject({ username: name, sftp: { port: site.sftp.port }, sftpPassword });

    // Text goes up and comes back byte for byte: a byte order mark, CRLF line ends and non-ASCII letters included.
    const page = Buffer.from('\uFEFF<!doctype html>\r\n<title>Grüße</title>\r\n<p>héllo ✓</p>\n', 'utf8');
    writeFileSync(path.join(local, 'index.html'), page);
    const script = '<?php echo "php says " . (6 * 7);\n';
    writeFileSync(path.join(local, 'index.php'), script);
    const uploaded = await cloud(['hosting', 'files', 'upload', name, path.join(local, 'index.html'), '/public_html/'], { env });
    expect(uploaded.code, uploaded.stderr).toBe(0);
    expect(uploaded.stdout.trim()).toBe(`Uploaded public_html/index.html (${page.length} bytes)`);
    const php = await cloud(['hosting', 'files', 'upload', name, path.join(local, 'index.php'), 'public_html/index.php', '--json'], { env });
    expect(php.json()).toMatchObject({ path: 'public_html/index.php', type: 'file', size: script.length });
    const piped = await cloud(['hosting', 'files', 'upload', name, '-', 'public_html/robots.txt'], { env, stdin: 'User-agent: *\nDisallow:\n' });
    expect(piped.code, piped.stderr).toBe(0);

    const downloaded = path.join(local, 'back.html');
    const download = await cloud(['hosting', 'files', 'download', name, 'public_html/index.html', downloaded], { env });
    expect(download.code, download.stderr).toBe(0);
    expect(readFileSync(downloaded).equals(page)).toBe(true);
    const toStdout = await cloud(['hosting', 'files', 'download', name, 'public_html/robots.txt', '-'], { env });
    expect(toStdout.stdout).toBe('User-agent: *\nDisallow:\n');

    // Binary files go up and come back as they are, to a file or to stdout.
    const logo = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, ...Array.from({ length: 3000 }, (_, i) => (i * 31) % 256)]);
    writeFileSync(path.join(local, 'logo.png'), logo);
    const binary = await cloud(['hosting', 'files', 'upload', name, path.join(local, 'logo.png'), 'public_html/img/'], { env });
    expect(binary.code).toBe(EXIT.notFound);
    expect((await cloud(['hosting', 'files', 'mkdir', name, 'public_html/img'], { env })).code).toBe(0);
    const sent = await cloud(['hosting', 'files', 'upload', name, path.join(local, 'logo.png'), 'public_html/img/', '--json'], { env });
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.json()).toMatchObject({ path: 'public_html/img/logo.png', size: logo.length });
    const back = path.join(local, 'logo-back.png');
    const binaryRead = await cloud(['hosting', 'files', 'download', name, 'public_html/img/logo.png', back, '--json'], { env });
    expect(binaryRead.json()).toEqual({ path: 'public_html/img/logo.png', size: logo.length, destination: back });
    expect(readFileSync(back).equals(logo)).toBe(true);
    const binaryOut = await cloud(['hosting', 'files', 'download', name, 'public_html/img/logo.png', '-'], { env });
    expect(binaryOut.stdoutBytes.equals(logo)).toBe(true);
    const folderRead = await cloud(['hosting', 'files', 'download', name, 'public_html', '-'], { env });
    expect(folderRead.code).toBe(EXIT.rejected);
    expect(folderRead.stderr).toMatch(/^Error: BAD_REQUEST: "public_html" is a folder/);
    expect(folderRead.stderr).not.toContain('SFTP');
    expect((await cloud(['hosting', 'files', 'rm', name, 'public_html/img', '--yes'], { env })).code).toBe(0);

    // nginx and PHP serve what was uploaded, at the site's own address.
    const served = await httpGet(site.url);
    expect(served).toEqual({ status: 200, body: 'php says 42' });
    const html = await httpGet(`${site.url}/index.html`);
    expect(html.status).toBe(200);
    expect(Buffer.from(html.body, 'utf8').equals(page)).toBe(true);

    const ls = await cloud(['hosting', 'files', 'ls', name, 'public_html'], { env });
    expect(ls.stdout).toMatch(/^NAME\s+TYPE\s+SIZE\s+MODIFIED\n/);
    expect(ls.stdout).toMatch(new RegExp(`^index\\.html\\s+file\\s+${page.length}\\s`, 'm'));
    const home = await cloud(['hosting', 'files', 'ls', name, '--json'], { env });
    expect(home.json()).toEqual([expect.objectContaining({ name: 'public_html', type: 'directory' })]);
    expect((await cloud(['hosting', 'files', 'mkdir', name, 'public_html/old'], { env })).code).toBe(0);
    const moved = await cloud(['hosting', 'files', 'mv', name, 'public_html/index.html', 'public_html/old/index.html', '--json'], { env });
    expect(moved.json()).toMatchObject({ path: 'public_html/old/index.html', size: page.length });
    const refusedRm = await cloud(['hosting', 'files', 'rm', name, 'public_html/old'], { env });
    expect(refusedRm.code).toBe(EXIT.usage);
    expect((await cloud(['hosting', 'files', 'rm', name, 'public_html/old', '--yes'], { env })).code).toBe(0);
    const left = await world.client.get('/projects/{projectId}/hosting/shared/{tenantId}/files', {
      params: { ...sitePath.params, query: { path: 'public_html' } },
    });
    expect(left.map((e) => e.name).sort()).toEqual(['index.php', 'robots.txt']);

    // Domains: the DNS records to make; a redirect; the whole behaviour replaced; detached.
    const hostname = `shop-${name}.example.com`;
    const attached = await cloud(['hosting', 'domains', 'attach', name, hostname], { env });
    expect(attached.code, attached.stderr).toBe(0);
    expect(attached.stdout).toMatch(new RegExp(`^CNAME\\s+${hostname.replace(/\./g, '\\.')}\\s+${name}\\.`, 'm'));
    expect(attached.stdout).toMatch(new RegExp(`^TXT\\s+_panel-site-verify\\.${hostname.replace(/\./g, '\\.')}\\s+\\w+`, 'm'));
    const redirect = await cloud(['hosting', 'domains', 'attach', name, `old-${hostname}`, '--redirect-to', `https://${hostname}`, '--json'], { env });
    expect(redirect.json()).toMatchObject({ hostname: `old-${hostname}`, instructions: { recordType: 'CNAME' } });
    const domainList = await cloud(['hosting', 'domains', 'list', name], { env });
    expect(domainList.stdout).toMatch(/^ID\s+HOSTNAME\s+KIND\s+BEHAVIOUR\s+ROUTING/);
    expect(domainList.stdout).toContain(`301 → https://${hostname}`);
    expect(domainList.stdout).toContain(`serves ${hostname}/public_html`);
    const replaced = await cloud(['hosting', 'domains', 'replace', name, hostname, '--kind', 'parked', '--json'], { env });
    expect(replaced.json()).toMatchObject({ hostname, kind: 'PARKED', documentRoot: null });
    const mixed = await cloud(['hosting', 'domains', 'replace', name, hostname, '--kind', 'SITE', '--redirect-to', 'https://example.org'], { env });
    expect(mixed.code).toBe(EXIT.rejected);
    expect((await cloud(['hosting', 'domains', 'detach', name, `old-${hostname}`, '--yes'], { env })).code).toBe(0);
    const domains = await world.client.get('/projects/{projectId}/hosting/shared/{tenantId}/domains', sitePath);
    expect(domains.map((d) => [d.hostname, d.kind])).toEqual([[hostname, 'PARKED']]);

    // Databases: the password at creation only.
    const blog = await cloud(['hosting', 'databases', 'create', name, 'blog', '--json'], { env });
    expect(blog.code, blog.stderr).toBe(0);
    const blogDb = blog.json<{ id: string; dbName: string; dbPassword: string }>();
    expect(blogDb).toMatchObject({ dbName: `${name}_blog`, dbPassword: expect.any(String) });
    const shown = await cloud(['hosting', 'databases', 'get', name, 'blog'], { env });
    expect(shown.stdout).toMatch(new RegExp(`^Database:\\s+${name}_blog$`, 'm'));
    expect(shown.stdout).not.toContain(blogDb.dbPassword);
    const shownJson = await cloud(['hosting', 'databases', 'get', name, blogDb.id, '--json'], { env });
    expect(shownJson.json()).toMatchObject({ id: blogDb.id, dbUser: expect.any(String) });
    expect(shownJson.stdout).not.toContain(blogDb.dbPassword);
    const dbList = await cloud(['hosting', 'databases', 'list', name], { env });
    expect(dbList.stdout).toMatch(/^ID\s+NAME\s+DATABASE\s+USER\s+HOST/);
    expect(dbList.stdout).not.toContain(dbPassword);
    expect((await cloud(['hosting', 'databases', 'delete', name, 'blog', '--yes'], { env })).code).toBe(0);
    expect((await world.client.get('/projects/{projectId}/hosting/shared/{tenantId}/databases', sitePath)).map((d) => d.name)).toEqual(['main']);

    const tierPreview = await cloud(['hosting', 'change-tier', name, 'GROWTH', '--preview', '--json'], { env });
    expect(tierPreview.json()).toMatchObject({ direction: 'upgrade', currentMonthly: 500, monthly: 1500 });
    const upgraded = await cloud(['hosting', 'change-tier', name, 'GROWTH'], { env });
    expect(upgraded.code, upgraded.stderr).toBe(0);
    expect(upgraded.stderr).toMatch(/^Charged \$\d+\.\d\d today, then \$15\.00 a month$/m);
    expect(await world.client.get('/projects/{projectId}/hosting/shared/{tenantId}', sitePath)).toMatchObject({ tier: 'GROWTH', limits: { phpWorkers: 5 } });

    // Refusals: a name any site has (409), a key without the hosting scopes (403), no card (402).
    const taken = await cloud(['hosting', 'create', name], { env });
    expect(taken.code).toBe(EXIT.rejected);
    expect(taken.stderr).toMatch(/^Error: CONFLICT: /);
    const serversOnly = await world.keyWith(['servers:read', 'servers:write']);
    const forbidden = await cloud(['hosting', 'list'], { env: { ...env, CLOUD_API_KEY: serversOnly } });
    expect(forbidden.code).toBe(EXIT.auth);
    expect(forbidden.stderr).toMatch(/^Error: FORBIDDEN: /);
    const cardless = await newWorld('hosting-nocard', { card: false });
    const unpaid = await cloud(['hosting', 'create', `${name}_x`, '--json'], { env: envFor(cardless) });
    expect(unpaid.code).toBe(EXIT.payment);
    expect(JSON.parse(unpaid.stderr)).toMatchObject({ error: { status: 402, code: 'ORG_PAYMENT_METHOD_REQUIRED' } });

    const unconfirmed = await cloud(['hosting', 'delete', name], { env });
    expect(unconfirmed.code).toBe(EXIT.usage);
    expect(unconfirmed.stderr).toContain('--yes');
    const deleted = await cloud(['hosting', 'delete', name, '--yes', '--json'], { env });
    expect(deleted.json()).toEqual({ deleted: true });
    const gone = await cloud(['hosting', 'get', site.tenantId], { env });
    expect(gone.code).toBe(EXIT.notFound);
    expect(gone.stderr).toMatch(/^Error: NOT_FOUND: /);
    expect((await httpGet(site.url)).status).toBe(404);
  });
});
