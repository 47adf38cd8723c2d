import path from 'node:path';
import { AppError } from '../../../platform/errors';
import type { HostRoute, SiteServing } from '../types';

/**
 * The text of every file nginx and php-fpm read, as pure functions of what the panel decided.
 *
 * Nothing unchecked is ever interpolated: names, hostnames, paths and redirect targets are checked
 * against narrow patterns first (AppError BAD_REQUEST otherwise). Names and hostnames (letters,
 * digits, `.`, `_`, `-`) are written bare; paths and URLs are written double-quoted and hold no
 * `"`, `\`, `$` or line break, so a value can never end its string or directive, open a block or
 * expand a variable.
 */

/** As SPEC names sites: a lower-case letter, then lower-case letters, digits or underscores; 3 to 40 in all. */
export const SITE_NAME_PATTERN = /^[a-z][a-z0-9_]{2,39}$/;

/**
 * Labels of lower-case letters, digits and hyphens (not at either end), at least two of them. The
 * underscore is accepted too because a site's own address is `<siteName>.<platform domain>` and
 * site names may hold one; it means nothing to nginx.
 */
const HOSTNAME_PATTERN = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)+$/;

/**
 * Characters a file system path may have here. `:` is left out as the separator of open_basedir;
 * a space is fine since every path is written quoted.
 */
const SAFE_PATH_PATTERN = /^\/[A-Za-z0-9._/+@,=~ -]*$/;

/** A serialized http(s) URL with nothing that nginx would read as a variable, an escape or the end of a string. */
const SAFE_URL_PATTERN = /^https?:\/\/[A-Za-z0-9._~:/@!&'()*+,;=%[\]-]+$/;

/** A unix socket path is at most 107 bytes on Linux (`sun_path` holds 108 with the NUL). */
const MAX_SOCKET_PATH = 107;

/** The pool php-fpm always has, since it refuses to start without one; site names start with a letter, so no site can be called this. */
export const IDLE_POOL = '_idle';

/** Every way PHP has to run another program. */
const DISABLED_FUNCTIONS = ['exec', 'passthru', 'shell_exec', 'system', 'proc_open', 'popen', 'pcntl_exec'];

/** Written at the top of every generated file: edits by hand do not survive the next change. */
const GENERATED = 'Written by the panel (hosting web serving); edits are lost at the next change.';

/** The parked page: constant, so no hostname or customer text reaches it. */
const PARKED_PAGE =
  '<!doctype html><html><head><meta charset=utf-8><title>Parked domain</title></head>' +
  "<body style='font-family:sans-serif;text-align:center;padding-top:20vh'><h1>This domain is parked</h1>" +
  '<p>Nothing is published here yet.</p></body></html>';

/** Whom php-fpm pools and nginx workers run as when the app runs as root (null otherwise: they stay the app's user). */
export interface RunAs {
  uid: number;
  gid: number;
  user: string;
}

/** Where everything of the web server lives, under `<HOSTING_DATA_DIR>/web`. */
export interface WebPaths {
  dir: string;
  nginxConf: string;
  nginxErrorLog: string;
  nginxPid: string;
  /** The `listen` line every server block includes, so a port change rewrites one file. */
  listenConf: string;
  fastcgiParams: string;
  /** One `<siteName>.conf` of server blocks per site. */
  sitesDir: string;
  tempDir: string;
  phpFpmConf: string;
  phpFpmLog: string;
  phpFpmPid: string;
  /** One `<siteName>.conf` pool per site. */
  poolsDir: string;
  socketsDir: string;
  /** One folder per site for PHP's sessions, uploads in flight and temporary files. */
  phpTempDir: string;
}

export function webPaths(dir: string): WebPaths {
  const root = checkPath(path.resolve(dir), 'the web serving folder');
  return {
    dir: root,
    nginxConf: path.join(root, 'nginx.conf'),
    nginxErrorLog: path.join(root, 'error.log'),
    nginxPid: path.join(root, 'nginx.pid'),
    listenConf: path.join(root, 'listen.conf'),
    fastcgiParams: path.join(root, 'fastcgi_params'),
    sitesDir: path.join(root, 'sites'),
    tempDir: path.join(root, 'tmp'),
    phpFpmConf: path.join(root, 'php-fpm.conf'),
    phpFpmLog: path.join(root, 'php-fpm.log'),
    phpFpmPid: path.join(root, 'php-fpm.pid'),
    poolsDir: path.join(root, 'pools'),
    socketsDir: path.join(root, 'sock'),
    phpTempDir: path.join(root, 'php-tmp'),
  };
}

/** The files of one site: its server blocks, its pool and the pool's socket. */
export function siteFiles(paths: WebPaths, siteName: string): { serverBlocks: string; pool: string; socket: string; phpTemp: string } {
  checkSiteName(siteName);
  return {
    serverBlocks: path.join(paths.sitesDir, `${siteName}.conf`),
    pool: path.join(paths.poolsDir, `${siteName}.conf`),
    socket: socketPath(paths, siteName),
    phpTemp: path.join(paths.phpTempDir, siteName),
  };
}

export function isValidHostname(hostname: string): boolean {
  return HOSTNAME_PATTERN.test(hostname);
}

export function checkSiteName(siteName: string): string {
  if (!SITE_NAME_PATTERN.test(siteName)) throw invalid(`Site name ${JSON.stringify(siteName)} is not a valid site name`);
  return siteName;
}

export function checkHostname(hostname: string): string {
  if (!isValidHostname(hostname)) throw invalid(`Hostname ${JSON.stringify(hostname)} is not a valid host name`);
  return hostname;
}

/** An absolute, normalized path of safe characters; `what` names it in the error. */
export function checkPath(value: string, what: string): string {
  if (!SAFE_PATH_PATTERN.test(value) || path.posix.normalize(value) !== value || (value.length > 1 && value.endsWith('/'))) {
    throw invalid(`The path of ${what} (${JSON.stringify(value)}) must be absolute, normalized and made of letters, digits, spaces and . _ / + @ , = ~ -`);
  }
  return value;
}

/**
 * The target a redirect sends to, without a trailing slash: nginx appends `$request_uri`, which
 * starts with one. Only http(s) URLs without query, fragment or credentials are accepted.
 */
export function redirectBase(target: string): string {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw invalid(`Redirect target ${JSON.stringify(target)} is not a URL`);
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search ||
    url.hash ||
    url.username ||
    url.password ||
    target.includes('?') ||
    target.includes('#')
  ) {
    throw invalid(`Redirect target ${JSON.stringify(target)} must be an http(s) URL without query, fragment or credentials`);
  }
  const base = url.href.replace(/\/+$/, '');
  if (!SAFE_URL_PATTERN.test(base)) throw invalid(`Redirect target ${JSON.stringify(target)} holds characters that cannot be redirected to`);
  return base;
}

/** The whole nginx.conf: process settings, the default server and the include of every site. */
export function renderNginxConf(paths: WebPaths, options: { port: number; generation: string; runAs: RunAs | null }): string {
  checkPort(options.port);
  if (!/^[a-z0-9]{1,32}$/.test(options.generation)) throw invalid('The configuration generation must be a short token of letters and digits');
  const q = quoted;
  return [
    `# ${GENERATED}`,
    // The app supervises nginx as its child process; a daemon would detach from it.
    'daemon off;',
    // One event-driven worker serves thousands of connections; PHP is where sites need processes.
    'worker_processes 1;',
    // Workers must read the homes, which belong to the app's user; the directive only applies to a root master.
    ...(options.runAs ? [`user ${checkUserName(options.runAs.user)};`] : []),
    `pid ${q(paths.nginxPid)};`,
    `error_log ${q(paths.nginxErrorLog)} warn;`,
    '',
    'events {',
    '    worker_connections 1024;',
    '}',
    '',
    'http {',
    ...MIME_TYPES,
    '    default_type application/octet-stream;',
    '    sendfile on;',
    '    server_tokens off;',
    // No rotation is set up for an access log, so none is written.
    '    access_log off;',
    // Uploads through PHP may be as large as those of the file manager.
    '    client_max_body_size 64m;',
    // Hostnames may be 253 characters long; the default buckets only fit short ones.
    '    server_names_hash_bucket_size 256;',
    '    server_names_hash_max_size 8192;',
    // The compiled-in temp paths are under /var/lib/nginx, which need not be writable by the app.
    `    client_body_temp_path ${q(path.join(paths.tempDir, 'client_body'))};`,
    `    proxy_temp_path ${q(path.join(paths.tempDir, 'proxy'))};`,
    `    fastcgi_temp_path ${q(path.join(paths.tempDir, 'fastcgi'))};`,
    `    uwsgi_temp_path ${q(path.join(paths.tempDir, 'uwsgi'))};`,
    `    scgi_temp_path ${q(path.join(paths.tempDir, 'scgi'))};`,
    '',
    // A Host no site has gets nothing of any site. The generation header tells the app which
    // configuration answered, so a reload is known to be live before a change is reported done.
    '    server {',
    `        listen 127.0.0.1:${options.port} default_server;`,
    '        server_name "";',
    `        add_header X-Hosting-Config ${options.generation} always;`,
    '        return 404;',
    '    }',
    '',
    `    include ${q(path.join(paths.sitesDir, '*.conf'))};`,
    '}',
    '',
  ].join('\n');
}

/** The `listen` line of every site's server blocks. */
export function renderListenConf(port: number): string {
  checkPort(port);
  return `# ${GENERATED}\nlisten 127.0.0.1:${port};\n`;
}

/** nginx's usual FastCGI parameters, kept here so nothing depends on /etc/nginx. */
export function renderFastcgiParams(): string {
  return [
    `# ${GENERATED}`,
    ...[
      ['QUERY_STRING', '$query_string'],
      ['REQUEST_METHOD', '$request_method'],
      ['CONTENT_TYPE', '$content_type'],
      ['CONTENT_LENGTH', '$content_length'],
      ['SCRIPT_NAME', '$fastcgi_script_name'],
      ['REQUEST_URI', '$request_uri'],
      ['DOCUMENT_URI', '$document_uri'],
      ['REQUEST_SCHEME', '$scheme'],
      ['HTTPS', '$https if_not_empty'],
      ['SERVER_PROTOCOL', '$server_protocol'],
      ['GATEWAY_INTERFACE', 'CGI/1.1'],
      ['SERVER_SOFTWARE', 'nginx'],
      ['REMOTE_ADDR', '$remote_addr'],
      ['REMOTE_PORT', '$remote_port'],
      ['SERVER_ADDR', '$server_addr'],
      ['SERVER_PORT', '$server_port'],
      ['SERVER_NAME', '$server_name'],
      // httpoxy: a client's `Proxy:` header must not become PHP's HTTP_PROXY.
      ['HTTP_PROXY', '""'],
    ].map(([name, value]) => `fastcgi_param ${name} ${value};`),
    '',
  ].join('\n');
}

/**
 * The php-fpm master's configuration: its pid and log under the folder, every site's pool from
 * `pools/*.conf`, and an idle pool of its own because php-fpm refuses to run with none.
 */
export function renderPhpFpmConf(paths: WebPaths, runAs: RunAs | null): string {
  const q = quoted;
  return [
    `; ${GENERATED}`,
    '[global]',
    `pid = ${q(paths.phpFpmPid)}`,
    `error_log = ${q(paths.phpFpmLog)}`,
    // A reload (SIGUSR2) lets requests under way finish before the workers are replaced.
    'process_control_timeout = 10s',
    `include = ${q(path.join(paths.poolsDir, '*.conf'))}`,
    '',
    `[${IDLE_POOL}]`,
    ...runAsLines(runAs),
    `listen = ${q(socketPath(paths, IDLE_POOL))}`,
    'listen.mode = 0600',
    'pm = ondemand',
    'pm.max_children = 1',
    '',
  ].join('\n');
}

/**
 * A site's pool. Every site runs on the one installed php-fpm binary whatever version it asked
 * for (only PHP 8.2 is installed here; other binaries are not faked): the asked version is
 * recorded in the file so it can be honoured once a matching php-fpm is installed.
 */
export function renderPool(site: SiteServing, paths: WebPaths, runAs: RunAs | null): string {
  const checked = checkSite(site);
  const phpTemp = siteFiles(paths, checked.siteName).phpTemp;
  const q = quoted;
  return [
    `; ${GENERATED}`,
    `; phpVersion ${checked.phpVersion} asked; served by the installed php-fpm binary (HOSTING_PHP_FPM_BINARY).`,
    `[${checked.siteName}]`,
    ...runAsLines(runAs),
    `listen = ${q(socketPath(paths, checked.siteName))}`,
    // Only nginx, running as the same user, may talk to the pool.
    'listen.mode = 0600',
    // Workers exist while requests come: an idle site costs no memory.
    'pm = ondemand',
    `pm.max_children = ${checked.phpWorkers}`,
    'pm.process_idle_timeout = 10s',
    'pm.max_requests = 500',
    `chdir = ${q(checked.home)}`,
    'security.limit_extensions = .php',
    // Admin values cannot be changed by the site's code, ini_set or .user.ini.
    `php_admin_value[memory_limit] = ${checked.memoryMb}M`,
    // A temporary folder of its own, not the shared /tmp: sessions and uploads of one site are out
    // of every other site's reach.
    `php_admin_value[open_basedir] = ${q(`${checked.home}:${phpTemp}`)}`,
    // open_basedir does not bind commands a script runs, and pools may run as root (see RunAs).
    `php_admin_value[disable_functions] = ${DISABLED_FUNCTIONS.join(',')}`,
    `php_admin_value[session.save_path] = ${q(phpTemp)}`,
    `php_admin_value[upload_tmp_dir] = ${q(phpTemp)}`,
    `php_admin_value[sys_temp_dir] = ${q(phpTemp)}`,
    // A script uploaded or edited is run by the very next request, not after opcache's default 2 s.
    'php_admin_value[opcache.revalidate_freq] = 0',
    '',
  ].join('\n');
}

/** A site's server blocks: one per hostname, each answering as its kind says (503 for all while suspended). */
export function renderServerBlocks(site: SiteServing, paths: WebPaths): string {
  const checked = checkSite(site);
  const blocks = checked.hosts.map((host) => serverBlock(checked, host, paths));
  return [`# ${GENERATED}`, `# Site ${checked.siteName}`, ...blocks, ''].join('\n');
}

function serverBlock(site: SiteServing, host: HostRoute, paths: WebPaths): string {
  const q = quoted;
  const head = ['server {', `    include ${q(paths.listenConf)};`, `    server_name ${host.hostname};`];
  if (site.suspended) return [...head, '    return 503;', '}'].join('\n');
  switch (host.kind) {
    case 'REDIRECT':
      // Written quoted by hand: the checked base holds no `"`, `\` or `$`, and `$request_uri` is meant as nginx's variable.
      return [...head, `    return ${host.status} "${redirectBase(host.target)}$request_uri";`, '}'].join('\n');
    case 'PARKED':
      return [...head, '    default_type text/html;', `    return 200 ${q(PARKED_PAGE)};`, '}'].join('\n');
    case 'SITE':
      return [
        ...head,
        `    root ${q(host.documentRoot)};`,
        '    index index.php index.html;',
        // No symlink below the home is followed, so none can serve a file from outside it.
        `    disable_symlinks on ${q(`from=${site.home}`)};`,
        // Dotfiles (.git, .env, .user.ini) stay private; ACME challenges are let through.
        '    location ~ /\\.(?!well-known/) {',
        '        return 404;',
        '    }',
        // Front controllers (WordPress, Laravel) take the paths no file answers.
        '    location / {',
        '        try_files $uri $uri/ /index.php$is_args$args;',
        '    }',
        '    location ~ \\.php$ {',
        '        try_files $uri =404;',
        `        include ${q(paths.fastcgiParams)};`,
        '        fastcgi_param SCRIPT_FILENAME $realpath_root$fastcgi_script_name;',
        '        fastcgi_param DOCUMENT_ROOT $realpath_root;',
        `        fastcgi_pass ${q(`unix:${socketPath(paths, site.siteName)}`)};`,
        '    }',
        '}',
      ].join('\n');
  }
}

/** Every field of a site checked, so nothing below can write an unchecked value. */
function checkSite(site: SiteServing): SiteServing {
  checkSiteName(site.siteName);
  checkPath(site.home, `the home of site ${site.siteName}`);
  if (!['8.1', '8.2', '8.3'].includes(site.phpVersion)) throw invalid(`PHP version ${JSON.stringify(site.phpVersion)} is not offered`);
  if (!Number.isInteger(site.phpWorkers) || site.phpWorkers < 1 || site.phpWorkers > 1000) throw invalid('phpWorkers must be an integer from 1 to 1000');
  if (!Number.isInteger(site.memoryMb) || site.memoryMb < 16 || site.memoryMb > 65536) throw invalid('memoryMb must be an integer from 16 to 65536');
  if (site.hosts.length === 0) throw invalid(`Site ${site.siteName} has no hostname`);
  const seen = new Set<string>();
  for (const host of site.hosts) {
    checkHostname(host.hostname);
    if (seen.has(host.hostname)) throw invalid(`Hostname ${host.hostname} is given twice`);
    seen.add(host.hostname);
    if (host.kind === 'SITE') {
      checkPath(host.documentRoot, `the document root of ${host.hostname}`);
      if (host.documentRoot !== site.home && !host.documentRoot.startsWith(`${site.home}/`)) {
        throw invalid(`The document root of ${host.hostname} is outside the home of site ${site.siteName}`);
      }
    } else if (host.kind === 'REDIRECT') {
      redirectBase(host.target);
      if (host.status !== 301 && host.status !== 302) throw invalid('A redirect answers 301 or 302');
    } else if (host.kind !== 'PARKED') {
      throw invalid('A hostname is served as SITE, REDIRECT or PARKED');
    }
  }
  return site;
}

function socketPath(paths: WebPaths, pool: string): string {
  const socket = path.join(paths.socketsDir, `${pool}.sock`);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) {
    throw new AppError('UPSTREAM_ERROR', `The PHP socket path ${socket} is longer than ${MAX_SOCKET_PATH} bytes; choose a shorter HOSTING_DATA_DIR`);
  }
  return socket;
}

/**
 * Set only when the app runs as root: php-fpm then needs a user for every pool, and `-R` to accept
 * root. The pools run as the app's own user because the homes belong to it; sites are kept apart
 * by open_basedir and their own pools, not by system accounts.
 */
function runAsLines(runAs: RunAs | null): string[] {
  if (!runAs) return [];
  if (!Number.isInteger(runAs.uid) || !Number.isInteger(runAs.gid) || runAs.uid < 0 || runAs.gid < 0) throw invalid('The pool user must be numeric ids');
  return [`user = ${runAs.uid}`, `group = ${runAs.gid}`];
}

function checkUserName(user: string): string {
  if (!/^[a-z_][a-z0-9_-]{0,31}$/i.test(user)) throw invalid(`User name ${JSON.stringify(user)} cannot be written into nginx.conf`);
  return user;
}

function checkPort(port: number): void {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw invalid(`Port ${port} is not a TCP port`);
}

/** Every caller has checked the value against a pattern without `"`, `\` or `$` first. */
function quoted(value: string): string {
  if (/["\\$\n\r\0]/.test(value)) throw invalid('A value with quotes, backslashes, dollars or line breaks cannot be written into a configuration');
  return `"${value}"`;
}

function invalid(message: string): AppError {
  return new AppError('BAD_REQUEST', message);
}

/** The usual types of a web site; anything else is served as application/octet-stream. */
const MIME_TYPES = [
  '    types {',
  ...[
    ['text/html', 'html htm'],
    ['text/css', 'css'],
    ['text/plain', 'txt'],
    ['text/xml', 'xml'],
    ['text/csv', 'csv'],
    ['application/javascript', 'js mjs'],
    ['application/json', 'json map'],
    ['application/manifest+json', 'webmanifest'],
    ['application/pdf', 'pdf'],
    ['application/zip', 'zip'],
    ['application/wasm', 'wasm'],
    ['application/rss+xml', 'rss'],
    ['application/atom+xml', 'atom'],
    ['image/png', 'png'],
    ['image/jpeg', 'jpg jpeg'],
    ['image/gif', 'gif'],
    ['image/webp', 'webp'],
    ['image/avif', 'avif'],
    ['image/svg+xml', 'svg svgz'],
    ['image/x-icon', 'ico'],
    ['font/woff', 'woff'],
    ['font/woff2', 'woff2'],
    ['font/ttf', 'ttf'],
    ['font/otf', 'otf'],
    ['audio/mpeg', 'mp3'],
    ['audio/ogg', 'ogg'],
    ['video/mp4', 'mp4'],
    ['video/webm', 'webm'],
  ].map(([type, extensions]) => `        ${type} ${extensions};`),
  '    }',
];
