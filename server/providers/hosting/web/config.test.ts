import { describe, expect, it } from 'vitest';
import { AppError } from '../../../platform/errors';
import type { HostRoute, SiteServing } from '../types';
import { checkSiteName, isValidHostname, redirectBase, renderNginxConf, renderPhpFpmConf, renderPool, renderServerBlocks, siteFiles, webPaths } from './config';

const paths = webPaths('/srv/hosting/web');
const HOME = '/srv/hosting/sites/alpha';
const ROOT = { uid: 0, gid: 0, user: 'root' };

function site(overrides: Partial<SiteServing> = {}, hosts?: HostRoute[]): SiteServing {
  return {
    siteName: 'alpha',
    home: HOME,
    phpVersion: '8.3',
    phpWorkers: 2,
    memoryMb: 256,
    suspended: false,
    hosts: hosts ?? [{ hostname: 'alpha.sites.example', kind: 'SITE', documentRoot: `${HOME}/public_html` }],
    ...overrides,
  };
}

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('hostname validation', () => {
  it.each(['example.com', 'www.example.co.uk', 'a-b.example.com', 'xn--bcher-kva.example', 'my_site.sites.localhost', `${'a'.repeat(63)}.com`])(
    'accepts %s',
    (hostname) => {
      expect(isValidHostname(hostname)).toBe(true);
    },
  );

  it.each([
    'a.com; include /etc',
    'a.com;',
    'a.com\ninclude /etc/passwd',
    'a.com\n',
    'a.com\r\n',
    '$host.example.com',
    'a.com$request_uri',
    'a.com{',
    'a.com}',
    'a.com"',
    "a.com'",
    'a.com\\',
    'a.com#x',
    'a com',
    'a.com\0',
    'A.COM',
    'localhost',
    '.a.com',
    'a.com.',
    'a..com',
    '-a.com',
    'a-.com',
    '*.example.com',
    '~^(.*)$',
    `${'a'.repeat(64)}.com`,
    `${'a.'.repeat(127)}com`,
    '',
  ])('refuses %j', (hostname) => {
    expect(isValidHostname(hostname)).toBe(false);
    const error = refusal(() => renderServerBlocks(site({}, [{ hostname, kind: 'PARKED' }]), paths));
    expect(error.code).toBe('BAD_REQUEST');
  });
});

describe('site names', () => {
  it.each(['abc', 'my_site', 'a1b2', `a${'b'.repeat(39)}`])('accepts %s', (name) => {
    expect(checkSiteName(name)).toBe(name);
  });

  it.each(['ab', 'Abc', '1abc', '_idle', 'a-bc', 'a.bc', '../etc', 'abc/def', 'abc]', 'abc\n', `a${'b'.repeat(40)}`])(
    'refuses %j as a pool or file name',
    (name) => {
      expect(refusal(() => siteFiles(paths, name)).code).toBe('BAD_REQUEST');
      expect(refusal(() => renderPool(site({ siteName: name }), paths, null)).code).toBe('BAD_REQUEST');
    },
  );
});

describe('php-fpm pools', () => {
  // The tiers' figures (server/domains/hosting/tiers.ts, which this layer may not import).
  it.each([
    ['STARTER', { phpWorkers: 2, memoryMb: 256 }],
    ['GROWTH', { phpWorkers: 5, memoryMb: 512 }],
    ['SCALE', { phpWorkers: 12, memoryMb: 1024 }],
  ])('carries the %s tier’s workers and memory', (_tier, limits) => {
    const pool = renderPool(site({ phpWorkers: limits.phpWorkers, memoryMb: limits.memoryMb }), paths, null);
    expect(pool).toContain('\n[alpha]\n');
    expect(pool).toContain('pm = ondemand\n');
    expect(pool).toContain(`pm.max_children = ${limits.phpWorkers}\n`);
    expect(pool).toContain(`php_admin_value[memory_limit] = ${limits.memoryMb}M\n`);
  });

  it('confines PHP to the home, listens on its own socket and records the asked version', () => {
    const pool = renderPool(site({ phpVersion: '8.1' }), paths, null);
    expect(pool).toContain(`php_admin_value[open_basedir] = "${HOME}:/srv/hosting/web/php-tmp/alpha"\n`);
    for (const setting of ['session.save_path', 'upload_tmp_dir', 'sys_temp_dir']) {
      expect(pool).toContain(`php_admin_value[${setting}] = "/srv/hosting/web/php-tmp/alpha"\n`);
    }
    expect(pool).toContain(`chdir = "${HOME}"\n`);
    expect(pool).toContain('listen = "/srv/hosting/web/sock/alpha.sock"\n');
    expect(pool).toContain('listen.mode = 0600\n');
    expect(pool).toContain('phpVersion 8.1 asked');
    expect(pool).toContain('php_admin_value[disable_functions] = exec,passthru,shell_exec,system,proc_open,popen,pcntl_exec\n');
    expect(pool).toContain('php_admin_value[opcache.revalidate_freq] = 0\n');
    expect(pool).not.toMatch(/^user =/m);
  });

  it('names a user only when the app runs as root', () => {
    const pool = renderPool(site(), paths, ROOT);
    expect(pool).toContain('user = 0\ngroup = 0\n');
    expect(renderPhpFpmConf(paths, ROOT)).toContain('user = 0\n');
    expect(renderPhpFpmConf(paths, null)).not.toMatch(/^user =/m);
  });

  it('refuses limits that are not positive integers', () => {
    for (const overrides of [{ phpWorkers: 0 }, { phpWorkers: 1.5 }, { memoryMb: Number.NaN }, { memoryMb: 8 }]) {
      expect(refusal(() => renderPool(site(overrides), paths, null)).code).toBe('BAD_REQUEST');
    }
  });

  it('keeps php-fpm running with no site through an idle pool no site can be named', () => {
    const conf = renderPhpFpmConf(paths, null);
    expect(conf).toContain('[_idle]\n');
    expect(conf).toContain('include = "/srv/hosting/web/pools/*.conf"\n');
    expect(conf).toContain('error_log = "/srv/hosting/web/php-fpm.log"\n');
  });
});

describe('server blocks', () => {
  it('serves a SITE hostname from its document root through the site’s pool, symlinks refused', () => {
    const text = renderServerBlocks(site(), paths);
    expect(text).toContain('server_name alpha.sites.example;');
    expect(text).toContain(`root "${HOME}/public_html";`);
    expect(text).toContain('index index.php index.html;');
    expect(text).toContain(`disable_symlinks on "from=${HOME}";`);
    expect(text).toContain('location ~ \\.php$ {');
    expect(text).toContain('try_files $uri =404;');
    expect(text).toContain('fastcgi_param SCRIPT_FILENAME $realpath_root$fastcgi_script_name;');
    expect(text).toContain('fastcgi_pass "unix:/srv/hosting/web/sock/alpha.sock";');
    expect(text).toContain('include "/srv/hosting/web/listen.conf";');
  });

  it('writes one server block per hostname, each as its kind says', () => {
    const text = renderServerBlocks(
      site({}, [
        { hostname: 'alpha.sites.example', kind: 'SITE', documentRoot: `${HOME}/public_html` },
        { hostname: 'old.example.com', kind: 'REDIRECT', target: 'https://new.example.com/base/', status: 302 },
        { hostname: 'parked.example.com', kind: 'PARKED' },
      ]),
      paths,
    );
    expect(text.match(/^server \{$/gm)).toHaveLength(3);
    expect(text).toContain('return 302 "https://new.example.com/base$request_uri";');
    expect(text).toMatch(/server_name parked\.example\.com;\n {4}default_type text\/html;\n {4}return 200 "<!doctype html>.*This domain is parked.*";/);
  });

  it('answers 503 on every hostname of a suspended site, serving nothing else', () => {
    const text = renderServerBlocks(
      site({ suspended: true }, [
        { hostname: 'alpha.sites.example', kind: 'SITE', documentRoot: `${HOME}/public_html` },
        { hostname: 'old.example.com', kind: 'REDIRECT', target: 'https://new.example.com', status: 301 },
      ]),
      paths,
    );
    expect(text.match(/return 503;/g)).toHaveLength(2);
    expect(text).not.toContain('root ');
    expect(text).not.toContain('fastcgi_pass');
    expect(text).not.toContain('new.example.com');
  });

  it.each([
    ['a sibling of the home', '/srv/hosting/sites/alphabet/public_html'],
    ['a traversal', `${HOME}/../beta/public_html`],
    ['a relative path', 'public_html'],
    ['an outside folder', '/etc'],
    ['a dollar', `${HOME}/$document_root`],
    ['a quote', `${HOME}/a";include /etc/passwd;"`],
    ['a semicolon', `${HOME}/a;b`],
    ['a newline', `${HOME}/a\nb`],
    ['a colon (open_basedir separator)', `${HOME}/a:/etc`],
    ['a trailing slash', `${HOME}/public_html/`],
  ])('refuses a document root with %s', (_what, documentRoot) => {
    const error = refusal(() => renderServerBlocks(site({}, [{ hostname: 'alpha.sites.example', kind: 'SITE', documentRoot }]), paths));
    expect(error.code).toBe('BAD_REQUEST');
  });

  it('refuses a home that could break out of a quoted value', () => {
    for (const home of ['/srv/a"b', '/srv/$x', '/srv/a\nb', 'relative/home', '/srv/a\\b']) {
      expect(refusal(() => renderPool(site({ home, hosts: [{ hostname: 'a.example', kind: 'PARKED' }] }), paths, null)).code).toBe('BAD_REQUEST');
    }
  });

  it('refuses a hostname given twice and a site with no hostname', () => {
    const twice: HostRoute[] = [
      { hostname: 'a.example.com', kind: 'PARKED' },
      { hostname: 'a.example.com', kind: 'REDIRECT', target: 'https://b.example.com', status: 301 },
    ];
    expect(refusal(() => renderServerBlocks(site({}, twice), paths)).code).toBe('BAD_REQUEST');
    expect(refusal(() => renderServerBlocks(site({}, []), paths)).code).toBe('BAD_REQUEST');
  });
});

describe('redirect targets', () => {
  it.each([
    ['https://example.com', 'https://example.com'],
    ['https://example.com/', 'https://example.com'],
    ['http://example.com/shop//', 'http://example.com/shop'],
    ['https://EXAMPLE.com:8443/a', 'https://example.com:8443/a'],
    ['https://bücher.example/', 'https://xn--bcher-kva.example'],
  ])('takes %s as %s', (target, base) => {
    expect(redirectBase(target)).toBe(base);
  });

  it.each([
    'ftp://example.com',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'https://example.com/?a=1',
    'https://example.com/#top',
    'https://example.com/?',
    'https://user:secret@example.com',
    'https://example.com/$host',
    'https://example.com/${x}',
    'example.com',
    '',
  ])('refuses %j', (target) => {
    expect(refusal(() => redirectBase(target)).code).toBe('BAD_REQUEST');
  });

  it('keeps what the URL encodes inside one quoted nginx string', () => {
    const text = renderServerBlocks(
      site({}, [{ hostname: 'a.example.com', kind: 'REDIRECT', target: 'https://b.example.com/x"; include /etc/passwd; "{', status: 301 }]),
      paths,
    );
    const line = text.split('\n').find((l) => l.includes('return 301'));
    expect(line).toBe('    return 301 "https://b.example.com/x%22;%20include%20/etc/passwd;%20%22%7B$request_uri";');
    expect(text).not.toMatch(/^\s*include \/etc/m);
  });
});

describe('nginx.conf', () => {
  it('runs in the foreground with everything under the folder and a default server answering 404', () => {
    const conf = renderNginxConf(paths, { port: 8080, generation: 'abc123', runAs: null });
    expect(conf).toContain('daemon off;');
    expect(conf).toContain('pid "/srv/hosting/web/nginx.pid";');
    expect(conf).toContain('client_body_temp_path "/srv/hosting/web/tmp/client_body";');
    expect(conf).toMatch(/listen 127\.0\.0\.1:8080 default_server;\n\s+server_name "";\n\s+add_header X-Hosting-Config abc123 always;\n\s+return 404;/);
    expect(conf).toContain('include "/srv/hosting/web/sites/*.conf";');
    expect(conf).not.toMatch(/^user /m);
    expect(renderNginxConf(paths, { port: 8080, generation: 'abc123', runAs: ROOT })).toMatch(/^user root;$/m);
  });

  it('refuses a port that is not one and a folder that cannot be quoted', () => {
    expect(refusal(() => renderNginxConf(paths, { port: 0, generation: 'a', runAs: null })).code).toBe('BAD_REQUEST');
    for (const dir of ['/srv/"web', '/srv/$web', '/srv/web\n', '/srv/a;b']) expect(refusal(() => webPaths(dir)).code).toBe('BAD_REQUEST');
  });

  it('refuses a folder whose PHP sockets would not fit a unix socket path', () => {
    const long = webPaths(`/${'d'.repeat(80)}`);
    expect(refusal(() => siteFiles(long, `a${'b'.repeat(30)}`)).code).toBe('UPSTREAM_ERROR');
  });
});
