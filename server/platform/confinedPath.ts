import { constants, type Stats } from 'node:fs';
import { lstat, open, readlink, realpath, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from './errors';

/**
 * Customer paths inside a home folder (hosting files over HTTP and SFTP). A path is checked as
 * text first, then resolved against the disk: every existing component goes through `realpath`,
 * so a symbolic link anywhere in the chain that leads outside the home is refused, while one that
 * stays inside works as the customer expects.
 *
 * Node has no openat2(RESOLVE_BENEATH): between the check and the use, a customer could swap a
 * folder for a link with SFTP. `openConfined` closes that gap for files by checking where the
 * opened descriptor really is.
 */

export const MAX_PATH_BYTES = 1024;
export const MAX_NAME_BYTES = 255;

export interface ConfineOptions {
  /** The empty path names the home itself; without this it is refused. */
  allowHome?: boolean;
  /** 404 unless the entry exists. */
  mustExist?: boolean;
  /** 404 unless the folder that would hold the entry exists. */
  parentMustExist?: boolean;
}

export interface ConfinedLocation {
  /** The real path of the home. */
  home: string;
  /** The path as checked: NFC, segments joined by `/`; '' for the home. */
  relative: string;
  /** The entry itself: the real folder holding it joined with its name (a final link is not followed). */
  entry: string;
  /** Where reading or writing lands: `entry` with a final link resolved. */
  target: string;
  /** lstat of `entry`, or null when nothing is there. */
  stats: Stats | null;
}

/**
 * The absolute real path `relative` names inside `home`, or AppError('BAD_REQUEST') when the
 * path is malformed or leads outside, ('NOT_FOUND') when `mustExist`/`parentMustExist` are not met.
 * Messages quote only the customer's own path, never a host path.
 */
export async function resolveConfined(home: string, relative: string, options: ConfineOptions = {}): Promise<string> {
  return (await locateConfined(home, relative, options)).target;
}

/** As `resolveConfined`, with both the entry itself and where it leads (rename and delete act on a link, not its target). */
export async function locateConfined(home: string, relative: string, options: ConfineOptions = {}): Promise<ConfinedLocation> {
  const segments = parseRelativePath(relative, options.allowHome ?? false);
  const shown = segments.join('/');
  const realHome = await realHomeOf(home);
  if (segments.length === 0) {
    return { home: realHome, relative: '', entry: realHome, target: realHome, stats: await lstat(realHome) };
  }

  let folder = realHome;
  for (let i = 0; i < segments.length - 1; i += 1) {
    const named = segments.slice(0, i + 1).join('/');
    const found = await step(realHome, folder, segments[i]!, named);
    if (!found) {
      if (options.mustExist || options.parentMustExist) throw new AppError('NOT_FOUND', `"${named}" not found`);
      const projected = path.join(folder, ...segments.slice(i));
      if (!isInside(realHome, projected)) throw outsideHome(named);
      return { home: realHome, relative: shown, entry: projected, target: projected, stats: null };
    }
    if (!found.targetIsFolder) throw new AppError('BAD_REQUEST', `"${named}" is not a folder`);
    folder = found.target;
  }
  const entry = path.join(folder, segments[segments.length - 1]!);
  const found = await step(realHome, folder, segments[segments.length - 1]!, shown);
  if (!found) {
    if (options.mustExist) throw new AppError('NOT_FOUND', `"${shown}" not found`);
    return { home: realHome, relative: shown, entry, target: entry, stats: null };
  }
  return { home: realHome, relative: shown, entry, target: found.target, stats: found.stats };
}

/** Whether `name` is one safe path segment (an upload's file name): the same rules as every segment of a path. */
export function isSafeName(name: string): boolean {
  // parseRelativePath refuses a non-string and '' by itself, and a name holding '/' splits into more than one segment.
  try {
    return parseRelativePath(name, false).length === 1;
  } catch {
    return false;
  }
}

/**
 * Checks a customer path as text and splits it into NFC segments. The input is used as given:
 * the router has decoded it once, and decoding it again here would turn a harmless literal
 * `%2e%2e%2f` into a real `../`. Such sequences are refused anyway, so the answer is clear.
 */
export function parseRelativePath(relative: string, allowHome: boolean): string[] {
  if (typeof relative !== 'string') throw bad('The path must be a string');
  if (relative === '') {
    if (!allowHome) throw bad('The path is required (the home folder itself is not allowed here)');
    return [];
  }
  if (!relative.isWellFormed() || relative.includes('\uFFFD')) throw bad('The path is not valid UTF-8 text');
  if (CONTROL.test(relative)) throw bad('The path must not contain NUL or other control characters');
  if (relative.includes('\\')) throw bad('The path must not contain backslashes; separate folders with /');
  if (relative.startsWith('/') || DRIVE.test(relative)) throw bad("The path must be relative to the site's home, without a leading / or drive");
  const normalized = relative.normalize('NFC');
  if (Buffer.byteLength(normalized) > MAX_PATH_BYTES) throw bad(`The path is longer than ${MAX_PATH_BYTES} bytes`);
  const segments = normalized.split('/');
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem) throw bad(problem);
  }
  refuseEncodedTraversal(normalized);
  return segments;
}

/** Whether `candidate` (absolute) is `realHome` or below it. */
export function isInside(realHome: string, candidate: string): boolean {
  const rel = path.relative(realHome, candidate);
  // '' (the home itself) passes every test below.
  return rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/**
 * Opens a file found by `locateConfined`, never following a final link, and checks where the
 * descriptor really landed: a folder swapped for a link after the check is caught here. A file
 * this call made outside (O_CREAT | O_EXCL) is removed again.
 */
export async function openConfined(realHome: string, file: string, flags: number, mode?: number): Promise<FileHandle> {
  const handle = await open(file, flags | constants.O_NOFOLLOW, mode).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ELOOP') throw bad('The file was replaced by a symbolic link while it was being opened; try again');
    throw err;
  });
  const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
  if (opened !== null && !isInside(realHome, opened)) {
    await handle.close();
    const created = (flags & constants.O_CREAT) !== 0 && (flags & constants.O_EXCL) !== 0;
    if (created) await unlink(opened).catch(() => {});
    throw bad("The path leads outside the site's home");
  }
  return handle;
}

const CONTROL = /[\p{Cc}\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const DRIVE = /^[A-Za-z]:/;
/** Characters that read as a slash without being one; refused so a listing never shows a fake path. */
const SLASH_LOOKALIKES = /[\u2044\u2215\u29F5\u29F8\u29F9]/u;
const ENCODED = /%[0-9a-f]{2}/i;
const ENCODED_RUN = /(?:%[0-9a-f]{2})+/gi;
const MAX_DECODE_ROUNDS = 4;

function segmentProblem(segment: string): string | null {
  if (segment === '') return 'The path has an empty segment (a leading, doubled or trailing /)';
  if (Buffer.byteLength(segment) > MAX_NAME_BYTES) return `A name in the path is longer than ${MAX_NAME_BYTES} bytes`;
  if (/^[.\s]+$/u.test(segment)) return 'The path must not contain . or .. segments (or names made only of dots and spaces)';
  if (/^\s|[\s.]$/u.test(segment)) return 'A name in the path must not start with a space or end with a space or a dot';
  const compatible = segment.normalize('NFKC');
  if (/^[.\s]+$/u.test(compatible) || /[/\\]/.test(compatible) || SLASH_LOOKALIKES.test(segment)) {
    return 'A name in the path imitates ., .. or / with look-alike characters';
  }
  return null;
}

/**
 * `%2e%2e%2f` is a harmless literal name once the router has decoded the URL, but a path that
 * would mean a traversal after one more decoding (by a proxy, a client, a later tool) is refused
 * so nothing downstream can be fooled, and the customer learns why.
 */
function refuseEncodedTraversal(text: string): void {
  let layer = text;
  for (let round = 0; round < MAX_DECODE_ROUNDS && ENCODED.test(layer); round += 1) {
    const decoded = decodeOnce(layer);
    if (decoded.includes('\\') || CONTROL.test(decoded) || decoded.split('/').length !== layer.split('/').length) {
      throw bad('The path holds a percent-encoded separator or control character; send the path decoded');
    }
    if (decoded.split('/').some((segment) => /^[.\s]+$/u.test(segment.normalize('NFKC')))) {
      throw bad('The path holds a percent-encoded . or .. segment; send the path decoded');
    }
    layer = decoded;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** One layer of percent-decoding; bytes that are not UTF-8 (such as an overlong `.`) are refused. */
function decodeOnce(text: string): string {
  try {
    return text.replace(ENCODED_RUN, (run) => strictUtf8.decode(Buffer.from(run.replaceAll('%', ''), 'hex')));
  } catch {
    throw bad('The path holds percent-encoded bytes that are not UTF-8 (an overlong encoding?)');
  }
}

async function realHomeOf(home: string): Promise<string> {
  try {
    return await realpath(home);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new AppError('NOT_FOUND', "The site's home folder does not exist");
    throw err;
  }
}

/** One component below a real folder: what is there (null for nothing) and, for a link, where it leads inside the home. */
async function step(realHome: string, folder: string, segment: string, named: string) {
  const entry = path.join(folder, segment);
  // The text checks already refuse `..`; every component is held to the home all the same.
  if (!isInside(realHome, entry)) throw outsideHome(named);
  const stats = await lstatOrNull(entry);
  if (!stats) return null;
  if (!stats.isSymbolicLink()) return { stats, target: entry, targetIsFolder: stats.isDirectory() };
  const target = await linkTarget(entry, named);
  if (!isInside(realHome, target)) throw bad(`"${named}" is a symbolic link that leads outside the site's home`);
  return { stats, target, targetIsFolder: (await lstat(target)).isDirectory() };
}

async function lstatOrNull(file: string): Promise<Stats | null> {
  try {
    return await lstat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function linkTarget(link: string, named: string): Promise<string> {
  try {
    return await realpath(link);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw bad(`"${named}" is a symbolic link whose target does not exist`);
    if (code === 'ELOOP') throw bad(`"${named}" is a loop of symbolic links`);
    throw err;
  }
}

const bad = (message: string) => new AppError('BAD_REQUEST', message);
const outsideHome = (named: string) => bad(`"${named}" is outside the site's home`);
