import { randomBytes } from 'node:crypto';
import { constants as fsConstants, type Dir, type Stats } from 'node:fs';
import {
  chmod,
  link,
  lstat,
  mkdir,
  opendir,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  rmdir,
  stat,
  truncate,
  unlink,
  utimes,
  writeFile,
  type FileHandle,
} from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type pino from 'pino';
import ssh2, { type Attributes, type ClientInfo, type Connection, type FileEntry, type SFTPWrapper } from 'ssh2';
import { isSafeName, openConfined, resolveConfined } from '../../platform/confinedPath';
import { AppError } from '../../platform/errors';
import { getLogger } from '../../platform/logger';
import type { SftpLogin, SftpServer, SftpServerOptions } from './types';

// ssh2 is CommonJS: Node's ESM loader gives its exports only through the default import.
const { Server, utils } = ssh2;
const { OPEN_MODE, STATUS_CODE } = utils.sftp;

/** A refused password costs the guesser this long before the answer. */
const FAILED_LOGIN_DELAY_MS = 1000;
/** Refused passwords on one connection before it is closed, as OpenSSH's MaxAuthTries would. */
const MAX_PASSWORD_ATTEMPTS = 3;
/** A connection that has not logged in by then is closed, so idle sockets cannot pile up. */
const LOGIN_GRACE_MS = 60_000;
/** The largest READ answered at once (OpenSSH's own packet limit); a client asking more gets a short read. */
const MAX_READ_BYTES = 256 * 1024;
const MAX_OPEN_HANDLES = 256;
const READDIR_BATCH = 100;
/** How old a measured home size may be when a file is opened for writing before the home is walked again. */
const USAGE_FRESH_MS = 5000;

/**
 * The SFTP server every hosting site is reached through: one host key, password logins only (the
 * username picks the site through `authenticate`), the SFTP subsystem only (no shell, exec or
 * forwarding: ssh2 refuses any request nobody listens for), and every path confined to the site's
 * home, which the client sees as `/`.
 */
export async function startSftpServer(options: SftpServerOptions): Promise<SftpServer> {
  if (options.port === 22) throw new Error('The hosting SFTP server never listens on port 22');
  const hostKey = await loadHostKey(options.hostKeyPath);
  const usage = new UsageLedger();
  const connections = new Set<Connection>();
  const server = new Server({ hostKeys: [hostKey] }, (client, info) => {
    connections.add(client);
    client.on('close', () => connections.delete(client));
    serveConnection(client, info, options, usage);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err: Error) => getLogger().error({ err }, 'SFTP server error'));
  const { port } = server.address() as AddressInfo;
  getLogger().info({ host: options.host, port }, 'SFTP server listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of connections) client.end();
        server.close(() => resolve());
      }),
  };
}

/**
 * The host key at `file`, made on first start and kept: a new key each start would make every
 * client warn of a man in the middle. Made under a temporary name and linked into place, so two
 * processes starting at once agree on one key.
 */
async function loadHostKey(file: string): Promise<string> {
  let key: string;
  try {
    key = await readFile(file, 'utf8');
    if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    key = await createExclusively(file, utils.generateKeyPairSync('ed25519').private);
  }
  if (utils.parseKey(key) instanceof Error) throw new Error(`The SFTP host key at ${file} cannot be read`);
  return key;
}

async function createExclusively(file: string, content: string): Promise<string> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(temporary, content, { mode: 0o600 });
  try {
    await link(temporary, file);
    return content;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readFile(file, 'utf8');
  } finally {
    await rm(temporary, { force: true });
  }
}

interface ConfinedLogin extends SftpLogin {
  username: string;
  /** The home with its symlinks resolved: what client paths are measured against. */
  realHome: string;
}

function serveConnection(client: Connection, info: ClientInfo, options: SftpServerOptions, usage: UsageLedger): void {
  const log = getLogger().child({ component: 'sftp', ip: info.ip });
  let login: ConfinedLogin | null = null;
  let refused = 0;
  const grace = setTimeout(() => client.end(), LOGIN_GRACE_MS).unref();
  client.on('error', (err: Error) => log.debug({ err }, 'SFTP connection error'));
  client.on('close', () => clearTimeout(grace));

  client.on('authentication', (context) => {
    if (context.method !== 'password') {
      context.reject(['password']);
      return;
    }
    const { username, password } = context;
    void (async () => {
      const found = await loginFor(options, username, password, log);
      if (found) {
        login = found;
        log.info({ username }, 'SFTP login');
        context.accept();
        return;
      }
      refused += 1;
      // Only the username: the password a guesser tried (or a customer mistyped) is never written down.
      log.warn({ username: username.slice(0, 64), attempt: refused }, 'SFTP login refused');
      await sleep(FAILED_LOGIN_DELAY_MS);
      if (refused >= MAX_PASSWORD_ATTEMPTS) client.end();
      else context.reject(['password']);
    })().catch((err: unknown) => log.debug({ err }, 'SFTP authentication answer not delivered'));
  });

  client.on('ready', () => {
    clearTimeout(grace);
    client.on('session', (acceptSession) => {
      const session = acceptSession();
      session.on('sftp', (acceptSftp, rejectSftp) => {
        if (!login) {
          rejectSftp();
          return;
        }
        new SftpSession(acceptSftp(), login, usage, log).start();
      });
    });
  });
}

async function loginFor(options: SftpServerOptions, username: string, password: string, log: pino.Logger): Promise<ConfinedLogin | null> {
  let found: SftpLogin | null;
  try {
    found = await options.authenticate(username, password);
  } catch (err) {
    log.error({ err, username: username.slice(0, 64) }, 'SFTP authentication failed');
    return null;
  }
  if (!found) return null;
  try {
    return { ...found, username, realHome: await realpath(found.home) };
  } catch (err) {
    log.error({ err, username }, 'SFTP login to a site whose home is missing');
    return null;
  }
}

/** A refusal with the SFTP status and message the client is shown; never a host path. */
class SftpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const denied = (message = 'Permission denied') => new SftpRefusal(STATUS_CODE.PERMISSION_DENIED, message);
const failure = (message: string) => new SftpRefusal(STATUS_CODE.FAILURE, message);

/** The status a failure is answered with; fs messages are not passed on, they name host paths. */
function refusalOf(err: unknown): SftpRefusal | null {
  if (err instanceof SftpRefusal) return err;
  if (err instanceof AppError) return err.code === 'NOT_FOUND' ? new SftpRefusal(STATUS_CODE.NO_SUCH_FILE, 'No such file') : denied();
  switch ((err as NodeJS.ErrnoException | null)?.code) {
    case 'ENOENT':
      return new SftpRefusal(STATUS_CODE.NO_SUCH_FILE, 'No such file');
    case 'EACCES':
    case 'EPERM':
    case 'ELOOP':
      return denied();
    case 'EEXIST':
      return failure('Already exists');
    case 'ENOTEMPTY':
      return failure('Directory not empty');
    case 'ENOTDIR':
      return failure('Not a directory');
    case 'EISDIR':
      return failure('Is a directory');
    case 'EINVAL':
      return failure('Invalid argument');
    case 'EBADF':
      return failure('Not opened for that');
    case 'ENOSPC':
    case 'EDQUOT':
      return failure('No space left');
    default:
      return null;
  }
}

type OpenHandle =
  { kind: 'file'; file: FileHandle; writable: boolean; append: boolean; size: number } | { kind: 'directory'; dir: Dir; path: string; done: boolean };

type SetAttributes = Partial<Attributes>;

/**
 * One SFTP channel of a logged-in site. Client paths are absolute with `/` the home; `..` stops at
 * the home as in a chroot, and every path is then resolved by `resolveConfined`, which follows
 * symlinks and refuses any that lead out. Operations that act on a name itself rather than what it
 * points to (lstat, remove, rename, mkdir, rmdir) resolve only the parent folder, so a customer can
 * still see and delete a symlink someone planted without anything following it.
 */
class SftpSession {
  private readonly handles = new Map<number, OpenHandle>();
  private nextHandle = 1;
  private closed = false;

  constructor(
    private readonly sftp: SFTPWrapper,
    private readonly login: ConfinedLogin,
    private readonly usage: UsageLedger,
    private readonly log: pino.Logger,
  ) {}

  start(): void {
    const { sftp } = this;
    // Without answering the client's EOF the channel stays open and OpenSSH's sftp hangs on exit.
    sftp.on('end', () => sftp.end());
    sftp.on('close', () => void this.closeAll());
    sftp.on('error', (err: Error) => this.log.debug({ err }, 'SFTP channel error'));

    sftp.on('OPEN', (id, filename, flags, attrs) => this.answer(id, () => this.open(id, filename, flags, attrs)));
    sftp.on('READ', (id, handle, offset, length) => this.answer(id, () => this.read(id, handle, offset, length)));
    sftp.on('WRITE', (id, handle, offset, data) => this.answer(id, () => this.write(id, handle, offset, data)));
    sftp.on('CLOSE', (id, handle) => this.answer(id, () => this.closeHandle(id, handle)));
    sftp.on('FSTAT', (id, handle) => this.answer(id, () => this.fstat(id, handle)));
    sftp.on('FSETSTAT', (id, handle, attrs) => this.answer(id, () => this.fsetstat(id, handle, attrs)));
    sftp.on('OPENDIR', (id, dirPath) => this.answer(id, () => this.opendir(id, dirPath)));
    sftp.on('READDIR', (id, handle) => this.answer(id, () => this.readdir(id, handle)));
    sftp.on('STAT', (id, target) => this.answer(id, async () => sftp.attrs(id, attributesOf(await stat(await this.followed(target, true))))));
    sftp.on('LSTAT', (id, target) => this.answer(id, async () => sftp.attrs(id, attributesOf(await lstat(await this.itself(target))))));
    sftp.on('SETSTAT', (id, target, attrs) => this.answer(id, () => this.setstat(id, target, attrs)));
    sftp.on('REMOVE', (id, target) => this.answer(id, () => this.remove(id, target)));
    sftp.on('RMDIR', (id, target) => this.answer(id, () => this.rmdir(id, target)));
    sftp.on('MKDIR', (id, target, attrs) => this.answer(id, () => this.mkdir(id, target, attrs)));
    sftp.on('RENAME', (id, from, to) => this.answer(id, () => this.rename(id, from, to)));
    sftp.on('REALPATH', (id, target) => this.answer(id, () => this.realpath(id, target)));
    sftp.on('READLINK', (id, target) => this.answer(id, () => this.readlink(id, target)));
    // A link the customer makes could point anywhere on this machine; only the file manager's own checks apply to what exists.
    sftp.on('SYMLINK', (id) => this.answer(id, () => Promise.reject(denied('Symbolic links are not allowed'))));
  }

  private answer(id: number, work: () => Promise<void>): void {
    work().catch((err: unknown) => {
      if (this.closed) return;
      const refusal = refusalOf(err);
      if (!refusal) this.log.warn({ err, username: this.login.username }, 'SFTP operation failed');
      const { status, message } = refusal ?? failure('Failure');
      try {
        this.sftp.status(id, status, message);
      } catch (sendError) {
        this.log.debug({ err: sendError }, 'SFTP status not delivered');
      }
    });
  }

  private async open(id: number, filename: string, flags: number, attrs: SetAttributes): Promise<void> {
    if (this.handles.size >= MAX_OPEN_HANDLES) throw failure('Too many open handles');
    const writable = (flags & (OPEN_MODE.WRITE | OPEN_MODE.APPEND | OPEN_MODE.CREAT | OPEN_MODE.TRUNC)) !== 0;
    const creating = (flags & OPEN_MODE.CREAT) !== 0;
    const target = await resolveConfined(this.login.home, clientRelative(filename), { allowHome: true, mustExist: !creating, parentMustExist: true });
    let sizeBefore = 0;
    if (writable) {
      await this.usage.refresh(this.login.realHome);
      sizeBefore = await lstat(target).then(
        (st) => (st.isFile() ? st.size : 0),
        () => 0,
      );
    }
    const file = await openConfined(this.login.realHome, target, fsFlagsOf(flags), permissionsOf(attrs.mode, 0o644));
    let size: number;
    try {
      const st = await file.stat();
      if (!st.isFile()) throw failure('Not a regular file');
      size = st.size;
    } catch (err) {
      await file.close();
      throw err;
    }
    if (writable) this.usage.adjust(this.login.realHome, size - sizeBefore);
    this.sftp.handle(id, this.register({ kind: 'file', file, writable, append: (flags & OPEN_MODE.APPEND) !== 0, size }));
  }

  private async read(id: number, handle: Buffer, offset: number, length: number): Promise<void> {
    const { file } = this.fileHandle(handle);
    const buffer = Buffer.alloc(Math.min(length, MAX_READ_BYTES));
    const { bytesRead } = await file.read(buffer, 0, buffer.length, offset);
    if (bytesRead === 0) this.sftp.status(id, STATUS_CODE.EOF);
    else this.sftp.data(id, buffer.subarray(0, bytesRead));
  }

  private async write(id: number, handle: Buffer, offset: number, data: Buffer): Promise<void> {
    const entry = this.fileHandle(handle);
    if (!entry.writable) throw denied('Not opened for writing');
    const end = (entry.append ? entry.size : offset) + data.length;
    // Counting the apparent size, so a write far past the end (a sparse file) counts what it claims.
    const growth = Math.max(0, end - entry.size);
    await this.reserve(growth);
    try {
      await entry.file.write(data, 0, data.length, entry.append ? null : offset);
    } catch (err) {
      this.usage.adjust(this.login.realHome, -growth);
      throw err;
    }
    entry.size = Math.max(entry.size, end);
    this.ok(id);
  }

  private async closeHandle(id: number, handle: Buffer): Promise<void> {
    const key = handleKey(handle);
    const entry = this.handles.get(key);
    if (!entry) throw failure('Invalid handle');
    this.handles.delete(key);
    if (entry.kind === 'file') await entry.file.close();
    else await entry.dir.close();
    this.ok(id);
  }

  private async fstat(id: number, handle: Buffer): Promise<void> {
    const entry = this.handles.get(handleKey(handle));
    if (!entry) throw failure('Invalid handle');
    this.sftp.attrs(id, attributesOf(entry.kind === 'file' ? await entry.file.stat() : await stat(entry.path)));
  }

  private async fsetstat(id: number, handle: Buffer, attrs: SetAttributes): Promise<void> {
    const entry = this.fileHandle(handle);
    const { size } = attrs;
    if (size !== undefined) {
      if (!entry.writable) throw denied('Not opened for writing');
      const before = (await entry.file.stat()).size;
      await this.resize(before, size, () => entry.file.truncate(size));
      entry.size = size;
    }
    if (attrs.mode !== undefined) await entry.file.chmod(permissionsOf(attrs.mode, 0o644));
    if (attrs.atime !== undefined && attrs.mtime !== undefined) await entry.file.utimes(attrs.atime, attrs.mtime);
    this.ok(id);
  }

  private async setstat(id: number, target: string, attrs: SetAttributes): Promise<void> {
    const real = await this.followed(target, true);
    const { size } = attrs;
    if (size !== undefined) {
      const before = await stat(real);
      if (!before.isFile()) throw failure('Not a regular file');
      await this.resize(before.size, size, () => truncate(real, size));
    }
    // Owners stay as they are (the site's files have one owner); modes lose setuid, setgid and sticky bits.
    if (attrs.mode !== undefined) await chmod(real, permissionsOf(attrs.mode, 0o644));
    if (attrs.atime !== undefined && attrs.mtime !== undefined) await utimes(real, attrs.atime, attrs.mtime);
    this.ok(id);
  }

  private async opendir(id: number, target: string): Promise<void> {
    if (this.handles.size >= MAX_OPEN_HANDLES) throw failure('Too many open handles');
    const real = await this.followed(target, true);
    const dir = await opendir(real);
    this.sftp.handle(id, this.register({ kind: 'directory', dir, path: real, done: false }));
  }

  private async readdir(id: number, handle: Buffer): Promise<void> {
    const listing = this.handles.get(handleKey(handle));
    if (!listing || listing.kind !== 'directory') throw failure('Invalid handle');
    const names: FileEntry[] = [];
    while (!listing.done && names.length < READDIR_BATCH) {
      const entry = await listing.dir.read();
      if (!entry) {
        listing.done = true;
        break;
      }
      // Entries are described, never followed: a symlink shows as one, whatever it points to.
      const st = await lstat(path.join(listing.path, entry.name)).catch(() => null);
      if (st) names.push({ filename: entry.name, longname: longnameOf(entry.name, st), attrs: attributesOf(st) });
    }
    if (names.length === 0) this.sftp.status(id, STATUS_CODE.EOF);
    else this.sftp.name(id, names);
  }

  private async remove(id: number, target: string): Promise<void> {
    const real = await this.itself(target, { notHome: true });
    const st = await lstat(real);
    if (st.isDirectory()) throw failure('Is a directory');
    await unlink(real);
    if (st.isFile()) this.usage.adjust(this.login.realHome, -st.size);
    this.ok(id);
  }

  private async rmdir(id: number, target: string): Promise<void> {
    await rmdir(await this.itself(target, { notHome: true }));
    this.ok(id);
  }

  private async mkdir(id: number, target: string, attrs: SetAttributes): Promise<void> {
    await mkdir(await this.itself(target, { notHome: true }), { mode: permissionsOf(attrs.mode, 0o755) });
    this.ok(id);
  }

  private async rename(id: number, from: string, to: string): Promise<void> {
    const source = await this.itself(from, { notHome: true });
    const destination = await this.itself(to, { notHome: true });
    await lstat(source);
    // SFTP v3 rename never replaces: OpenSSH's server refuses an existing target too.
    const taken = await lstat(destination).then(
      () => true,
      (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? false : Promise.reject(err)),
    );
    if (taken) throw failure('Already exists');
    await rename(source, destination);
    this.ok(id);
  }

  private async realpath(id: number, target: string): Promise<void> {
    const shown = this.clientView(await this.followed(target, false));
    this.sftp.name(id, [{ filename: shown, longname: shown, attrs: {} as Attributes }]);
  }

  /** What a link points to, as the client sees it; a link leading out of the home is not described. */
  private async readlink(id: number, target: string): Promise<void> {
    if (!(await lstat(await this.itself(target))).isSymbolicLink()) throw failure('Not a symbolic link');
    const shown = this.clientView(await this.followed(target, true));
    this.sftp.name(id, [{ filename: shown, longname: shown, attrs: {} as Attributes }]);
  }

  /** The real path a client path leads to, symlinks followed; refused when that is outside the home. */
  private followed(clientPath: string, mustExist: boolean): Promise<string> {
    return resolveConfined(this.login.home, clientRelative(clientPath), { allowHome: true, mustExist });
  }

  /** The path of the entry a client path names, its last component not followed (its parent folder is). */
  private async itself(clientPath: string, options: { notHome?: boolean } = {}): Promise<string> {
    const relative = clientRelative(clientPath);
    if (relative === '') {
      if (options.notHome) throw denied('The home folder itself cannot be changed');
      return this.login.realHome;
    }
    const slash = relative.lastIndexOf('/');
    const name = relative.slice(slash + 1);
    if (!isSafeName(name)) throw denied('Invalid name');
    const parent = await resolveConfined(this.login.home, slash < 0 ? '' : relative.slice(0, slash), { allowHome: true, mustExist: true });
    return path.join(parent, name);
  }

  private clientView(real: string): string {
    const relative = path.relative(this.login.realHome, real);
    if (relative.startsWith('..') || path.isAbsolute(relative)) throw denied();
    return `/${relative.split(path.sep).join('/')}`;
  }

  private async reserve(bytes: number): Promise<void> {
    if (!(await this.usage.reserve(this.login.realHome, this.login.quotaBytes, bytes))) throw failure('quota exceeded');
  }

  private async resize(before: number, after: number, apply: () => Promise<void>): Promise<void> {
    const growth = after - before;
    if (growth > 0) await this.reserve(growth);
    try {
      await apply();
    } catch (err) {
      if (growth > 0) this.usage.adjust(this.login.realHome, -growth);
      throw err;
    }
    if (growth < 0) this.usage.adjust(this.login.realHome, growth);
  }

  private fileHandle(handle: Buffer): Extract<OpenHandle, { kind: 'file' }> {
    const entry = this.handles.get(handleKey(handle));
    if (!entry || entry.kind !== 'file') throw failure('Invalid handle');
    return entry;
  }

  private register(entry: OpenHandle): Buffer {
    const key = this.nextHandle++;
    this.handles.set(key, entry);
    const handle = Buffer.alloc(4);
    handle.writeUInt32BE(key);
    return handle;
  }

  private ok(id: number): void {
    this.sftp.status(id, STATUS_CODE.OK);
  }

  private async closeAll(): Promise<void> {
    this.closed = true;
    const entries = [...this.handles.values()];
    this.handles.clear();
    await Promise.allSettled(entries.map((entry) => (entry.kind === 'file' ? entry.file.close() : entry.dir.close())));
  }
}

/**
 * The client's path (absolute, `/` = the home, or relative to `/`) as the relative path
 * `resolveConfined` takes. `..` is applied here and stops at `/`, as it does in a chroot.
 */
function clientRelative(clientPath: string): string {
  return path.posix.normalize(`/${clientPath}`).replace(/^\/+/, '').replace(/\/+$/, '');
}

function handleKey(handle: Buffer): number {
  return handle.length === 4 ? handle.readUInt32BE(0) : -1;
}

/**
 * SFTP open flags as the kernel's (`openConfined` adds O_NOFOLLOW). O_NONBLOCK: opening a FIFO
 * someone made in the home must not hang a thread (regular files ignore it).
 */
function fsFlagsOf(flags: number): number {
  const c = fsConstants;
  const reading = (flags & OPEN_MODE.READ) !== 0;
  const writing = (flags & (OPEN_MODE.WRITE | OPEN_MODE.APPEND)) !== 0;
  let result = reading && writing ? c.O_RDWR : writing ? c.O_WRONLY : c.O_RDONLY;
  if (flags & OPEN_MODE.APPEND) result |= c.O_APPEND;
  if (flags & OPEN_MODE.CREAT) result |= c.O_CREAT;
  if (flags & OPEN_MODE.TRUNC) result |= c.O_TRUNC;
  if (flags & OPEN_MODE.EXCL) result |= c.O_EXCL;
  return result | c.O_NONBLOCK;
}

/** Permission bits only: setuid, setgid and sticky bits are never set from outside. */
function permissionsOf(mode: number | undefined, fallback: number): number {
  return typeof mode === 'number' ? mode & 0o777 : fallback;
}

function attributesOf(st: Stats): Attributes {
  return { mode: st.mode, uid: st.uid, gid: st.gid, size: st.size, atime: Math.floor(st.atimeMs / 1000), mtime: Math.floor(st.mtimeMs / 1000) };
}

/** An `ls -l` line, which OpenSSH's `ls -l` shows as it is. */
function longnameOf(name: string, st: Stats): string {
  const type = st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : st.isFile() ? '-' : '?';
  const permissions = [...'rwxrwxrwx'].map((letter, index) => (st.mode & (0o400 >> index) ? letter : '-')).join('');
  const modified = st.mtime.toISOString().slice(0, 16).replace('T', ' ');
  return `${type}${permissions} ${st.nlink} ${st.uid} ${st.gid} ${st.size} ${modified} ${name}`;
}

/**
 * The bytes each home holds, shared by every session of the server so parallel uploads to one
 * site count together. Measured by walking the home when a file is opened for writing and the
 * last walk is older than USAGE_FRESH_MS (catching what the file manager or PHP wrote meanwhile),
 * and kept up to date in between from the writes and removals seen here.
 */
class UsageLedger {
  private readonly homes = new Map<string, { bytes: number; measuredAt: number }>();
  private readonly measuring = new Map<string, Promise<void>>();

  async refresh(home: string): Promise<void> {
    const known = this.homes.get(home);
    if (known && Date.now() - known.measuredAt < USAGE_FRESH_MS) return;
    let pending = this.measuring.get(home);
    if (!pending) {
      pending = homeBytes(home)
        .then((bytes) => void this.homes.set(home, { bytes, measuredAt: Date.now() }))
        .finally(() => this.measuring.delete(home));
      this.measuring.set(home, pending);
    }
    await pending;
  }

  /** Counts `bytes` more unless that takes the home past `quotaBytes`. */
  async reserve(home: string, quotaBytes: number, bytes: number): Promise<boolean> {
    if (bytes <= 0) return true;
    if (!this.homes.has(home)) await this.refresh(home);
    const usage = this.homes.get(home);
    if (!usage || usage.bytes + bytes > quotaBytes) return false;
    usage.bytes += bytes;
    return true;
  }

  adjust(home: string, delta: number): void {
    const usage = this.homes.get(home);
    if (usage) usage.bytes = Math.max(0, usage.bytes + delta);
  }
}

/** The apparent size of every regular file under `dir`; symlinks are not followed. */
async function homeBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const child = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await homeBytes(child);
    else if (entry.isFile())
      total += await lstat(child).then(
        (st) => st.size,
        () => 0,
      );
  }
  return total;
}
