import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getConfig, resetConfigForTests } from '../../../platform/config';
import type { HostRoute, SiteServing } from '../types';
import { EmbeddedWebServing } from './embedded';
import { getWebServingProvider, resetWebServingProviderForTests, webServingBinaries } from './index';
import { WebServingSimulator } from './simulator';

const { nginx, phpFpm } = webServingBinaries();
const PLATFORM_DOMAIN = 'sites.test';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request on a fresh connection, as a browser asking for `host` would send it. */
function get(port: number, host: string, pathname = '/'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: pathname, headers: { host }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end();
  });
}

/** Polls until `probe` resolves to something truthy, or fails at the deadline. */
async function until<T>(probe: () => Promise<T | null | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe.skipIf(!nginx || !phpFpm)('embedded web serving (nginx + php-fpm)', () => {
  const root = path.join(getConfig().DATA_DIR, 'hosting-web');
  const dir = path.join(root, 'web');
  const make = () => new EmbeddedWebServing({ nginxBinary: nginx!, phpFpmBinary: phpFpm!, dir, port: 0, platformDomain: PLATFORM_DOMAIN });
  let provider: EmbeddedWebServing;

  const homeOf = (siteName: string) => path.join(root, 'sites', siteName);
  const ownHost = (siteName: string) => `${siteName}.${PLATFORM_DOMAIN}`;
  const fetchSite = (host: string, pathname = '/') => get(provider.httpPort(), host, pathname);

  /** A home with `public_html/index.php` answering `<?php echo 6*7;`, and the site as the domain layer would hand it over. */
  function site(siteName: string, overrides: Partial<SiteServing> = {}, extraHosts: HostRoute[] = []): SiteServing {
    const home = homeOf(siteName);
    mkdirSync(path.join(home, 'public_html'), { recursive: true });
    writeFileSync(path.join(home, 'public_html', 'index.php'), '<?php echo 6*7;');
    return {
      siteName,
      home,
      phpVersion: '8.3',
      phpWorkers: 2,
      memoryMb: 256,
      suspended: false,
      hosts: [{ hostname: ownHost(siteName), kind: 'SITE', documentRoot: path.join(home, 'public_html') }, ...extraHosts],
      ...overrides,
    };
  }

  beforeAll(async () => {
    provider = make();
    await provider.start();
  });

  afterAll(async () => {
    await provider.stop();
  });

  it('serves PHP on the site’s own hostname and on an attached hostname with another document root', async () => {
    const home = homeOf('alpha');
    const shopRoot = path.join(home, 'shop.example.com', 'public_html');
    mkdirSync(shopRoot, { recursive: true });
    writeFileSync(path.join(shopRoot, 'index.php'), '<?php echo "shop " . 6*7;');
    writeFileSync(path.join(shopRoot, 'style.css'), 'body { color: red }');
    await provider.applySite(site('alpha', {}, [{ hostname: 'shop.example.com', kind: 'SITE', documentRoot: shopRoot }]));

    const own = await fetchSite(ownHost('alpha'));
    expect(own.status).toBe(200);
    expect(own.body).toBe('42');
    const shop = await fetchSite('shop.example.com');
    expect(shop.status).toBe(200);
    expect(shop.body).toBe('shop 42');
    const css = await fetchSite('shop.example.com', '/style.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css');
    expect(await provider.isServing('alpha')).toBe(true);
  });

  it('runs the pool with the tier’s limits and the asked version recorded, and changes them in place', async () => {
    const alpha = site('alpha');
    writeFileSync(path.join(alpha.home, 'public_html', 'limits.php'), "<?php echo ini_get('memory_limit'), ' ', ini_get('open_basedir');");
    await provider.applySite(alpha);
    expect((await fetchSite(ownHost('alpha'), '/limits.php')).body).toBe(`256M ${alpha.home}:${path.join(dir, 'php-tmp', 'alpha')}`);

    await provider.applySite({ ...alpha, memoryMb: 512, phpWorkers: 5 });
    expect((await fetchSite(ownHost('alpha'), '/limits.php')).body).toBe(`512M ${alpha.home}:${path.join(dir, 'php-tmp', 'alpha')}`);
    const pool = readFileSync(path.join(dir, 'pools', 'alpha.conf'), 'utf8');
    expect(pool).toContain('pm.max_children = 5');
    expect(pool).toContain('phpVersion 8.3 asked');
  });

  it('redirects with the requested path appended, 301 by default and 302 when asked', async () => {
    await provider.applySite(
      site('bravo', {}, [
        { hostname: 'old.example.com', kind: 'REDIRECT', target: 'https://new.example.org/base/', status: 301 },
        { hostname: 'temp.example.com', kind: 'REDIRECT', target: 'https://elsewhere.example.net', status: 302 },
      ]),
    );
    const permanent = await fetchSite('old.example.com', '/a/b.php?x=1&y=2');
    expect(permanent.status).toBe(301);
    expect(permanent.headers.location).toBe('https://new.example.org/base/a/b.php?x=1&y=2');
    const temporary = await fetchSite('temp.example.com', '/page');
    expect(temporary.status).toBe(302);
    expect(temporary.headers.location).toBe('https://elsewhere.example.net/page');
  });

  it('answers a parked hostname with the parked page', async () => {
    await provider.applySite(site('charlie', {}, [{ hostname: 'parked.example.com', kind: 'PARKED' }]));
    const parked = await fetchSite('parked.example.com', '/anything');
    expect(parked.status).toBe(200);
    expect(parked.headers['content-type']).toMatch(/^text\/html/);
    expect(parked.body).toContain('This domain is parked');
    expect(parked.body).not.toContain('42');
  });

  it('answers 503 on every hostname of a suspended site, and serves again once it is not', async () => {
    const delta = site('delta', {}, [{ hostname: 'delta.example.com', kind: 'PARKED' }]);
    await provider.applySite({ ...delta, suspended: true });
    expect((await fetchSite(ownHost('delta'))).status).toBe(503);
    expect((await fetchSite('delta.example.com')).status).toBe(503);
    expect(await provider.isServing('delta')).toBe(false);

    await provider.applySite(delta);
    expect((await fetchSite(ownHost('delta'))).body).toBe('42');
    expect(await provider.isServing('delta')).toBe(true);
  });

  it('confines PHP to the home: open_basedir refuses /etc/hostname and allows the home', async () => {
    const echo = site('echo');
    writeFileSync(path.join(echo.home, 'secret.txt'), 'inside');
    writeFileSync(
      path.join(echo.home, 'public_html', 'read.php'),
      "<?php var_export(@file_get_contents('/etc/hostname')); echo ' '; echo file_get_contents(__DIR__ . '/../secret.txt');",
    );
    await provider.applySite(echo);
    const answer = await fetchSite(ownHost('echo'), '/read.php');
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('false inside');
  });

  it('runs no other program: the functions that would are disabled', async () => {
    const echo = site('echo');
    writeFileSync(
      path.join(echo.home, 'public_html', 'run.php'),
      "<?php foreach (['exec', 'shell_exec', 'system', 'passthru', 'proc_open', 'popen'] as $f) echo function_exists($f) ? $f : '-';",
    );
    await provider.applySite(echo);
    expect((await fetchSite(ownHost('echo'), '/run.php')).body).toBe('------');
  });

  it('does not follow a symlink in the document root to a file or folder outside the home', async () => {
    const foxtrot = site('foxtrot');
    const docroot = path.join(foxtrot.home, 'public_html');
    // Without index.php, paths no file answers get 404 rather than the front controller.
    rmSync(path.join(docroot, 'index.php'));
    writeFileSync(path.join(docroot, 'index.html'), 'static 42');
    symlinkSync('/etc/passwd', path.join(docroot, 'passwd.txt'));
    symlinkSync('/etc/passwd', path.join(docroot, 'passwd.php'));
    symlinkSync('/etc', path.join(docroot, 'etc'));
    await provider.applySite(foxtrot);
    for (const pathname of ['/passwd.txt', '/passwd.php', '/etc/passwd', '/etc/hostname']) {
      const answer = await fetchSite(ownHost('foxtrot'), pathname);
      expect([403, 404], pathname).toContain(answer.status);
      expect(answer.body, pathname).not.toMatch(/root:|42/);
    }
    expect((await fetchSite(ownHost('foxtrot'))).body).toBe('static 42');
  });

  it('keeps dotfiles private', async () => {
    const golf = site('golf');
    writeFileSync(path.join(golf.home, 'public_html', '.env'), 'DB_PASSWORD=hunter2');
    await provider.applySite(golf);
    const answer = await fetchSite(ownHost('golf'), '/.env');
    expect(answer.status).toBe(404);
    expect(answer.body).not.toContain('hunter2');
  });

  it('gives an unknown Host nothing of any site: the default server answers 404', async () => {
    await provider.applySite(site('hotel'));
    const answer = await fetchSite('nobody.example.com');
    expect(answer.status).toBe(404);
    expect(answer.body).not.toContain('42');
    expect(await provider.isServing('neverapplied')).toBe(false);
  });

  it('stops serving a removed site', async () => {
    await provider.applySite(site('india', {}, [{ hostname: 'india.example.com', kind: 'PARKED' }]));
    expect(await provider.isServing('india')).toBe(true);
    await provider.removeSite('india');
    expect(await provider.isServing('india')).toBe(false);
    expect((await fetchSite(ownHost('india'))).status).toBe(404);
    expect((await fetchSite('india.example.com')).body).not.toContain('parked');
    // A second removal finds nothing to remove and is no error.
    await provider.removeSite('india');
  });

  it('refuses a hostname that would inject configuration, before touching anything', async () => {
    const bad = site('juliet', {}, [{ hostname: 'a.com; include /etc', kind: 'PARKED' }]);
    await expect(provider.applySite(bad)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await provider.isServing('juliet')).toBe(false);
  });

  it('keeps the other sites served when a home disappears behind its back', async () => {
    const mike = site('mike');
    await provider.applySite(mike);
    rmSync(mike.home, { recursive: true, force: true });
    await provider.applySite(site('november'));
    expect((await fetchSite(ownHost('november'))).body).toBe('42');
    expect(await provider.isServing('mike')).toBe(false);
    await expect(provider.applySite(mike)).rejects.toMatchObject({ code: 'UPSTREAM_ERROR' });
    await provider.removeSite('mike');
  });

  it('keeps serving after the provider restarts over the same folder', async () => {
    await provider.applySite(site('kilo'));
    await provider.stop();
    provider = make();
    await provider.start();
    expect((await fetchSite(ownHost('kilo'))).body).toBe('42');
    expect((await fetchSite(ownHost('alpha'))).body).toBe('42');
    expect(await provider.isServing('kilo')).toBe(true);
  });

  it('restarts nginx and php-fpm when they die', async () => {
    await provider.applySite(site('lima'));
    for (const pidFile of ['nginx.pid', 'php-fpm.pid']) {
      const pid = Number(readFileSync(path.join(dir, pidFile), 'utf8').trim());
      process.kill(-pid, 'SIGKILL');
      await until(async () => (await fetchSite(ownHost('lima'))).body === '42', `lima served again after ${pidFile} was killed`);
      expect(await provider.isServing('lima')).toBe(true);
    }
  });
});

describe('provider choice and the simulator', () => {
  const saved = process.env.HOSTING_NGINX_BINARY;
  afterEach(() => {
    if (saved === undefined) delete process.env.HOSTING_NGINX_BINARY;
    else process.env.HOSTING_NGINX_BINARY = saved;
    resetConfigForTests();
    resetWebServingProviderForTests();
  });

  it.skipIf(!nginx || !phpFpm)('is embedded when nginx and php-fpm are both installed', () => {
    expect(getWebServingProvider().kind).toBe('embedded');
    expect(getWebServingProvider()).toBe(getWebServingProvider());
  });

  it('falls back to the simulator when a binary is missing', () => {
    process.env.HOSTING_NGINX_BINARY = '/nonexistent/nginx';
    resetConfigForTests();
    resetWebServingProviderForTests();
    const provider = getWebServingProvider();
    expect(provider.kind).toBe('simulator');
    expect(provider.description).toMatch(/^Simulated/);
    expect(provider.httpPort()).toBe(getConfig().HOSTING_HTTP_PORT);
  });

  it('simulates readiness from what was applied, and refuses what the real server would', async () => {
    const simulator = new WebServingSimulator({ port: 8080 });
    const home = '/srv/hosting/sites/alpha';
    const alpha: SiteServing = {
      siteName: 'alpha',
      home,
      phpVersion: '8.2',
      phpWorkers: 2,
      memoryMb: 256,
      suspended: false,
      hosts: [{ hostname: `alpha.${PLATFORM_DOMAIN}`, kind: 'SITE', documentRoot: `${home}/public_html` }],
    };
    await simulator.start();
    expect(simulator.httpPort()).toBe(8080);
    expect(await simulator.isServing('alpha')).toBe(false);
    await simulator.applySite(alpha);
    expect(await simulator.isServing('alpha')).toBe(true);
    await simulator.applySite({ ...alpha, suspended: true });
    expect(await simulator.isServing('alpha')).toBe(false);
    await simulator.applySite(alpha);
    await simulator.removeSite('alpha');
    expect(await simulator.isServing('alpha')).toBe(false);
    await expect(simulator.applySite({ ...alpha, hosts: [{ hostname: 'a.com; include /etc', kind: 'PARKED' }] })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(simulator.isServing('../etc')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
