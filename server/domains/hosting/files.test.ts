import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, realpath, rm, stat, symlink, truncate, utimes, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../platform/errors';
import {
  createFolder,
  deletePath,
  homeUsageBytes,
  listEntries,
  MAX_TEXT_BYTES,
  MAX_TRANSFER_BYTES,
  openDownload,
  readText,
  renamePath,
  uploadStream,
  writeText,
} from './files';

const QUOTA = 10_000_000;
let root: string;
let home: string;
let sibling: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'files-')));
  home = path.join(root, 'alpha');
  sibling = path.join(root, 'beta');
  await mkdir(path.join(home, 'public_html'), { recursive: true });
  await mkdir(sibling);
  await writeFile(path.join(home, 'public_html', 'index.php'), '<?php echo "hi";');
  await writeFile(path.join(sibling, 'canary.txt'), 'canary');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).message).not.toContain(root);
  return (err as AppError).code;
}

/** A stream of `size` bytes made as it is read, never held whole. */
function generated(size: number, chunk = 1 << 20): Readable {
  let sent = 0;
  const block = Buffer.alloc(chunk, 0x61);
  return new Readable({
    read() {
      if (sent >= size) return void this.push(null);
      const n = Math.min(chunk, size - sent);
      sent += n;
      this.push(n === chunk ? block : block.subarray(0, n));
    },
  });
}

const leftovers = async (folder: string) => (await readdir(folder)).filter((name) => name.endsWith('.part'));

describe('listEntries', () => {
  it('lists folders first, then by name, with types and sizes', async () => {
    await writeFile(path.join(home, 'b.txt'), '12345');
    await writeFile(path.join(home, 'A.txt'), '');
    await mkdir(path.join(home, 'zeta'));
    await symlink('public_html', path.join(home, 'web'));
    const entries = await listEntries(home, '');
    expect(entries.map((e) => [e.name, e.type, e.size])).toEqual([
      ['public_html', 'directory', 0],
      ['zeta', 'directory', 0],
      ['A.txt', 'file', 0],
      ['b.txt', 'file', 5],
      ['web', 'symlink', 0],
    ]);
    expect(Date.parse(entries[0]!.modifiedAt)).not.toBeNaN();
  });

  it('lists through a link inside the home, and refuses files, missing folders and links out', async () => {
    await symlink('public_html', path.join(home, 'web'));
    expect((await listEntries(home, 'web')).map((e) => e.name)).toEqual(['index.php']);
    expect(await codeOf(listEntries(home, 'public_html/index.php'))).toBe('BAD_REQUEST');
    expect(await codeOf(listEntries(home, 'missing'))).toBe('NOT_FOUND');
    await symlink(sibling, path.join(home, 'out'));
    expect(await codeOf(listEntries(home, 'out'))).toBe('BAD_REQUEST');
  });
});

describe('readText', () => {
  it('reads UTF-8 text whole, keeping a byte order mark', async () => {
    await writeFile(path.join(home, 'bom.txt'), '\uFEFFhéllo');
    const file = await readText(home, 'bom.txt');
    expect(file).toMatchObject({ path: 'bom.txt', content: '\uFEFFhéllo', size: 9 });
  });

  it('reads exactly 1 MB and refuses 1 MB + 1 with 413', async () => {
    await writeFile(path.join(home, 'max.txt'), Buffer.alloc(MAX_TEXT_BYTES, 0x62));
    expect((await readText(home, 'max.txt')).content).toHaveLength(MAX_TEXT_BYTES);
    await writeFile(path.join(home, 'over.txt'), Buffer.alloc(MAX_TEXT_BYTES + 1, 0x62));
    expect(await codeOf(readText(home, 'over.txt'))).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses bytes that are not UTF-8, NUL bytes, folders and missing files', async () => {
    await writeFile(path.join(home, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await writeFile(path.join(home, 'overlong.txt'), Buffer.from([0xc0, 0xae]));
    await writeFile(path.join(home, 'binary.bin'), Buffer.from([0x50, 0x00, 0x4b]));
    for (const name of ['latin1.txt', 'overlong.txt', 'binary.bin', 'public_html']) expect(await codeOf(readText(home, name))).toBe('BAD_REQUEST');
    expect(await codeOf(readText(home, 'none.txt'))).toBe('NOT_FOUND');
  });
});

describe('writeText', () => {
  it('creates a file atomically and reads it back', async () => {
    const written = await writeText(home, 'public_html/new.php', '<?php // é', QUOTA);
    expect(written).toMatchObject({ path: 'public_html/new.php', name: 'new.php', type: 'file', size: 11 });
    expect(await readFile(path.join(home, 'public_html', 'new.php'), 'utf8')).toBe('<?php // é');
    expect(await leftovers(path.join(home, 'public_html'))).toEqual([]);
  });

  it('replaces a file keeping its mode, and writes through a link inside the home', async () => {
    await chmod(path.join(home, 'public_html', 'index.php'), 0o600);
    await writeText(home, 'public_html/index.php', 'v2', QUOTA);
    const stats = await stat(path.join(home, 'public_html', 'index.php'));
    expect(stats.mode & 0o777).toBe(0o600);
    await symlink('public_html/index.php', path.join(home, 'index-link'));
    const written = await writeText(home, 'index-link', 'v3', QUOTA);
    expect(written).toMatchObject({ path: 'index-link', type: 'file', size: 2 });
    expect(await readFile(path.join(home, 'public_html', 'index.php'), 'utf8')).toBe('v3');
    expect((await lstat(path.join(home, 'index-link'))).isSymbolicLink()).toBe(true);
  });

  it('dates a replacement after the file it replaces, even within the same second, so PHP runs the new code', async () => {
    const target = path.join(home, 'public_html', 'fresh.php');
    await writeText(home, 'public_html/fresh.php', '<?php echo 1;', QUOTA);
    const inTheFuture = new Date(Math.ceil(Date.now() / 1000) * 1000 + 5_000);
    await utimes(target, inTheFuture, inTheFuture);
    await writeText(home, 'public_html/fresh.php', '<?php echo 2;', QUOTA);
    expect((await stat(target)).mtimeMs).toBe(inTheFuture.getTime() + 1000);
    await utimes(target, new Date(0), new Date(0));
    const before = Date.now();
    await writeText(home, 'public_html/fresh.php', '<?php echo 3;', QUOTA);
    expect((await stat(target)).mtimeMs).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(await readFile(target, 'utf8')).toBe('<?php echo 3;');
  });

  it('accepts exactly 1 MB and refuses 1 MB + 1 with 413', async () => {
    await writeText(home, 'max.txt', 'c'.repeat(MAX_TEXT_BYTES), QUOTA);
    expect((await stat(path.join(home, 'max.txt'))).size).toBe(MAX_TEXT_BYTES);
    expect(await codeOf(writeText(home, 'over.txt', 'c'.repeat(MAX_TEXT_BYTES + 1), QUOTA))).toBe('PAYLOAD_TOO_LARGE');
    expect(await codeOf(writeText(home, 'multi.txt', 'é'.repeat(MAX_TEXT_BYTES / 2 + 1), QUOTA))).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses a missing folder, a folder as target, a link out, and the quota', async () => {
    expect(await codeOf(writeText(home, 'missing/new.txt', 'x', QUOTA))).toBe('NOT_FOUND');
    expect(await codeOf(writeText(home, 'public_html', 'x', QUOTA))).toBe('BAD_REQUEST');
    await symlink(path.join(sibling, 'canary.txt'), path.join(home, 'out'));
    expect(await codeOf(writeText(home, 'out', 'pwned', QUOTA))).toBe('BAD_REQUEST');
    expect(await readFile(path.join(sibling, 'canary.txt'), 'utf8')).toBe('canary');
    const used = await homeUsageBytes(home);
    expect(await codeOf(writeText(home, 'big.txt', 'x'.repeat(100), used + 99))).toBe('PAYLOAD_TOO_LARGE');
    await writeText(home, 'fits.txt', 'x'.repeat(100), used + 100);
    // Replacing counts only the growth.
    await writeText(home, 'fits.txt', 'y'.repeat(100), used + 100);
  });
});

describe('openDownload', () => {
  it('streams a file with its size and the name the customer used', async () => {
    await symlink('public_html/index.php', path.join(home, 'alias.php'));
    const download = await openDownload(home, 'alias.php');
    expect(download.name).toBe('alias.php');
    expect(download.size).toBe(16);
    const chunks: Buffer[] = [];
    for await (const chunk of download.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('<?php echo "hi";');
  });

  it('handles an empty file', async () => {
    await writeFile(path.join(home, 'empty'), '');
    const download = await openDownload(home, 'empty');
    expect(download.size).toBe(0);
    expect((await download.stream.toArray()).length).toBe(0);
  });

  it('allows 64 MB and refuses 64 MB + 1 with 413 (sparse files)', async () => {
    await writeFile(path.join(home, 'max.bin'), '');
    await truncate(path.join(home, 'max.bin'), MAX_TRANSFER_BYTES);
    const download = await openDownload(home, 'max.bin');
    expect(download.size).toBe(MAX_TRANSFER_BYTES);
    download.stream.destroy();
    await writeFile(path.join(home, 'over.bin'), '');
    await truncate(path.join(home, 'over.bin'), MAX_TRANSFER_BYTES + 1);
    expect(await codeOf(openDownload(home, 'over.bin'))).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses folders and links out', async () => {
    expect(await codeOf(openDownload(home, 'public_html'))).toBe('BAD_REQUEST');
    await symlink('/etc/passwd', path.join(home, 'passwd'));
    expect(await codeOf(openDownload(home, 'passwd'))).toBe('BAD_REQUEST');
  });
});

describe('uploadStream', () => {
  it('streams a file into place, replacing one of the same name', async () => {
    const placed = await uploadStream(home, 'public_html', 'index.php', generated(3_000_000, 65_536), QUOTA);
    expect(placed).toMatchObject({ path: 'public_html/index.php', name: 'index.php', size: 3_000_000, type: 'file' });
    expect(await leftovers(path.join(home, 'public_html'))).toEqual([]);
  });

  it('uploads into the home itself', async () => {
    expect(await uploadStream(home, '', 'root.txt', Readable.from([Buffer.from('x')]), QUOTA)).toMatchObject({ path: 'root.txt', size: 1 });
  });

  it('stops past the quota, removes the partial file and leaves the stream unread', async () => {
    const used = await homeUsageBytes(home);
    const source = generated(5_000_000, 65_536);
    expect(await codeOf(uploadStream(home, 'public_html', 'big.bin', source, used + 1_000_000))).toBe('PAYLOAD_TOO_LARGE');
    expect(await readdir(path.join(home, 'public_html'))).toEqual(['index.php']);
    expect(source.destroyed).toBe(false);
    source.destroy();
  });

  it('stops past 64 MB', async () => {
    const err = await uploadStream(home, '', 'huge.bin', generated(MAX_TRANSFER_BYTES + 1), Number.MAX_SAFE_INTEGER).catch((e: unknown) => e);
    expect((err as AppError).code).toBe('PAYLOAD_TOO_LARGE');
    expect((err as AppError).headers).toEqual({ connection: 'close' });
    expect(await readdir(home)).toEqual(['public_html']);
  });

  it('removes the partial file when the client goes away', async () => {
    const source = new Readable({ read() {} });
    const upload = uploadStream(home, '', 'cut.bin', source, QUOTA);
    source.push(Buffer.alloc(1000));
    setTimeout(() => source.destroy(new Error('aborted')), 20);
    await expect(upload).rejects.toThrow('aborted');
    expect(await readdir(home)).toEqual(['public_html']);
  });

  it('refuses unsafe names, a missing folder, a folder target and links out', async () => {
    for (const name of ['', '..', 'a/b', 'a\\b', '\u0000', '%2e%2e']) {
      expect(await codeOf(uploadStream(home, '', name, Readable.from([]), QUOTA))).toBe('BAD_REQUEST');
    }
    expect(await codeOf(uploadStream(home, 'missing', 'x', Readable.from([]), QUOTA))).toBe('NOT_FOUND');
    expect(await codeOf(uploadStream(home, '', 'public_html', Readable.from([]), QUOTA))).toBe('BAD_REQUEST');
    await symlink(sibling, path.join(home, 'out'));
    expect(await codeOf(uploadStream(home, 'out', 'canary.txt', Readable.from([Buffer.from('pwned')]), QUOTA))).toBe('BAD_REQUEST');
    expect(await readFile(path.join(sibling, 'canary.txt'), 'utf8')).toBe('canary');
  });
});

describe('createFolder', () => {
  it('makes one folder; 409 when taken, 404 without its parent', async () => {
    expect(await createFolder(home, 'public_html/img')).toMatchObject({ path: 'public_html/img', type: 'directory' });
    expect(await codeOf(createFolder(home, 'public_html/img'))).toBe('CONFLICT');
    expect(await codeOf(createFolder(home, 'a/b'))).toBe('NOT_FOUND');
    expect(await codeOf(createFolder(home, ''))).toBe('BAD_REQUEST');
  });
});

describe('renamePath', () => {
  it('renames and moves, never overwriting', async () => {
    expect(await renamePath(home, 'public_html/index.php', 'index.php')).toMatchObject({ path: 'index.php', type: 'file' });
    await writeFile(path.join(home, 'other.txt'), 'o');
    expect(await codeOf(renamePath(home, 'other.txt', 'index.php'))).toBe('CONFLICT');
    expect(await readFile(path.join(home, 'index.php'), 'utf8')).toBe('<?php echo "hi";');
    expect(await codeOf(renamePath(home, 'missing', 'x'))).toBe('NOT_FOUND');
    expect(await codeOf(renamePath(home, 'other.txt', 'missing/x'))).toBe('NOT_FOUND');
  });

  it('refuses moving a folder into itself and renaming the home', async () => {
    await mkdir(path.join(home, 'public_html', 'sub'));
    expect(await codeOf(renamePath(home, 'public_html', 'public_html/sub/moved'))).toBe('BAD_REQUEST');
    expect(await codeOf(renamePath(home, 'public_html', 'public_html/moved'))).toBe('BAD_REQUEST');
    expect(await codeOf(renamePath(home, '', 'x'))).toBe('BAD_REQUEST');
    expect(await codeOf(renamePath(home, 'public_html', ''))).toBe('BAD_REQUEST');
  });

  it('moves a link as itself, and refuses a move after which a relative link leads out', async () => {
    await mkdir(path.join(home, 'a', 'b'), { recursive: true });
    await symlink('../../public_html', path.join(home, 'a', 'b', 'web'));
    expect(await codeOf(renamePath(home, 'a/b/web', 'web'))).toBe('BAD_REQUEST');
    expect(await readlink(path.join(home, 'a', 'b', 'web'))).toBe('../../public_html');
    expect(await renamePath(home, 'a/b/web', 'a/b/site')).toMatchObject({ path: 'a/b/site', type: 'symlink' });
    expect((await stat(path.join(home, 'public_html'))).isDirectory()).toBe(true);
  });
});

describe('deletePath', () => {
  it('deletes files and folders recursively, a link without its target, never the home', async () => {
    await mkdir(path.join(home, 'public_html', 'deep', 'er'), { recursive: true });
    await writeFile(path.join(home, 'public_html', 'deep', 'er', 'f'), 'x');
    await symlink('public_html', path.join(home, 'web'));
    await deletePath(home, 'web');
    expect((await stat(path.join(home, 'public_html'))).isDirectory()).toBe(true);
    await deletePath(home, 'public_html/deep');
    expect(await readdir(path.join(home, 'public_html'))).toEqual(['index.php']);
    await deletePath(home, 'public_html/index.php');
    expect(await readdir(path.join(home, 'public_html'))).toEqual([]);
    expect(await codeOf(deletePath(home, ''))).toBe('BAD_REQUEST');
    expect(await codeOf(deletePath(home, 'missing'))).toBe('NOT_FOUND');
  });

  it('refuses a link out, leaving its target', async () => {
    await symlink(sibling, path.join(home, 'out'));
    expect(await codeOf(deletePath(home, 'out'))).toBe('BAD_REQUEST');
    expect(await codeOf(deletePath(home, 'out/canary.txt'))).toBe('BAD_REQUEST');
    expect(await readFile(path.join(sibling, 'canary.txt'), 'utf8')).toBe('canary');
  });
});

describe('homeUsageBytes', () => {
  it('sums the files below the home without following links', async () => {
    await mkdir(path.join(home, 'x', 'y'), { recursive: true });
    await writeFile(path.join(home, 'x', 'y', 'f'), Buffer.alloc(1000));
    await symlink(sibling, path.join(home, 'out'));
    expect(await homeUsageBytes(home)).toBe(16 + 1000);
  });
});
