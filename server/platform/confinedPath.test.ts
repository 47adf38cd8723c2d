import { constants } from 'node:fs';
import { lstat, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

/**
 * Fault injection for what a disk can do but a test machine (running as root) will not: the next
 * call of `fn` on a path ending with `suffix` fails with the errno `code`. Every other call is real.
 */
const faults = vi.hoisted(() => [] as { fn: 'lstat' | 'readlink' | 'realpath'; suffix: string; code: string }[]);

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const faulty = (fn: 'lstat' | 'readlink' | 'realpath') => {
    const real = actual[fn] as (file: unknown, ...rest: unknown[]) => Promise<unknown>;
    return (file: unknown, ...rest: unknown[]) => {
      const index = faults.findIndex((fault) => fault.fn === fn && String(file).endsWith(fault.suffix));
      if (index === -1) return real(file, ...rest);
      const [fault] = faults.splice(index, 1);
      return Promise.reject(Object.assign(new Error(`${fault!.code}: injected by the test`), { code: fault!.code }));
    };
  };
  return { ...actual, lstat: faulty('lstat'), readlink: faulty('readlink'), realpath: faulty('realpath') };
});

// Under vitest.config.ts, test/setup.ts has already loaded the app, so the cached confinedPath.ts is
// bound to the real node:fs/promises; only a fresh copy picks up the mock above.
vi.resetModules();
const { isInside, isSafeName, locateConfined, openConfined, parseRelativePath, resolveConfined } = await import('./confinedPath');
const { AppError } = await import('./errors');
type AppError = InstanceType<typeof AppError>;

afterEach(() => {
  faults.length = 0;
});

let root: string;
let home: string;
let sibling: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'confined-')));
  home = path.join(root, 'sites', 'alpha');
  sibling = path.join(root, 'sites', 'beta');
  await mkdir(path.join(home, 'public_html', 'assets'), { recursive: true });
  await mkdir(sibling, { recursive: true });
  await writeFile(path.join(home, 'public_html', 'index.php'), '<?php echo 1;');
  await writeFile(path.join(home, '.htaccess'), 'x');
  await writeFile(path.join(sibling, 'secret.txt'), 'sibling');
  await writeFile(path.join(root, 'outside.txt'), 'outside');
  await symlink('/etc', path.join(home, 'etc-link'));
  await symlink(sibling, path.join(home, 'sibling-link'));
  await symlink('../beta/secret.txt', path.join(home, 'relative-out'));
  await symlink('public_html', path.join(home, 'web'));
  await symlink('public_html/index.php', path.join(home, 'index-link'));
  await symlink('does-not-exist', path.join(home, 'dangling'));
  await symlink('loop-b', path.join(home, 'loop-a'));
  await symlink('loop-a', path.join(home, 'loop-b'));
  await symlink('public_html/index.php/x', path.join(home, 'through-file'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  const app = err as AppError;
  expect(app.message).not.toContain(root);
  return app;
}

describe('paths refused as text', () => {
  const hostile = [
    '..',
    '../',
    '../outside.txt',
    'public_html/../../beta/secret.txt',
    'public_html/..',
    './public_html',
    'public_html/./index.php',
    '.',
    '...',
    '....//',
    '. .',
    '.. ',
    'public_html//index.php',
    'public_html/',
    '/etc/passwd',
    '/',
    'C:\\Windows',
    'C:/Windows',
    'c:',
    '..\\..\\etc',
    '\\\\server\\share',
    'public_html\\index.php',
    'a\u0000b',
    'index.php\u0000.txt',
    'a\nb',
    'a\u007fb',
    'a\u0085b',
    'evil\u202Egpj.php',
    '%2e%2e%2f',
    '%2e%2e/etc',
    '%2E%2E%2Fetc%2Fpasswd',
    'a%2fb',
    'a%5cb',
    '%252e%252e%252f',
    '%25252e%25252e%25252f',
    '%00',
    '%c0%ae%c0%ae%c0%af',
    '%e0%80%ae',
    '%ef%bc%8e%ef%bc%8e',
    '\u2025',
    '\u2025/etc',
    '\uFF0E\uFF0E/',
    '\uFF0E\uFF0E',
    '\uFE52',
    'a\uFF0Fb',
    'a\u2215b',
    'a\uFF3Cb',
    '\uFFFD\uFFFD',
    'a\uD800b',
    'index.php.',
    'index.php ',
    ' index.php',
    'x'.repeat(256),
    `${'a/'.repeat(512)}a`,
  ];

  it.each(hostile.map((p) => [JSON.stringify(p).slice(0, 60), p]))('%s', async (_label, relative) => {
    const err = await refusal(resolveConfined(home, relative, { allowHome: true }));
    expect(err.code).toBe('BAD_REQUEST');
  });

  it('limits whole paths at 1024 bytes and names at 255, counted in UTF-8', () => {
    expect(parseRelativePath('x'.repeat(255), false)).toHaveLength(1);
    expect(() => parseRelativePath('é'.repeat(128), false)).toThrow(/255 bytes/);
    const atLimit = Array.from({ length: 8 }, () => 'y'.repeat(127)).join('/');
    expect(Buffer.byteLength(atLimit)).toBe(1023);
    expect(parseRelativePath(`${atLimit}z`, false)).toHaveLength(8);
    expect(() => parseRelativePath(`${atLimit}zz`, false)).toThrow(/1024 bytes/);
  });

  it('refuses the empty path unless the home is allowed', async () => {
    expect((await refusal(resolveConfined(home, ''))).message).toMatch(/path is required/);
    expect(await resolveConfined(home, '', { allowHome: true })).toBe(home);
    expect(await locateConfined(home, '', { allowHome: true })).toEqual({
      home,
      relative: '',
      entry: home,
      target: home,
      stats: expect.objectContaining({ isDirectory: expect.any(Function) }),
    });
  });

  it('refuses a path that is not a string', () => {
    expect(() => parseRelativePath(42 as unknown as string, true)).toThrow(new AppError('BAD_REQUEST', 'The path must be a string'));
  });

  // Each check answers with its own reason, so the customer learns what to fix.
  it.each([
    ['a\uD800b', /not valid UTF-8/],
    ['\uFFFD', /not valid UTF-8/],
    ['a\u0000b', /NUL or other control characters/],
    ['a\\b', /must not contain backslashes/],
    ['/etc/passwd', /without a leading \/ or drive/],
    ['C:/Windows', /without a leading \/ or drive/],
    ['..', /must not contain \. or \.\. segments/],
    ['public_html/. .', /must not contain \. or \.\. segments/],
    ['index.php.', /must not start with a space or end with a space or a dot/],
    ['a/ lead', /must not start with a space or end with a space or a dot/],
    ['\uFF0E\uFF0E', /imitates \., \.\. or \/ with look-alike/],
    ['%c0%ae%c0%ae', /percent-encoded bytes that are not UTF-8/],
    ['a%2fb', /percent-encoded separator or control character/],
    ['a%00b', /percent-encoded separator or control character/],
    ['%2e%2e', /percent-encoded \. or \.\. segment/],
    ['x/%20', /percent-encoded \. or \.\. segment/],
  ])('explains why %j is refused', (relative, reason) => {
    expect(() => parseRelativePath(relative, true)).toThrow(reason);
  });

  it('looks through at most four layers of percent-encoding', () => {
    const fourLayers = '%2525252e%2525252e';
    expect(() => parseRelativePath(fourLayers, false)).toThrow(/percent-encoded \. or \.\. segment/);
    // A fifth layer is past the bound: a literal name like any other.
    const fiveLayers = '%252525252e%252525252e';
    expect(parseRelativePath(fiveLayers, false)).toEqual([fiveLayers]);
  });
});

describe('paths accepted', () => {
  it.each([
    ['public_html/index.php', 'public_html/index.php'],
    ['.htaccess', '.htaccess'],
    ['public_html/assets', 'public_html/assets'],
    ['new file.txt', 'new file.txt'],
    ['..hidden', '..hidden'],
    ['a..b', 'a..b'],
    ['100%.txt', '100%.txt'],
    ['%41.txt', '%41.txt'],
    ['name%2ebak', 'name%2ebak'],
    // Only a whole segment of dots or spaces is a traversal, decoded or look-alike; these are names.
    ['%2ehidden', '%2ehidden'],
    ['trailing%2e', 'trailing%2e'],
    ['trailing\u2024', 'trailing\u2024'],
    // A multi-byte character, percent-encoded, decodes as one.
    ['caf%c3%a9.txt', 'caf%c3%a9.txt'],
    // A colon is only a drive at the start.
    ['public_html/draft:v2.txt', 'public_html/draft:v2.txt'],
  ])('%s', async (relative, expected) => {
    expect(await resolveConfined(home, relative)).toBe(path.join(home, expected));
  });

  it('normalizes to NFC', async () => {
    const nfd = 'cafe\u0301.txt';
    expect(await resolveConfined(home, nfd)).toBe(path.join(home, 'caf\u00e9.txt'));
  });

  it('follows a link that stays inside the home, to its real target', async () => {
    expect(await resolveConfined(home, 'web/index.php', { mustExist: true })).toBe(path.join(home, 'public_html', 'index.php'));
    expect(await resolveConfined(home, 'index-link', { mustExist: true })).toBe(path.join(home, 'public_html', 'index.php'));
    const location = await locateConfined(home, 'web', { mustExist: true });
    expect(location.entry).toBe(path.join(home, 'web'));
    expect(location.target).toBe(path.join(home, 'public_html'));
    expect(location.stats?.isSymbolicLink()).toBe(true);
  });

  it('resolves through a home that is itself reached by a link', async () => {
    const linkedHome = path.join(root, 'linked-home');
    await symlink(home, linkedHome);
    expect(await resolveConfined(linkedHome, 'public_html/index.php', { mustExist: true })).toBe(path.join(home, 'public_html', 'index.php'));
  });
});

describe('links that lead outside', () => {
  it.each([
    ['etc-link', {}],
    ['etc-link/passwd', { mustExist: true }],
    ['etc-link/new-file', { parentMustExist: true }],
    ['etc-link/a/b/c', {}],
    ['sibling-link', {}],
    ['sibling-link/secret.txt', { mustExist: true }],
    ['relative-out', {}],
    ['dangling', {}],
    ['dangling/x', {}],
    ['loop-a', {}],
  ] as const)('%s is refused', async (relative, options) => {
    const err = await refusal(resolveConfined(home, relative, options));
    expect(err.code).toBe('BAD_REQUEST');
  });

  it.each([
    ['etc-link/passwd', '"etc-link" is a symbolic link that leads outside the site\'s home'],
    ['dangling', '"dangling" is a symbolic link whose target does not exist'],
    ['through-file', '"through-file" is a symbolic link whose target does not exist'],
    ['loop-a/x', '"loop-a" is a loop of symbolic links'],
  ])('says why %s is refused, naming only the customer path', async (relative, message) => {
    expect(await refusal(resolveConfined(home, relative))).toEqual(new AppError('BAD_REQUEST', message));
  });

  it('passes on an unexpected error while resolving a link', async () => {
    faults.push({ fn: 'realpath', suffix: `${path.sep}web`, code: 'EIO' });
    await expect(resolveConfined(home, 'web/index.php')).rejects.toMatchObject({ code: 'EIO' });
  });

  it('refuses a symlinked parent folder leading out', async () => {
    await symlink(path.join(root, 'sites'), path.join(home, 'public_html', 'up'));
    const err = await refusal(resolveConfined(home, 'public_html/up/beta/secret.txt', { mustExist: true }));
    expect(err.code).toBe('BAD_REQUEST');
    await rm(path.join(home, 'public_html', 'up'));
  });
});

describe('existence', () => {
  it('answers 404 for a missing entry with mustExist, naming only the customer path', async () => {
    const err = await refusal(resolveConfined(home, 'public_html/missing.php', { mustExist: true }));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toContain('public_html/missing.php');
  });

  it('answers 404 for a missing parent with parentMustExist, and allows a missing final name', async () => {
    expect((await refusal(resolveConfined(home, 'nope/new.txt', { parentMustExist: true }))).code).toBe('NOT_FOUND');
    expect(await resolveConfined(home, 'public_html/new.txt', { parentMustExist: true })).toBe(path.join(home, 'public_html', 'new.txt'));
  });

  it('names the first missing folder, and only up to it', async () => {
    const err = await refusal(resolveConfined(home, 'public_html/nope/deeper/new.txt', { mustExist: true }));
    expect(err).toEqual(new AppError('NOT_FOUND', '"public_html/nope" not found'));
  });

  it('projects a path below missing folders when nothing must exist', async () => {
    expect(await resolveConfined(home, 'a/b/c')).toBe(path.join(home, 'a', 'b', 'c'));
    expect(await locateConfined(home, 'public_html/new-dir/new.txt')).toEqual({
      home,
      relative: 'public_html/new-dir/new.txt',
      entry: path.join(home, 'public_html', 'new-dir', 'new.txt'),
      target: path.join(home, 'public_html', 'new-dir', 'new.txt'),
      stats: null,
    });
  });

  it('refuses a file used as a folder', async () => {
    const err = await refusal(resolveConfined(home, 'public_html/index.php/x'));
    expect(err).toEqual(new AppError('BAD_REQUEST', '"public_html/index.php" is not a folder'));
  });

  it('answers 404 when the home itself is missing', async () => {
    const err = await refusal(resolveConfined(path.join(root, 'sites', 'gone'), 'x'));
    expect(err).toEqual(new AppError('NOT_FOUND', "The site's home folder does not exist"));
  });

  it("passes on other errors reaching the home, which are not the customer's to fix", async () => {
    await expect(resolveConfined(path.join(home, '.htaccess', 'x'), 'x')).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('does not take an unreadable entry for a missing one', async () => {
    faults.push({ fn: 'lstat', suffix: `${path.sep}.htaccess`, code: 'EIO' });
    await expect(resolveConfined(home, '.htaccess')).rejects.toMatchObject({ code: 'EIO' });
  });
});

describe('isSafeName', () => {
  it.each(['index.php', '.htaccess', 'photo 1.jpg', 'ünïcödé.txt', '%41'])('accepts %s', (name) => {
    expect(isSafeName(name)).toBe(true);
  });
  it.each(['', '.', '..', 'a/b', 'a\\b', 'a\u0000', '\u2025', '%2e%2e', 'x'.repeat(256), 'trailing.', ' lead', '/abs', 'a/', 'a//b'])('refuses %j', (name) => {
    expect(isSafeName(name)).toBe(false);
  });
  it.each([undefined, null, 42, ['a']])('refuses %j, which is not a string', (name) => {
    expect(isSafeName(name as unknown as string)).toBe(false);
  });
});

describe('isInside', () => {
  it('tells a sibling starting with the same letters and names starting with dots apart', () => {
    expect(isInside('/data/sites/a', '/data/sites/a')).toBe(true);
    expect(isInside('/data/sites/a', '/data/sites/a/..x')).toBe(true);
    expect(isInside('/data/sites/a', '/data/sites/ab')).toBe(false);
    expect(isInside('/data/sites/a', '/data/sites')).toBe(false);
    expect(isInside('/data/sites/a', '/etc')).toBe(false);
  });
});

describe('openConfined', () => {
  it('opens a file inside the home', async () => {
    const handle = await openConfined(home, path.join(home, 'public_html', 'index.php'), constants.O_RDONLY);
    expect((await handle.readFile()).toString()).toBe('<?php echo 1;');
    await handle.close();
  });

  it('never follows a final link', async () => {
    const err = await refusal(openConfined(home, path.join(home, 'index-link'), constants.O_RDONLY));
    expect(err).toEqual(new AppError('BAD_REQUEST', 'The file was replaced by a symbolic link while it was being opened; try again'));
  });

  it('passes on other errors from opening', async () => {
    await expect(openConfined(home, path.join(home, 'missing.txt'), constants.O_RDONLY)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('trusts the path checks when /proc cannot tell where a descriptor landed', async () => {
    faults.push({ fn: 'readlink', suffix: '', code: 'ENOENT' });
    const handle = await openConfined(home, path.join(home, 'public_html', 'index.php'), constants.O_RDONLY);
    expect((await handle.readFile()).toString()).toBe('<?php echo 1;');
    await handle.close();
    expect(faults).toHaveLength(0);
  });

  it('removes a file it made outside the home before refusing', async () => {
    const made = path.join(sibling, 'made-by-open.txt');
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;
    expect((await refusal(openConfined(home, path.join(home, 'sibling-link', 'made-by-open.txt'), flags))).code).toBe('BAD_REQUEST');
    await expect(lstat(made)).rejects.toThrow();
  });

  it('catches a folder swapped for a link after the check', async () => {
    const err = await refusal(openConfined(home, path.join(home, 'sibling-link', 'secret.txt'), constants.O_RDONLY));
    expect(err).toEqual(new AppError('BAD_REQUEST', "The path leads outside the site's home"));
  });

  // Only a file this very call created (O_CREAT with O_EXCL) is removed; one that was there stays.
  it.each([
    ['O_RDONLY', constants.O_RDONLY],
    ['O_RDONLY | O_EXCL', constants.O_RDONLY | constants.O_EXCL],
    ['O_WRONLY | O_CREAT', constants.O_WRONLY | constants.O_CREAT],
  ])('leaves a file that was already outside alone when opened with %s', async (label, flags) => {
    const name = `kept-${label.replace(/\W+/g, '-')}.txt`;
    await writeFile(path.join(sibling, name), 'kept');
    expect((await refusal(openConfined(home, path.join(home, 'sibling-link', name), flags))).code).toBe('BAD_REQUEST');
    expect(await readFile(path.join(sibling, name), 'utf8')).toBe('kept');
  });
});
