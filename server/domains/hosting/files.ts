import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { chmod, lstat, mkdir, opendir, readdir, realpath, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { isInside, isSafeName, locateConfined, openConfined, type ConfinedLocation } from '../../platform/confinedPath';
import { AppError } from '../../platform/errors';
import { isoDateTime } from '../../platform/schemas';

/**
 * The file manager over a site's home: every path goes through `locateConfined` (see
 * server/platform/confinedPath.ts), so nothing here reaches outside the home, and every write
 * lands whole or not at all (a temporary file in the same folder, renamed into place).
 */

/** SPEC: text files are read and written up to 1 MB. */
export const MAX_TEXT_BYTES = 1_048_576;
/** SPEC: downloads and uploads up to 64 MB; larger files go over SFTP. */
export const MAX_TRANSFER_BYTES = 67_108_864;

export const FILE_TYPES = ['file', 'directory', 'symlink', 'other'] as const;

export const fileEntrySchema = z
  .object({
    name: z.string(),
    type: z.enum(FILE_TYPES).describe('A symlink is shown as itself, not as what it points to'),
    size: z.number().int().describe('Bytes of a file; 0 for folders, links and anything else'),
    modifiedAt: isoDateTime,
  })
  .meta({ id: 'HostingFileEntry' });
export type FileEntry = z.infer<typeof fileEntrySchema>;

export const placedEntrySchema = fileEntrySchema.extend({ path: z.string().describe("Relative to the site's home") }).meta({ id: 'HostingPlacedFileEntry' });
export type PlacedEntry = z.infer<typeof placedEntrySchema>;

export const textFileSchema = z
  .object({
    path: z.string(),
    content: z.string().describe('The whole file, UTF-8'),
    size: z.number().int().describe('Bytes on disk'),
    modifiedAt: isoDateTime,
  })
  .meta({ id: 'HostingTextFile' });
export type TextFile = z.infer<typeof textFileSchema>;

export interface Download {
  stream: Readable;
  size: number;
  /** The file's name as the customer named it (a link's own name, not its target's). */
  name: string;
}

/** The entries of a folder, folders first, then by name. */
export async function listEntries(home: string, relative: string): Promise<FileEntry[]> {
  const location = await locateConfined(home, relative, { allowHome: true, mustExist: true });
  if (!(await lstat(location.target)).isDirectory()) throw new AppError('BAD_REQUEST', `"${location.relative}" is not a folder`);
  const names = await readdir(location.target);
  const entries = await Promise.all(
    names.map(async (name) => {
      const stats = await lstat(path.join(location.target, name)).catch(() => null);
      return stats ? entryOf(name, stats) : null;
    }),
  );
  return entries
    .filter((entry): entry is FileEntry => entry !== null)
    .sort((a, b) => Number(b.type === 'directory') - Number(a.type === 'directory') || byName(a.name, b.name));
}

/** A text file whole: up to 1 MB (413 beyond) of valid UTF-8 without NUL bytes (400 otherwise: download it instead). */
export async function readText(home: string, relative: string): Promise<TextFile> {
  const location = await locateConfined(home, relative, { mustExist: true });
  const handle = await openRegularFile(location);
  try {
    const stats = await handle.stat();
    if (stats.size > MAX_TEXT_BYTES) throw textTooLarge('read');
    const bytes = await readUpTo(handle, MAX_TEXT_BYTES + 1);
    if (bytes.length > MAX_TEXT_BYTES) throw textTooLarge('read');
    return { path: location.relative, content: decodeText(bytes, location.relative), size: bytes.length, modifiedAt: stats.mtime.toISOString() };
  } finally {
    await handle.close();
  }
}

/**
 * Writes a text file whole, creating it when missing (its folder must exist). A link inside the
 * home is written through: its target is replaced and the link stays.
 */
export async function writeText(home: string, relative: string, content: string, quotaBytes: number): Promise<PlacedEntry> {
  const bytes = Buffer.from(content, 'utf8');
  if (bytes.length > MAX_TEXT_BYTES) throw textTooLarge('written');
  const location = await locateConfined(home, relative, { parentMustExist: true });
  const previous = await replaceableFile(location);
  await assertQuota(location.home, quotaBytes, bytes.length - (previous?.size ?? 0));
  await placeAtomically(location, previous, async (handle) => {
    await handle.writeFile(bytes);
  });
  return placedEntry(location);
}

/** Opens a file for a streamed download: up to 64 MB (413 beyond). */
export async function openDownload(home: string, relative: string): Promise<Download> {
  const location = await locateConfined(home, relative, { mustExist: true });
  const handle = await openRegularFile(location);
  let size: number;
  try {
    size = (await handle.stat()).size;
    if (size > MAX_TRANSFER_BYTES) throw transferTooLarge('downloaded');
  } catch (err) {
    await handle.close();
    throw err;
  }
  const name = location.relative.slice(location.relative.lastIndexOf('/') + 1);
  if (size === 0) {
    await handle.close();
    return { stream: Readable.from([]), size, name };
  }
  // `end` holds the answer to the announced length even when the file grows meanwhile.
  return { stream: handle.createReadStream({ start: 0, end: size - 1 }), size, name };
}

/**
 * Streams an upload into `folder/name` through a temporary file, counting bytes as they come and
 * stopping past 64 MB or past the disk quota (413; the partial file is removed), then renames it
 * into place, replacing a file of that name. The body is never held in memory whole.
 */
export async function uploadStream(home: string, folder: string, name: string, stream: Readable, quotaBytes: number): Promise<PlacedEntry> {
  if (!isSafeName(name)) {
    throw new AppError(
      'BAD_REQUEST',
      'The file name must be one name (no /, \\, control characters, . or .., at most 255 bytes, not ending in a space or dot)',
    );
  }
  const parent = await locateConfined(home, folder, { allowHome: true, mustExist: true });
  if (!(await lstat(parent.target)).isDirectory()) throw new AppError('BAD_REQUEST', `"${parent.relative}" is not a folder`);
  const location = await locateConfined(home, parent.relative ? `${parent.relative}/${name}` : name, { parentMustExist: true });
  const previous = await replaceableFile(location);
  const available = quotaBytes - (await homeUsageBytes(location.home)) + (previous?.size ?? 0);
  await placeAtomically(location, previous, (handle) =>
    copyCounted(stream, handle, (total) => {
      if (total > MAX_TRANSFER_BYTES) throw transferTooLarge('uploaded');
      if (total > available) throw quotaExceeded(quotaBytes, true);
    }),
  );
  return placedEntry(location);
}

/** Makes one folder; its parent must exist (404) and nothing may have its name (409). */
export async function createFolder(home: string, relative: string): Promise<PlacedEntry> {
  const location = await locateConfined(home, relative, { parentMustExist: true });
  if (location.stats) throw new AppError('CONFLICT', `"${location.relative}" already exists`);
  await mkdir(location.entry, { mode: 0o755 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EEXIST') throw new AppError('CONFLICT', `"${location.relative}" already exists`);
    throw err;
  });
  return placedEntry(location);
}

/**
 * Renames or moves an entry (a link is moved as itself). Nothing is overwritten (409), a folder
 * cannot move into itself (400), and the target folder must exist (404).
 */
export async function renamePath(home: string, from: string, to: string): Promise<PlacedEntry> {
  if (from === '') throw new AppError('BAD_REQUEST', 'The home folder itself cannot be renamed');
  const source = await locateConfined(home, from, { mustExist: true });
  const destination = await locateConfined(home, to, { parentMustExist: true });
  if (destination.stats) throw new AppError('CONFLICT', `"${destination.relative}" already exists; delete it first or choose another name`);
  if (source.stats?.isDirectory() && isInside(source.entry, destination.entry)) {
    throw new AppError('BAD_REQUEST', `"${source.relative}" cannot be moved into itself`);
  }
  await rename(source.entry, destination.entry).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EEXIST' || err.code === 'ENOTEMPTY') throw new AppError('CONFLICT', `"${destination.relative}" already exists`);
    throw err;
  });
  if (source.stats?.isSymbolicLink()) await keepLinkInside(source, destination);
  return placedEntry(destination);
}

/** Deletes a file, a link (not its target), or a folder with everything in it. The home itself stays (400). */
export async function deletePath(home: string, relative: string): Promise<void> {
  if (relative === '') throw new AppError('BAD_REQUEST', 'The home folder itself cannot be deleted');
  const location = await locateConfined(home, relative, { mustExist: true });
  if (location.stats?.isDirectory()) await rm(location.entry, { recursive: true });
  else await unlink(location.entry);
}

/** Bytes of every file under the home, links not followed. A walk: fine at today's sizes. */
export async function homeUsageBytes(home: string): Promise<number> {
  let total = 0;
  const pending = [await realpath(home)];
  while (pending.length > 0) {
    const folder = pending.pop()!;
    const dir = await opendir(folder).catch(() => null);
    if (!dir) continue;
    for await (const dirent of dir) {
      const entry = path.join(folder, dirent.name);
      if (dirent.isDirectory()) pending.push(entry);
      else if (dirent.isFile()) total += (await lstat(entry).catch(() => null))?.size ?? 0;
    }
  }
  return total;
}

function entryOf(name: string, stats: Stats): FileEntry {
  const type = stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : stats.isSymbolicLink() ? 'symlink' : 'other';
  return { name, type, size: type === 'file' ? stats.size : 0, modifiedAt: stats.mtime.toISOString() };
}

const collator = new Intl.Collator('en', { numeric: true });
const byName = (a: string, b: string) => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);

async function placedEntry(location: ConfinedLocation): Promise<PlacedEntry> {
  const name = location.relative.slice(location.relative.lastIndexOf('/') + 1);
  return { path: location.relative, ...entryOf(name, await lstat(location.target)) };
}

/**
 * Opens what a path leads to for reading, refusing anything but a regular file before opening:
 * O_NONBLOCK keeps a FIFO planted in the home from stalling the thread that opens it.
 */
async function openRegularFile(location: ConfinedLocation): Promise<FileHandle> {
  const stats = await lstat(location.target);
  if (stats.isDirectory()) throw new AppError('BAD_REQUEST', `"${location.relative}" is a folder`);
  if (!stats.isFile()) throw new AppError('BAD_REQUEST', `"${location.relative}" is not a regular file`);
  const handle = await openConfined(location.home, location.target, constants.O_RDONLY | constants.O_NONBLOCK);
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw new AppError('BAD_REQUEST', `"${location.relative}" is not a regular file`);
  }
  return handle;
}

async function readUpTo(handle: FileHandle, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(limit);
  let filled = 0;
  while (filled < limit) {
    const { bytesRead } = await handle.read(buffer, filled, limit - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeText(bytes: Buffer, shown: string): string {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new AppError('BAD_REQUEST', `"${shown}" is not UTF-8 text; download it instead`);
  }
  if (text.includes('\u0000')) throw new AppError('BAD_REQUEST', `"${shown}" holds NUL bytes (a binary file); download it instead`);
  return text;
}

/** The file a write would replace (null when there is none); folders and anything but a file are refused. */
async function replaceableFile(location: ConfinedLocation): Promise<Stats | null> {
  if (!location.stats) return null;
  const stats = await lstat(location.target);
  if (stats.isDirectory()) throw new AppError('BAD_REQUEST', `"${location.relative}" is a folder`);
  if (!stats.isFile()) throw new AppError('BAD_REQUEST', `"${location.relative}" is not a regular file`);
  return stats;
}

async function assertQuota(realHome: string, quotaBytes: number, growth: number): Promise<void> {
  if (growth > 0 && (await homeUsageBytes(realHome)) + growth > quotaBytes) throw quotaExceeded(quotaBytes, false);
}

/**
 * Fills a new temporary file beside the target and renames it over the target, keeping the mode
 * of the file it replaces; on any failure the temporary file is removed and the target untouched.
 */
async function placeAtomically(location: ConfinedLocation, previous: Stats | null, fill: (handle: FileHandle) => Promise<void>): Promise<void> {
  const temporary = path.join(path.dirname(location.target), `.~${randomBytes(8).toString('hex')}.part`);
  const handle = await openConfined(location.home, temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  try {
    await fill(handle);
    if (previous) await dateAfter(handle, previous);
    await handle.datasync();
    await handle.close();
    if (previous) await chmod(temporary, previous.mode & 0o7777);
    await rename(temporary, location.target);
  } catch (err) {
    await handle.close().catch(() => {});
    await rm(temporary, { force: true });
    throw err;
  }
}

/**
 * PHP's opcache tells a changed script by its modification time in whole seconds, so a file
 * replaced within the second it was last written would go on running its old code. Such a
 * replacement is dated one second after the file it replaces.
 */
async function dateAfter(handle: FileHandle, previous: Stats): Promise<void> {
  const written = await handle.stat();
  const previousSecond = Math.floor(previous.mtimeMs / 1000);
  if (Math.floor(written.mtimeMs / 1000) > previousSecond) return;
  await handle.utimes(written.atime, new Date((previousSecond + 1) * 1000));
}

/**
 * Writes a stream to a file, calling `check` with the running total before each chunk is written.
 * A refusal leaves the request stream paused rather than destroyed, so the refusal can still be
 * answered on its connection.
 */
function copyCounted(source: Readable, handle: FileHandle, check: (total: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let total = 0;
    let writing: Promise<unknown> = Promise.resolve();
    let settled = false;
    const finish = (err?: unknown) => {
      if (settled) return;
      settled = true;
      source.off('data', onData).off('end', onEnd).off('error', finish);
      if (err === undefined) resolve();
      else {
        source.pause();
        reject(err);
      }
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      try {
        check(total);
      } catch (err) {
        finish(err);
        return;
      }
      source.pause();
      writing = handle.write(chunk).then(() => {
        if (!settled) source.resume();
      }, finish);
    };
    const onEnd = () => {
      writing.then(() => finish(), finish);
    };
    source.on('data', onData).on('end', onEnd).on('error', finish);
  });
}

/**
 * A relative link moved elsewhere may now lead somewhere else: a link that would leave the home
 * (or lead nowhere) from its new place is moved back and the rename refused.
 */
async function keepLinkInside(source: ConfinedLocation, destination: ConfinedLocation): Promise<void> {
  const target = await realpath(destination.entry).catch(() => null);
  if (target !== null && isInside(destination.home, target)) return;
  await rename(destination.entry, source.entry);
  throw new AppError('BAD_REQUEST', `Moved to "${destination.relative}", the link "${source.relative}" would lead outside the site's home or nowhere`);
}

const textTooLarge = (verb: 'read' | 'written') =>
  new AppError('PAYLOAD_TOO_LARGE', `Text files are ${verb} here up to 1 MB (${MAX_TEXT_BYTES} bytes); use download, upload or SFTP for larger files`);

/** A refused upload closes its connection: the rest of the body is not worth reading. */
const transferTooLarge = (verb: 'downloaded' | 'uploaded') =>
  new AppError('PAYLOAD_TOO_LARGE', `Files are ${verb} here up to 64 MB (${MAX_TRANSFER_BYTES} bytes); use SFTP for larger files`, {
    headers: verb === 'uploaded' ? { connection: 'close' } : undefined,
  });

const quotaExceeded = (quotaBytes: number, upload: boolean) =>
  new AppError('PAYLOAD_TOO_LARGE', `This would exceed the site's disk quota of ${quotaBytes} bytes; delete files or buy extra storage`, {
    headers: upload ? { connection: 'close' } : undefined,
  });
