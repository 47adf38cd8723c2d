import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, readlink, symlink, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { restApi } from '../../server/app';
import { MAX_TEXT_BYTES, MAX_TRANSFER_BYTES, type FileEntry, type PlacedEntry, type TextFile } from '../../server/domains/hosting/files';
import { hostingRoot, siteHome } from '../../server/domains/hosting/paths';
import { hostingSuspension } from '../../server/domains/hosting/suspension';
import { queryRows } from '../db';
import { api, createApiKey, createUser, expectError, ORIGIN, type TestUser } from '../helpers';
import { addMember } from '../membersHelpers';
import { paidProject } from './serverFixtures';

const SECRET = `canary-${process.pid}-${Date.now()}`;
let counter = 0;
const uniqueSite = () => `f${process.pid}_${Date.now().toString(36)}_${counter++}`;

interface SiteFixture {
  owner: TestUser;
  projectId: string;
  tenantId: string;
  siteName: string;
  home: string;
  files: string;
}

async function createSite(owner: TestUser, projectId: string): Promise<SiteFixture> {
  const siteName = uniqueSite();
  const res = await api<{ tenantId: string }>('POST', `/v1/projects/${projectId}/hosting/shared`, { cookie: owner.cookie, body: { siteName } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const { tenantId } = res.data;
  return { owner, projectId, tenantId, siteName, home: siteHome(siteName), files: `/v1/projects/${projectId}/hosting/shared/${tenantId}/files` };
}

async function paidSite(): Promise<SiteFixture> {
  const { owner, projectId } = await paidProject();
  return createSite(owner, projectId);
}

/** The raw routes take bodies that are not JSON, so they are called as an HTTP client would. */
async function upload(
  site: SiteFixture,
  folder: string,
  name: string,
  body: BodyInit | null,
  options: { cookie?: string; key?: string; headers?: Record<string, string>; rawQuery?: string } = {},
) {
  const query = options.rawQuery ?? `path=${encodeURIComponent(folder)}&name=${encodeURIComponent(name)}`;
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream', ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  else {
    headers.cookie = options.cookie ?? site.owner.cookie;
    headers.origin = ORIGIN;
  }
  const init: RequestInit & { duplex?: 'half' } = { method: 'POST', headers, body };
  if (body instanceof ReadableStream) init.duplex = 'half';
  const res = await restApi.handleFetch(new Request(`${ORIGIN}${site.files}/upload?${query}`, init));
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as { success: boolean; data?: PlacedEntry; error?: { code: string; message: string } },
  };
}

async function download(site: SiteFixture, query: string, credentials: { cookie?: string; key?: string } = { cookie: site.owner.cookie }) {
  const headers: Record<string, string> = credentials.key ? { authorization: `Bearer ${credentials.key}` } : { cookie: credentials.cookie! };
  return restApi.handleFetch(new Request(`${ORIGIN}${site.files}/download?${query}`, { headers }));
}

/** `size` bytes generated as they are read: 64 MB is never held in memory. */
function generatedBody(size: number): ReadableStream<Uint8Array> {
  const CHUNK = 1 << 20;
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= size) {
        controller.close();
        return;
      }
      const n = Math.min(CHUNK, size - sent);
      sent += n;
      controller.enqueue(new Uint8Array(n).fill(0x61));
    },
  });
}

/** Every entry under `root` (links not followed): type, size, mode, mtime and, for files, content hash. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (folder: string) => {
    for (const name of await readdir(folder)) {
      const entry = path.join(folder, name);
      const stats = await lstat(entry);
      const rel = path.relative(root, entry);
      if (stats.isSymbolicLink()) out[rel] = `link ${await readlink(entry)}`;
      else if (stats.isDirectory()) {
        out[rel] = `dir ${stats.mode} ${stats.mtimeMs}`;
        await walk(entry);
      } else
        out[rel] = `file ${stats.size} ${stats.mode} ${stats.mtimeMs} ${createHash('sha256')
          .update(await readFile(entry))
          .digest('hex')}`;
    }
  };
  await walk(root);
  return out;
}

describe('hosting files: the traversal suite', () => {
  let site: SiteFixture;
  let sibling: SiteFixture;
  let sitesDir: string;
  let decoyEtc: string;

  beforeAll(async () => {
    site = await paidSite();
    sibling = await createSite(site.owner, site.projectId);
    sitesDir = path.dirname(site.home);
    decoyEtc = path.join(path.dirname(hostingRoot()), 'decoy-etc');
    // Canaries next to the homes, above them, in the sibling site, and in a stand-in for /etc.
    await writeFile(path.join(sitesDir, 'CANARY.txt'), SECRET);
    await writeFile(path.join(hostingRoot(), 'CANARY.txt'), SECRET);
    await mkdir(path.join(sitesDir, 'canary-dir'), { recursive: true });
    await writeFile(path.join(sitesDir, 'canary-dir', 'inside.txt'), SECRET);
    await writeFile(path.join(sibling.home, 'canary.txt'), SECRET);
    await mkdir(decoyEtc, { recursive: true });
    await writeFile(path.join(decoyEtc, 'passwd'), `root:x:0:0:${SECRET}`);
    // Links planted in the home, as PHP running in the site could plant them.
    await symlink('/etc', path.join(site.home, 'etc-link'));
    await symlink('/etc/passwd', path.join(site.home, 'passwd-link'));
    await symlink(decoyEtc, path.join(site.home, 'decoy-etc-link'));
    await symlink(path.join(decoyEtc, 'passwd'), path.join(site.home, 'decoy-passwd-link'));
    await symlink(sibling.home, path.join(site.home, 'sibling-link'));
    await symlink(path.join(sibling.home, 'canary.txt'), path.join(site.home, 'sibling-file'));
    await symlink('..', path.join(site.home, 'up'));
    await symlink('../..', path.join(site.home, 'public_html', 'parent-link'));
    await symlink('../nowhere', path.join(site.home, 'dangling'));
  });

  /**
   * Where the payloads aim for the system's files. Reads aim at the real /etc; writes at a copy
   * outside the homes, because tests may run as root and a regression must not be able to
   * rename, overwrite or delete the real /etc/passwd of the machine running them (it did once).
   */
  interface EtcTarget {
    dir: string;
    link: string;
    passwdLink: string;
  }
  const realEtc: EtcTarget = { dir: '/etc', link: 'etc-link', passwdLink: 'passwd-link' };
  const decoy = (): EtcTarget => ({ dir: decoyEtc, link: 'decoy-etc-link', passwdLink: 'decoy-passwd-link' });

  /** Decoded as the server sees it: sent percent-encoded in queries and as is in JSON. */
  function hostilePaths(etc: EtcTarget): string[] {
    const s = sibling.siteName;
    const passwd = `${etc.dir}/passwd`;
    const fromRoot = passwd.slice(1);
    const ups = [
      '../',
      '..\\',
      '%2e%2e%2f',
      '%2e%2e/',
      '..%2f',
      '%2E%2E%2F',
      '%2e%2e%5c',
      '..%5c',
      '%252e%252e%252f',
      '%25252e%25252e%25252f',
      '.%2e/',
      '%2e./',
      '..%c0%af',
      '%c0%ae%c0%ae/',
      '%e0%80%ae%e0%80%ae/',
      '\u2025/',
      '\uFF0E\uFF0E/',
      '\uFF0E\uFF0E\uFF0F',
      '\uFE52\uFE52/',
      '....//',
      '.../',
      '.. /',
      '. ./',
      '..%00/',
      '..\u0000/',
      '..%0a/',
    ];
    // Eight levels up from public_html reach / wherever the data folder is.
    const traversals = ups.flatMap((up) => [`${up}${s}/canary.txt`, `${up.repeat(2)}CANARY.txt`, `public_html/${up.repeat(8)}${fromRoot}`]);
    return [
      ...traversals,
      passwd,
      '/',
      `/${passwd}`,
      `${sibling.home}/canary.txt`,
      `${site.home}/../${s}/canary.txt`,
      'C:\\Windows\\win.ini',
      'C:/Windows/win.ini',
      'c:..\\..\\CANARY.txt',
      '\\\\server\\share\\CANARY.txt',
      passwd.replaceAll('/', '\\'),
      `file://${passwd}`,
      encodeURIComponent(passwd),
      encodeURIComponent(passwd).replaceAll('%2F', '%5c'),
      'public_html/index.php\u0000.txt',
      'public_html/index.php%00.txt',
      '\u0000',
      '.',
      '..',
      '...',
      '. ',
      '.. ',
      ' ..',
      '..\t',
      'public_html/.',
      'public_html/..',
      'public_html/...',
      'public_html/index.php.',
      'public_html/index.php ',
      'public_html//index.php',
      'public_html/',
      '\u2025',
      '\uFF0E\uFF0E',
      'public_html\uFF0F..\uFF0F..\uFF0FCANARY.txt',
      'public_html\u2215..\u2215CANARY.txt',
      'a'.repeat(256),
      'a/'.repeat(600),
      `${'../'.repeat(400)}${fromRoot}`,
      'x'.repeat(5000),
      etc.link,
      `${etc.link}/passwd`,
      `${etc.link}/new.txt`,
      `${etc.link}/`,
      etc.passwdLink,
      'sibling-link',
      'sibling-link/canary.txt',
      'sibling-link/new.txt',
      'sibling-file',
      'up',
      `up/${s}/canary.txt`,
      'up/CANARY.txt',
      'up/new.txt',
      'public_html/parent-link',
      `public_html/parent-link/sites/${s}/canary.txt`,
      'public_html/parent-link/CANARY.txt',
      'public_html/parent-link/new-folder',
      'dangling',
      'dangling/new.txt',
      'public_html/\u202Egnp.php',
    ];
  }

  /** Sent unencoded in queries, so the router's own decoding turns them into what they mean. */
  function rawQueryPaths(etc: EtcTarget): string[] {
    const passwd = `${etc.dir}/passwd`;
    return [
      '..%2f..%2fCANARY.txt',
      '%2e%2e%2f%2e%2e%2fCANARY.txt',
      '%252e%252e%252f%252e%252e%252fCANARY.txt',
      '%c0%ae%c0%ae%c0%af%c0%ae%c0%ae%c0%afCANARY.txt',
      '%00',
      'public_html%2findex.php%00.txt',
      '..%5c..%5cCANARY.txt',
      '%ef%bc%8e%ef%bc%8e%2f%ef%bc%8e%ef%bc%8e%2fCANARY.txt',
      encodeURIComponent(passwd),
      `public_html%2F${'..%2F'.repeat(8)}${encodeURIComponent(passwd.slice(1))}`,
    ];
  }

  interface Op {
    name: string;
    procedure: boolean;
    /** Whether it changes anything: such operations aim at the stand-in for /etc. */
    mutates: boolean;
    /** Whether the path travels in the query (decoded once by the router) rather than in JSON. */
    inQuery: boolean;
    call: (query: string, value: string) => Promise<{ status: number; text: string }>;
  }

  function operations(): Op[] {
    const cookie = site.owner.cookie;
    const viaApi = async (method: string, url: string, body?: unknown) => {
      const res = await api(method, url, { cookie, body });
      return { status: res.status, text: JSON.stringify(res.body) };
    };
    const uploadCall = (query: (q: string) => string) => async (q: string) => {
      const res = await upload(site, '', '', `pwned ${SECRET}`, { rawQuery: query(q) });
      return { status: res.status, text: JSON.stringify(res.body) };
    };
    return [
      { name: 'list', procedure: true, mutates: false, inQuery: true, call: (q) => viaApi('GET', `${site.files}?path=${q}`) },
      { name: 'read', procedure: true, mutates: false, inQuery: true, call: (q) => viaApi('GET', `${site.files}/content?path=${q}`) },
      {
        name: 'download',
        procedure: false,
        mutates: false,
        inQuery: true,
        call: async (q) => {
          const res = await download(site, `path=${q}`);
          return { status: res.status, text: await res.text() };
        },
      },
      {
        name: 'write',
        procedure: true,
        mutates: true,
        inQuery: false,
        call: (_q, v) => viaApi('PUT', `${site.files}/content`, { path: v, content: `pwned ${SECRET}` }),
      },
      { name: 'create folder', procedure: true, mutates: true, inQuery: false, call: (_q, v) => viaApi('POST', `${site.files}/folders`, { path: v }) },
      {
        name: 'rename from',
        procedure: true,
        mutates: true,
        inQuery: false,
        call: (_q, v) => viaApi('POST', `${site.files}/rename`, { from: v, to: 'moved.txt' }),
      },
      {
        name: 'rename to',
        procedure: true,
        mutates: true,
        inQuery: false,
        call: (_q, v) => viaApi('POST', `${site.files}/rename`, { from: 'public_html/index.php', to: v }),
      },
      { name: 'delete', procedure: true, mutates: true, inQuery: true, call: (q) => viaApi('DELETE', `${site.files}?path=${q}`) },
      { name: 'upload into', procedure: false, mutates: true, inQuery: true, call: uploadCall((q) => `path=${q}&name=x.txt`) },
      { name: 'upload as', procedure: false, mutates: true, inQuery: true, call: uploadCall((q) => `path=&name=${q}`) },
    ];
  }

  it('refuses every hostile path on every operation with 400 or 404, and nothing anywhere is read or changed', async () => {
    expect(new Set(hostilePaths(realEtc)).size).toBeGreaterThanOrEqual(100);
    const watched = [sitesDir, decoyEtc];
    const before = await Promise.all(watched.map(snapshot));
    const passwd = await readFile('/etc/passwd', 'utf8');
    const passwdLine = passwd.split('\n')[0]!;
    const failures: string[] = [];
    let sent = 0;
    const check = (op: Op, label: string, value: string, answer: { status: number; text: string }) => {
      sent += 1;
      // The platform refuses text PostgreSQL cannot store (NUL) in every procedure input with 422, before any service runs.
      const allowed = op.procedure && value.includes('\u0000') ? [422] : [400, 404];
      if (!allowed.includes(answer.status)) failures.push(`${op.name} ${label}: ${answer.status} ${answer.text.slice(0, 200)}`);
      if (answer.text.includes(SECRET) || answer.text.includes(passwdLine) || answer.text.includes(hostingRoot())) {
        failures.push(`${op.name} ${label}: the answer leaks ${answer.text.slice(0, 200)}`);
      }
    };
    for (const op of operations()) {
      const etc = op.mutates ? decoy() : realEtc;
      for (const value of hostilePaths(etc)) check(op, JSON.stringify(value).slice(0, 80), value, await op.call(encodeURIComponent(value), value));
      for (const raw of rawQueryPaths(etc)) {
        // In a query the router decodes the text once; in JSON it arrives literally.
        const value = op.inQuery ? new URLSearchParams(`v=${raw}`).get('v')! : raw;
        check(op, `raw ${raw}`, value, await op.call(raw, raw));
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(1000);
    expect(await Promise.all(watched.map(snapshot))).toEqual(before);
    expect(await readFile(path.join(hostingRoot(), 'CANARY.txt'), 'utf8')).toBe(SECRET);
    expect(await readFile('/etc/passwd', 'utf8')).toBe(passwd);
    expect(await readFile(path.join(sibling.home, 'canary.txt'), 'utf8')).toBe(SECRET);
  }, 300_000);

  it('still works through a link that stays inside the home', async () => {
    await symlink('public_html', path.join(site.home, 'web'));
    const listed = await api<FileEntry[]>('GET', `${site.files}?path=web`, { cookie: site.owner.cookie });
    expect(listed.data.map((e) => e.name)).toContain('index.php');
    const read = await api<TextFile>('GET', `${site.files}/content?path=web/index.php`, { cookie: site.owner.cookie });
    expect(read.data.content).toContain('<?php');
  });
});

describe('hosting files: the file manager over HTTP', () => {
  it('lists, writes, reads, makes folders, renames and deletes', async () => {
    const site = await paidSite();
    const { cookie } = site.owner;
    const home = await api<FileEntry[]>('GET', site.files, { cookie });
    expect(home.data.map((e) => [e.name, e.type])).toEqual([['public_html', 'directory']]);

    const folder = await api<PlacedEntry>('POST', `${site.files}/folders`, { cookie, body: { path: 'public_html/app' } });
    expect(folder.data).toMatchObject({ path: 'public_html/app', name: 'app', type: 'directory', size: 0 });
    expectError(await api('POST', `${site.files}/folders`, { cookie, body: { path: 'public_html/app' } }), 409, 'CONFLICT');
    expectError(await api('POST', `${site.files}/folders`, { cookie, body: { path: 'nope/app' } }), 404, 'NOT_FOUND');

    const written = await api<PlacedEntry>('PUT', `${site.files}/content`, {
      cookie,
      body: { path: 'public_html/app/hello.php', content: '<?php echo "héllo";' },
    });
    expect(written.data).toMatchObject({ path: 'public_html/app/hello.php', name: 'hello.php', type: 'file', size: 20 });
    const read = await api<TextFile>('GET', `${site.files}/content?path=${encodeURIComponent('public_html/app/hello.php')}`, { cookie });
    expect(read.data).toMatchObject({ path: 'public_html/app/hello.php', content: '<?php echo "héllo";', size: 20 });
    expect(await readFile(path.join(site.home, 'public_html', 'app', 'hello.php'), 'utf8')).toBe('<?php echo "héllo";');

    const listing = await api<FileEntry[]>('GET', `${site.files}?path=public_html`, { cookie });
    expect(listing.data.map((e) => e.name)).toEqual(['app', 'index.php']);

    const moved = await api<PlacedEntry>('POST', `${site.files}/rename`, { cookie, body: { from: 'public_html/app', to: 'app' } });
    expect(moved.data).toMatchObject({ path: 'app', type: 'directory' });
    expectError(await api('POST', `${site.files}/rename`, { cookie, body: { from: 'app', to: 'public_html' } }), 409, 'CONFLICT');
    expectError(await api('POST', `${site.files}/rename`, { cookie, body: { from: 'app', to: 'app/inner' } }), 400, 'BAD_REQUEST');

    expectError(await api('DELETE', `${site.files}?path=`, { cookie }), 400, 'BAD_REQUEST');
    expect((await api('DELETE', `${site.files}?path=app`, { cookie })).data).toEqual({ deleted: true });
    expectError(await api('GET', `${site.files}/content?path=app/hello.php`, { cookie }), 404, 'NOT_FOUND');
    expect((await api<FileEntry[]>('GET', site.files, { cookie })).data.map((e) => e.name)).toEqual(['public_html']);
  });

  it('uploads and downloads a file as raw bytes, with a safe attachment name', async () => {
    const site = await paidSite();
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    const name = 'r\u00e9sum\u00e9 "final";\r\n.bin';
    expect((await upload(site, 'public_html', name, bytes)).status).toBe(400);
    const fine = 'r\u00e9sum\u00e9 "final"; v2.bin';
    const placed = await upload(site, 'public_html', fine, bytes);
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    expect(placed.body.data).toMatchObject({ path: `public_html/${fine}`, name: fine, type: 'file', size: bytes.length });
    const res = await download(site, `path=${encodeURIComponent(`public_html/${fine}`)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    const disposition = res.headers.get('content-disposition')!;
    expect(disposition).toBe(`attachment; filename="r_sum_ _final__ v2.bin"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22%3B%20v2.bin`);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
    // A text file that is not UTF-8 is refused by the editor but downloads as it is.
    expectError(await api('GET', `${site.files}/content?path=${encodeURIComponent(`public_html/${fine}`)}`, { cookie: site.owner.cookie }), 400, 'BAD_REQUEST');
  });

  it('refuses an upload that is not an octet stream, lacks a name, or targets a missing folder', async () => {
    const site = await paidSite();
    const json = await upload(site, 'public_html', 'a.txt', '{}', { headers: { 'content-type': 'application/json' } });
    expect(json.status).toBe(415);
    expect(json.body.error?.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const form = { headers: { 'content-type': 'multipart/form-data; boundary=x' } };
    // A form body with a session cookie is what a forged cross-site request sends: the platform refuses it first.
    expect((await upload(site, 'public_html', 'a.txt', 'x', form)).status).toBe(403);
    const key = await createApiKey(site.owner, site.projectId, ['hosting:read', 'hosting:write']);
    expect((await upload(site, 'public_html', 'a.txt', 'x', { ...form, key: key.key })).status).toBe(415);
    expect((await upload(site, '', '', 'x', { rawQuery: 'path=public_html' })).status).toBe(422);
    expect((await upload(site, 'missing', 'a.txt', 'x')).status).toBe(404);
    expect((await download(site, '')).status).toBe(422);
  });

  it('records uploads in the audit log', async () => {
    const site = await paidSite();
    expect((await upload(site, '', 'a.txt', 'x')).status).toBe(200);
    const entries = await queryRows<{ action: string; outcome: string; targets: Record<string, string> }>(
      sql`select action, outcome, targets from audit_entries where project_id = ${site.projectId} and action = 'hostingFiles.upload'`,
    );
    expect(entries).toEqual([{ action: 'hostingFiles.upload', outcome: 'ok', targets: { projectId: site.projectId, tenantId: site.tenantId } }]);
  });

  it('lets a viewer and a read key download but not upload; a servers key reaches neither', async () => {
    const site = await paidSite();
    await writeFile(path.join(site.home, 'a.txt'), 'hello');
    const viewer = await createUser();
    await addMember(site.owner, site.projectId, viewer, 'viewer');
    expect((await download(site, 'path=a.txt', { cookie: viewer.cookie })).status).toBe(200);
    expect((await upload(site, '', 'b.txt', 'x', { cookie: viewer.cookie })).status).toBe(403);
    const readKey = await createApiKey(site.owner, site.projectId, ['hosting:read']);
    expect((await download(site, 'path=a.txt', { key: readKey.key })).status).toBe(200);
    expect((await upload(site, '', 'b.txt', 'x', { key: readKey.key })).status).toBe(403);
    const writeKey = await createApiKey(site.owner, site.projectId, ['hosting:read', 'hosting:write']);
    expect((await upload(site, '', 'b.txt', 'x', { key: writeKey.key })).status).toBe(200);
    const serversKey = await createApiKey(site.owner, site.projectId, ['servers:read', 'servers:write']);
    expect((await download(site, 'path=a.txt', { key: serversKey.key })).status).toBe(403);
    expect((await upload(site, '', 'c.txt', 'x', { key: serversKey.key })).status).toBe(403);
    expect((await restApi.handleFetch(new Request(`${ORIGIN}${site.files}/download?path=a.txt`))).status).toBe(401);
    // Another project's site is not found, even for its own owner's other project.
    const other = await paidSite();
    const crossed = await restApi.handleFetch(
      new Request(`${ORIGIN}/v1/projects/${site.projectId}/hosting/shared/${other.tenantId}/files/download?path=public_html/index.php`, {
        headers: { cookie: site.owner.cookie },
      }),
    );
    expect(crossed.status).toBe(404);
  });

  it('while the site is suspended, reads and downloads still work and changes are refused with 402', async () => {
    const site = await paidSite();
    await hostingSuspension.suspend(site.projectId);
    const { cookie } = site.owner;
    expect((await api('GET', `${site.files}/content?path=public_html/index.php`, { cookie })).status).toBe(200);
    expect((await download(site, 'path=public_html/index.php')).status).toBe(200);
    expectError(await api('PUT', `${site.files}/content`, { cookie, body: { path: 'a.txt', content: 'x' } }), 402, 'PROJECT_SUSPENDED');
    expect((await upload(site, '', 'a.txt', 'x')).status).toBe(402);
    expectError(await api('DELETE', `${site.files}?path=public_html`, { cookie }), 402, 'PROJECT_SUSPENDED');
    await hostingSuspension.resume(site.projectId);
  });
});

describe('hosting files: limits at the boundary', () => {
  let site: SiteFixture;
  beforeAll(async () => {
    site = await paidSite();
  });

  it('writes and reads exactly 1 MB of text, and refuses 1 MB + 1', async () => {
    const { cookie } = site.owner;
    const exact = await api<PlacedEntry>('PUT', `${site.files}/content`, { cookie, body: { path: 'max.txt', content: 'm'.repeat(MAX_TEXT_BYTES) } });
    expect(exact.data.size).toBe(MAX_TEXT_BYTES);
    expect((await api<TextFile>('GET', `${site.files}/content?path=max.txt`, { cookie })).data.content).toHaveLength(MAX_TEXT_BYTES);
    expectError(
      await api('PUT', `${site.files}/content`, { cookie, body: { path: 'over.txt', content: 'm'.repeat(MAX_TEXT_BYTES + 1) } }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    await writeFile(path.join(site.home, 'over.txt'), Buffer.alloc(MAX_TEXT_BYTES + 1, 0x6d));
    expectError(await api('GET', `${site.files}/content?path=over.txt`, { cookie }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('uploads exactly 64 MB streamed and downloads it back; refuses 64 MB + 1 and removes the partial file', async () => {
    const exact = await upload(site, '', 'max.bin', generatedBody(MAX_TRANSFER_BYTES));
    expect(exact.status, JSON.stringify(exact.body)).toBe(200);
    expect(exact.body.data?.size).toBe(MAX_TRANSFER_BYTES);
    const res = await download(site, 'path=max.bin');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(MAX_TRANSFER_BYTES));
    let received = 0;
    const reader = res.body!.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) received += read.value.length;
    expect(received).toBe(MAX_TRANSFER_BYTES);

    const over = await upload(site, '', 'over.bin', generatedBody(MAX_TRANSFER_BYTES + 1));
    expect(over.status).toBe(413);
    expect(over.body.error?.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await readdir(site.home)).filter((n) => n === 'over.bin' || n.endsWith('.part'))).toEqual([]);

    await writeFile(path.join(site.home, 'over.bin'), '');
    await truncate(path.join(site.home, 'over.bin'), MAX_TRANSFER_BYTES + 1);
    const tooBig = await download(site, 'path=over.bin');
    expect(tooBig.status).toBe(413);
  });

  it('refuses an announced Content-Length over 64 MB before reading the body', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(1024));
        if (pulled > 4) controller.close();
      },
    });
    const res = await upload(site, '', 'announced.bin', body, { headers: { 'content-length': String(MAX_TRANSFER_BYTES + 1) } });
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThanOrEqual(1);
    expect((await readdir(site.home)).filter((n) => n.startsWith('announced') || n.endsWith('.part'))).toEqual([]);
  });

  it('refuses writes past the disk quota and removes the partial upload', async () => {
    const quota = await api<{ limits: { diskGb: number } }>('GET', `/v1/projects/${site.projectId}/hosting/shared/${site.tenantId}`, {
      cookie: site.owner.cookie,
    });
    const quotaBytes = quota.data.limits.diskGb * 1_000_000_000;
    // A sparse file counts its full size towards the quota without using the disk.
    const used = (await readdir(site.home, { recursive: true, withFileTypes: true })).filter((d) => d.isFile()).map((d) => path.join(d.parentPath, d.name));
    let usage = 0;
    for (const file of used) usage += (await lstat(file)).size;
    await writeFile(path.join(site.home, 'ballast'), '');
    await truncate(path.join(site.home, 'ballast'), quotaBytes - usage - 1000);

    const over = await upload(site, '', 'big.bin', generatedBody(5000));
    expect(over.status).toBe(413);
    expect(over.body.error?.message).toMatch(/quota/);
    expect((await readdir(site.home)).filter((n) => n.startsWith('big') || n.endsWith('.part'))).toEqual([]);
    expectError(
      await api('PUT', `${site.files}/content`, { cookie: site.owner.cookie, body: { path: 'big.txt', content: 'q'.repeat(1001) } }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expect((await upload(site, '', 'fits.bin', generatedBody(1000))).status).toBe(200);
  });
});
