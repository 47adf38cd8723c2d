import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, readlink, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { Client, utils, type ConnectConfig, type FileEntry, type SFTPWrapper, type Stats } from 'ssh2';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { getLogger } from '../../platform/logger';
import { startSftpServer } from './sftp';
import type { SftpLogin, SftpServer } from './types';

const { STATUS_CODE } = utils.sftp;

let root: string;
let server: SftpServer;
const sites: Record<string, { password: string; quotaBytes: number }> = {
  alpha: { password: 'alpha-password-1', quotaBytes: 10 * 1024 * 1024 },
  beta: { password: 'beta-password-1', quotaBytes: 10 * 1024 * 1024 },
  small: { password: 'small-password-1', quotaBytes: 1000 },
};
const home = (site: string) => path.join(root, 'sites', site);
const CANARY = 'canary: must never change';

async function authenticate(username: string, password: string): Promise<SftpLogin | null> {
  const site = sites[username];
  if (!site || site.password !== password) return null;
  return { home: home(username), quotaBytes: site.quotaBytes };
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'hosting-sftp-'));
  for (const site of Object.keys(sites)) await mkdir(path.join(home(site), 'public_html'), { recursive: true });
  await writeFile(path.join(root, 'canary.txt'), CANARY);
  await writeFile(path.join(home('beta'), 'secret.txt'), 'beta secret');
  // What a PHP script of the site could have planted: links out of the home, and one that stays inside.
  await symlink(root, path.join(home('alpha'), 'out'));
  await symlink(path.join(root, 'canary.txt'), path.join(home('alpha'), 'outfile'));
  await symlink(home('beta'), path.join(home('alpha'), 'sibling'));
  await symlink(path.join(home('alpha'), 'public_html'), path.join(home('alpha'), 'web'));
  server = await startSftpServer({ host: '127.0.0.1', port: 0, hostKeyPath: path.join(root, 'keys', 'sftp_host_key'), authenticate });
});

afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

const clients: Client[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.end();
});

function connect(config: ConnectConfig, port = server.port): Promise<Client> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    clients.push(client);
    client.on('ready', () => resolve(client));
    client.on('error', reject);
    client.connect({ host: '127.0.0.1', port, readyTimeout: 15_000, hostVerifier: () => true, ...config });
  });
}

async function login(username: string, password = sites[username]!.password): Promise<SFTPWrapper> {
  const client = await connect({ username, password });
  return new Promise((resolve, reject) => client.sftp((err, sftp) => (err ? reject(err) : resolve(sftp))));
}

/** ssh2's callback style as a promise; a refusal carries the SFTP status as `code`. */
function call<T = void>(run: (done: (err: Error | null | undefined, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => run((err, value) => (err ? reject(err) : resolve(value as T))));
}

const put = (sftp: SFTPWrapper, file: string, data: string | Buffer) => call((done) => sftp.writeFile(file, data, done));
const get = (sftp: SFTPWrapper, file: string) => call<Buffer>((done) => sftp.readFile(file, done));
const list = (sftp: SFTPWrapper, dir: string) =>
  call<FileEntry[]>((done) => sftp.readdir(dir, done)).then((entries) => entries.map((entry) => entry.filename).sort());
const realpathOf = (sftp: SFTPWrapper, target: string) => call<string>((done) => sftp.realpath(target, done));

async function refused(operation: Promise<unknown>, status?: number): Promise<void> {
  const err = (await operation.then(
    () => null,
    (error: unknown) => error,
  )) as { code?: unknown } | null;
  expect(err, 'the operation was refused').not.toBeNull();
  if (status !== undefined) expect(err?.code).toBe(status);
}

async function canariesIntact(): Promise<void> {
  expect(await readFile(path.join(root, 'canary.txt'), 'utf8')).toBe(CANARY);
  expect(await readFile(path.join(home('beta'), 'secret.txt'), 'utf8')).toBe('beta secret');
  expect((await stat(path.join(root, 'canary.txt'))).mode & 0o7777).toBe(0o644 & ~process.umask());
  expect((await readdir(root)).sort()).toEqual(['canary.txt', 'keys', 'sites']);
  expect((await readdir(home('beta'))).sort()).toEqual(['public_html', 'secret.txt']);
}

describe('SFTP server', () => {
  it('keeps one host key, readable by its owner only', async () => {
    const keyPath = path.join(root, 'keys', 'sftp_host_key');
    expect((await stat(keyPath)).mode & 0o777).toBe(0o600);
    const key = await readFile(keyPath, 'utf8');
    const again = await startSftpServer({ host: '127.0.0.1', port: 0, hostKeyPath: keyPath, authenticate });
    try {
      const seen: Buffer[] = [];
      for (const port of [server.port, again.port]) {
        const client = await connect(
          { username: 'alpha', password: sites.alpha!.password, hostVerifier: (hostKey: Buffer) => Boolean(seen.push(hostKey)) },
          port,
        );
        client.end();
      }
      expect(seen[0]!.equals(seen[1]!)).toBe(true);
    } finally {
      await again.close();
    }
    expect(await readFile(keyPath, 'utf8')).toBe(key);
    await expect(startSftpServer({ host: '127.0.0.1', port: 22, hostKeyPath: keyPath, authenticate })).rejects.toThrow(/22/);
  });

  it('logs in with the right password into that site’s home: upload, list, download', async () => {
    const sftp = await login('alpha');
    expect(await realpathOf(sftp, '.')).toBe('/');
    const content = Buffer.from('<?php echo "hello";\n');
    await put(sftp, '/public_html/index.php', content);
    expect(await readFile(path.join(home('alpha'), 'public_html', 'index.php'))).toEqual(content);
    expect(await list(sftp, '/public_html')).toEqual(['index.php']);
    expect(await list(sftp, '/')).toEqual(['out', 'outfile', 'public_html', 'sibling', 'web']);
    expect(await get(sftp, '/public_html/index.php')).toEqual(content);
    // A link that stays inside the home works as the customer expects.
    expect(await get(sftp, 'web/index.php')).toEqual(content);
    expect(await realpathOf(sftp, '/web/index.php')).toBe('/public_html/index.php');

    await call((done) => sftp.mkdir('/public_html/assets', done));
    await call((done) => sftp.rename('/public_html/index.php', '/public_html/assets/home.php', done));
    await refused(
      call((done) => sftp.rename('/public_html/assets/home.php', '/public_html/assets', done)),
      STATUS_CODE.FAILURE,
    );
    const stats = await call<Stats>((done) => sftp.stat('/public_html/assets/home.php', done));
    expect(stats.size).toBe(content.length);
    expect(stats.isFile()).toBe(true);
    await call((done) => sftp.unlink('/public_html/assets/home.php', done));
    await call((done) => sftp.rmdir('/public_html/assets', done));
    expect(await readdir(path.join(home('alpha'), 'public_html'))).toEqual([]);

    const beta = await login('beta');
    expect(await list(beta, '/')).toEqual(['public_html', 'secret.txt']);
  });

  it('refuses a wrong password, an unknown user and a public key, logging no password', async () => {
    const logged: string[] = [];
    const record = (...args: unknown[]) => void logged.push(JSON.stringify(args));
    const fake = { info: record, warn: record, error: record, debug: record } as unknown as Logger<string>;
    const child = vi.spyOn(getLogger(), 'child').mockReturnValue(fake);
    try {
      const started = Date.now();
      await expect(connect({ username: 'alpha', password: 'not-the-password' })).rejects.toThrow(/authentication/i);
      // A refusal is answered only after a pause, which slows guessing down.
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      await expect(connect({ username: 'alpha', password: sites.beta!.password })).rejects.toThrow(/authentication/i);
      await expect(connect({ username: 'nobody', password: sites.alpha!.password })).rejects.toThrow(/authentication/i);
      const { private: privateKey } = utils.generateKeyPairSync('ed25519');
      await expect(connect({ username: 'alpha', privateKey })).rejects.toThrow(/authentication/i);
    } finally {
      child.mockRestore();
    }
    const text = logged.join('\n');
    expect(text).toContain('SFTP login refused');
    expect(text).toContain('nobody');
    for (const password of ['not-the-password', sites.alpha!.password, sites.beta!.password]) expect(text).not.toContain(password);
  });

  it('offers no shell, no command and no port forwarding', async () => {
    const client = await connect({ username: 'alpha', password: sites.alpha!.password });
    await refused(call((done) => client.exec('id', done)));
    await refused(call((done) => client.shell(done)));
    await refused(call((done) => client.forwardOut('127.0.0.1', 0, '127.0.0.1', server.port, done)));
    await refused(call((done) => client.forwardIn('127.0.0.1', 0, done)));
  });

  it('stops `..` at the home, as a chroot does', async () => {
    const sftp = await login('alpha');
    expect(await realpathOf(sftp, '..')).toBe('/');
    expect(await realpathOf(sftp, '/../../etc')).toBe('/etc');
    expect(await list(sftp, '/..')).toEqual(await list(sftp, '/'));
    await refused(get(sftp, '/../canary.txt'), STATUS_CODE.NO_SUCH_FILE);
    await refused(get(sftp, '../../../../../../etc/passwd'), STATUS_CODE.NO_SUCH_FILE);
    await put(sftp, '/../../canary.txt', 'written from inside');
    expect(await readFile(path.join(home('alpha'), 'canary.txt'), 'utf8')).toBe('written from inside');
    await call((done) => sftp.unlink('/../canary.txt', done));
    await refused(
      call((done) => sftp.rmdir('/..', done)),
      STATUS_CODE.PERMISSION_DENIED,
    );
    await refused(
      call((done) => sftp.rename('/', '/moved', done)),
      STATUS_CODE.PERMISSION_DENIED,
    );
    await refused(get(sftp, '/public_html/\u0000/../../canary.txt'));
    await refused(get(sftp, '..\\..\\canary.txt'), STATUS_CODE.PERMISSION_DENIED);
    await canariesIntact();
  });

  it('follows no symlink out of the home, whatever the operation', async () => {
    const sftp = await login('alpha');
    const denied = STATUS_CODE.PERMISSION_DENIED;
    await refused(list(sftp, '/out'), denied);
    await refused(list(sftp, '/sibling'), denied);
    await refused(get(sftp, '/out/canary.txt'), denied);
    await refused(get(sftp, '/outfile'), denied);
    await refused(get(sftp, '/sibling/secret.txt'), denied);
    await refused(put(sftp, '/outfile', 'overwritten'), denied);
    await refused(put(sftp, '/out/new.txt', 'planted'), denied);
    await refused(put(sftp, '/sibling/secret.txt', 'overwritten'), denied);
    await refused(
      call((done) => sftp.appendFile('/outfile', 'appended', done)),
      denied,
    );
    await refused(
      call((done) => sftp.stat('/outfile', done)),
      denied,
    );
    await refused(
      call((done) => sftp.chmod('/outfile', 0o777, done)),
      denied,
    );
    await refused(
      call((done) => sftp.setstat('/outfile', { size: 0 }, done)),
      denied,
    );
    await refused(
      call((done) => sftp.utimes('/outfile', 1, 1, done)),
      denied,
    );
    await refused(
      call((done) => sftp.mkdir('/out/newdir', done)),
      denied,
    );
    await refused(
      call((done) => sftp.rmdir('/out/sites', done)),
      denied,
    );
    await refused(
      call((done) => sftp.unlink('/out/canary.txt', done)),
      denied,
    );
    await refused(
      call((done) => sftp.unlink('/sibling/secret.txt', done)),
      denied,
    );
    await refused(
      call((done) => sftp.rename('/out/canary.txt', '/stolen.txt', done)),
      denied,
    );
    await refused(
      call((done) => sftp.rename('/sibling/secret.txt', '/stolen.txt', done)),
      denied,
    );
    await put(sftp, '/mine.txt', 'mine');
    await refused(
      call((done) => sftp.rename('/mine.txt', '/out/mine.txt', done)),
      denied,
    );
    await refused(
      call((done) => sftp.rename('/mine.txt', '/sibling/mine.txt', done)),
      denied,
    );
    await refused(realpathOf(sftp, '/out'), denied);
    await refused(
      call((done) => sftp.readlink('/outfile', done)),
      denied,
    );
    await refused(
      call((done) => sftp.open('/out/canary.txt', 'r', done)),
      denied,
    );
    await refused(
      call((done) => sftp.opendir('/out', done)),
      denied,
    );
    expect(await call<string>((done) => sftp.readlink('/web', done))).toBe('/public_html');
    // The link itself can be seen and removed: only what it points to is out of reach.
    expect((await call<Stats>((done) => sftp.lstat('/outfile', done))).isSymbolicLink()).toBe(true);
    await call((done) => sftp.unlink('/mine.txt', done));
    await canariesIntact();
    await call((done) => sftp.unlink('/outfile', done));
    await expect(lstat(path.join(home('alpha'), 'outfile'))).rejects.toMatchObject({ code: 'ENOENT' });
    await canariesIntact();
    await symlink(path.join(root, 'canary.txt'), path.join(home('alpha'), 'outfile'));
  });

  it('refuses to make symlinks', async () => {
    const sftp = await login('alpha');
    await refused(
      call((done) => sftp.symlink('/etc/passwd', '/passwd', done)),
      STATUS_CODE.PERMISSION_DENIED,
    );
    await refused(
      call((done) => sftp.symlink('/public_html', '/link', done)),
      STATUS_CODE.PERMISSION_DENIED,
    );
    await refused(call((done) => sftp.ext_openssh_hardlink('/outfile', '/hard', done)));
    expect(existsSync(path.join(home('alpha'), 'passwd'))).toBe(false);
    expect(existsSync(path.join(home('alpha'), 'link'))).toBe(false);
    expect(existsSync(path.join(home('alpha'), 'hard'))).toBe(false);
  });

  it('lets modes change, but never sets setuid, setgid or sticky bits', async () => {
    const sftp = await login('alpha');
    await put(sftp, '/public_html/run.sh', '#!/bin/sh\n');
    await call((done) => sftp.chmod('/public_html/run.sh', 0o6755, done));
    expect((await stat(path.join(home('alpha'), 'public_html', 'run.sh'))).mode & 0o7777).toBe(0o755);
    await call((done) => sftp.mkdir('/public_html/sticky', { mode: 0o1777 }, done));
    expect((await stat(path.join(home('alpha'), 'public_html', 'sticky'))).mode & 0o7000).toBe(0);
    await call((done) => sftp.unlink('/public_html/run.sh', done));
    await call((done) => sftp.rmdir('/public_html/sticky', done));
  });

  it('counts writes against the quota', async () => {
    const sftp = await login('small');
    await put(sftp, '/a.txt', Buffer.alloc(600, 'a'));
    const err = await put(sftp, '/b.txt', Buffer.alloc(600, 'b')).catch((error: unknown) => error as Error & { code: number });
    expect(err).toMatchObject({ code: STATUS_CODE.FAILURE, message: 'quota exceeded' });
    // Replacing a file counts its new size only; removing one frees its space.
    await put(sftp, '/a.txt', Buffer.alloc(900, 'a'));
    await refused(put(sftp, '/c.txt', Buffer.alloc(200, 'c')), STATUS_CODE.FAILURE);
    await refused(
      call((done) => sftp.setstat('/a.txt', { size: 5000 }, done)),
      STATUS_CODE.FAILURE,
    );
    // A write far past the end would make a sparse file that claims that size: refused too.
    const handle = await call<Buffer>((done) => sftp.open('/sparse.bin', 'w', done));
    await refused(
      call((done) => sftp.write(handle, Buffer.from('x'), 0, 1, 1_000_000, done)),
      STATUS_CODE.FAILURE,
    );
    await call((done) => sftp.close(handle, done));
    await call((done) => sftp.unlink('/sparse.bin', done));
    await call((done) => sftp.unlink('/a.txt', done));
    await put(sftp, '/b.txt', Buffer.alloc(600, 'b'));
    expect((await stat(path.join(home('small'), 'b.txt'))).size).toBe(600);
  });

  it('closes the files a client left open when it goes away', async () => {
    const client = await connect({ username: 'alpha', password: sites.alpha!.password });
    const sftp = await new Promise<SFTPWrapper>((resolve, reject) => client.sftp((err, channel) => (err ? reject(err) : resolve(channel))));
    await call<Buffer>((done) => sftp.open('/public_html/left-open.txt', 'w', done));
    const target = path.join(await realpath(home('alpha')), 'public_html', 'left-open.txt');
    const openHere = async () => {
      const descriptors = await readdir('/proc/self/fd');
      const links = await Promise.all(descriptors.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
      return links.includes(target);
    };
    expect(await openHere()).toBe(true);
    client.end();
    await vi.waitFor(async () => expect(await openHere()).toBe(false), { timeout: 5000 });
    await rm(target);
  });

  // OpenSSH's sftp reads the password through SSH_ASKPASS, forced even without a display (OpenSSH 8.4+), so no sshpass is needed.
  it.skipIf(!existsSync('/usr/bin/sftp'))('works with OpenSSH sftp', async () => {
    const work = await mkdtemp(path.join(tmpdir(), 'hosting-sftp-openssh-'));
    try {
      const askpass = path.join(work, 'askpass.sh');
      await writeFile(askpass, `#!/bin/sh\necho '${sites.alpha!.password}'\n`);
      await chmod(askpass, 0o700);
      await writeFile(path.join(work, 'local.txt'), 'from openssh\n');
      const batch = path.join(work, 'batch');
      await writeFile(
        batch,
        [
          'cd ..',
          'pwd',
          `put ${path.join(work, 'local.txt')} /public_html/openssh.txt`,
          'ls -l /public_html',
          `get /public_html/openssh.txt ${path.join(work, 'back.txt')}`,
          'rm /public_html/openssh.txt',
          'bye',
          '',
        ].join('\n'),
      );
      const args = [
        '-F',
        '/dev/null',
        '-oBatchMode=no',
        '-oStrictHostKeyChecking=no',
        '-oUserKnownHostsFile=/dev/null',
        '-oPreferredAuthentications=password',
        '-oNumberOfPasswordPrompts=1',
        '-P',
        String(server.port),
        '-b',
        batch,
        'alpha@127.0.0.1',
      ];
      const output = await new Promise<string>((resolve, reject) => {
        const child = execFile(
          '/usr/bin/sftp',
          args,
          { env: { ...process.env, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: ':0' }, timeout: 30_000 },
          (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
        );
        child.stdin?.end();
      });
      expect(output).toContain('Remote working directory: /');
      expect(output).toMatch(/-rw-\S+ .* openssh\.txt/);
      expect(await readFile(path.join(work, 'back.txt'), 'utf8')).toBe('from openssh\n');
      expect(existsSync(path.join(home('alpha'), 'public_html', 'openssh.txt'))).toBe(false);
      await canariesIntact();
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});
