import { createHash } from 'node:crypto';
import type { GitHost } from './types';

/**
 * The upstream world of the simulated git hosts: who exists, which accounts they belong to, and
 * what each repository holds. Code constants, so every process and every test sees the same
 * world; what changes upstream (installations, tokens, hooks, pushes, copies) lives in the
 * git_sim_* tables.
 */

/** A file's text, a symbolic link to another path of the repository, or a submodule's URL. */
export type SeedEntry = string | { symlink: string } | { submodule: string };
export type SeedTree = Readonly<Record<string, SeedEntry>>;

export interface SeedCommit {
  /** 40 hex digits. */
  sha: string;
  message: string;
  /** git's `Name <email>` form. */
  author: string;
  /** ISO 8601, UTC. */
  date: string;
}

export interface SeedBranch {
  name: string;
  head: SeedCommit;
  /** How the branch's tree differs from the default branch's; null removes the path. */
  changes?: Readonly<Record<string, SeedEntry | null>>;
}

export interface SeedRepository {
  host: GitHost;
  fullName: string;
  /** The owner login, workspace slug or namespace full path. */
  owner: string;
  name: string;
  private: boolean;
  description: string | null;
  defaultBranch: string;
  /** ISO 8601, UTC: the last change before any simulated push. */
  updatedAt: string;
  /** The default branch's files. */
  tree: SeedTree;
  /** Every branch, the default one included. */
  branches: readonly SeedBranch[];
  /** Tag name → the commit it points at. */
  tags: Readonly<Record<string, string>>;
}

export type SeedNamespaceType = 'User' | 'Organization' | 'Workspace' | 'Group';

export interface SeedNamespace {
  host: GitHost;
  /** Host 1 login, host 2 workspace slug, host 3 namespace full path (`demo-group/backend`). */
  path: string;
  type: SeedNamespaceType;
  displayName: string;
  /** Logins of the users who belong to it; on host 3 membership of a group reaches its subgroups. */
  members: readonly string[];
}

export interface SeedUser {
  login: string;
  name: string;
  email: string;
}

/** The person signed in to every simulated host: the one who installs the app and grants access. */
export const SIMULATED_USER: SeedUser = { login: 'demo-user', name: 'Demo User', email: 'demo-user@example.com' };

const OTHER_USER: SeedUser = { login: 'someone-else', name: 'Someone Else', email: 'someone-else@example.com' };

const authorLine = (user: SeedUser) => `${user.name} <${user.email}>`;

/** A seeded branch head's SHA: fixed by the host, repository and branch, so it never changes between runs. */
export function seededCommitSha(host: GitHost, fullName: string, branch: string): string {
  return createHash('sha1').update(`${host}\0${fullName}\0${branch}`).digest('hex');
}

interface RepositoryInput {
  host: GitHost;
  fullName: string;
  private?: boolean;
  description: string | null;
  updatedAt: string;
  tree: SeedTree;
  headMessage: string;
  author?: SeedUser;
  /** Branches beside `main`, each an hour older than the one before it. */
  otherBranches?: ReadonlyArray<{ name: string; message: string; changes?: SeedBranch['changes'] }>;
  tags?: readonly string[];
}

function repository(input: RepositoryInput): SeedRepository {
  const slash = input.fullName.lastIndexOf('/');
  const author = authorLine(input.author ?? SIMULATED_USER);
  const commit = (branch: string, message: string, hoursEarlier: number): SeedCommit => ({
    sha: seededCommitSha(input.host, input.fullName, branch),
    message,
    author,
    date: new Date(Date.parse(input.updatedAt) - hoursEarlier * 3_600_000).toISOString(),
  });
  const main: SeedBranch = { name: 'main', head: commit('main', input.headMessage, 0) };
  const others = (input.otherBranches ?? []).map((branch, index) => ({
    name: branch.name,
    head: commit(branch.name, branch.message, index + 1),
    changes: branch.changes,
  }));
  return {
    host: input.host,
    fullName: input.fullName,
    owner: input.fullName.slice(0, slash),
    name: input.fullName.slice(slash + 1),
    private: input.private ?? true,
    description: input.description,
    defaultBranch: 'main',
    updatedAt: input.updatedAt,
    tree: input.tree,
    branches: [main, ...others],
    tags: Object.fromEntries((input.tags ?? []).map((tag) => [tag, main.head.sha])),
  };
}

const lines = (...text: string[]) => `${text.join('\n')}\n`;

/** The template of SPEC's "Deployment template": one WEB service, every field given. */
const HELLO_NODE_TEMPLATE = lines(
  'name: hello-node',
  'services:',
  '  - name: web',
  '    appType: WEB',
  '    sourceDir: .',
  '    buildStrategy: BUILDPACK',
  '    buildCommand: npm run build',
  '    runCommand: npm start',
  '    outputDir: null',
  '    publicPort: 443',
  '    internalPort: 3000',
  '    instanceSize: apps-s-1vcpu-1gb',
  '    instances: 1',
  '    region: nyc',
  '    autoDeploy: true',
  '    envVars:',
  '      - key: NODE_ENV',
  '        value: production',
  '      - key: SESSION_SECRET',
  '        value: ""',
  '        secret: true',
);

const HELLO_NODE_TREE: SeedTree = {
  '.cloudpanel/app.yaml': HELLO_NODE_TEMPLATE,
  '.gitignore': lines('node_modules/', 'dist/'),
  'README.md': lines('# hello-node', '', 'A tiny Node.js web server. `npm start` listens on `$PORT` (3000 by default).'),
  'package.json': lines(
    '{',
    '  "name": "hello-node",',
    '  "version": "1.0.0",',
    '  "private": true,',
    '  "scripts": {',
    '    "build": "node --check src/index.js",',
    '    "start": "node src/index.js"',
    '  },',
    '  "engines": { "node": ">=20" }',
    '}',
  ),
  'src/index.js': lines(
    "const http = require('node:http');",
    '',
    'const port = Number(process.env.PORT ?? 3000);',
    'http',
    '  .createServer((req, res) => {',
    "    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });",
    "    res.end('Hello from hello-node\\n');",
    '  })',
    '  .listen(port);',
  ),
};

/** Invalid twice over: `instances` on line 11 is not a number, and the required `region` is missing. */
const STOREFRONT_TEMPLATE = lines(
  'name: storefront',
  'services:',
  '  - name: web',
  '    appType: WEB',
  '    buildStrategy: BUILDPACK',
  '    buildCommand: npm run build',
  '    runCommand: npm start',
  '    publicPort: 443',
  '    internalPort: 3000',
  '    instanceSize: apps-s-1vcpu-1gb',
  '    instances: "three"',
  '    autoDeploy: true',
);

/** Where the first problem of STOREFRONT_TEMPLATE is reported: the service starting on line 3 lacks `region`. */
export const STOREFRONT_INVALID_LINE = 3;

const STOREFRONT_TREE: SeedTree = {
  '.cloudpanel/app.yml': STOREFRONT_TEMPLATE,
  'README.md': lines('# storefront', '', 'The Acme Labs shop front.'),
  'package.json': lines('{', '  "name": "storefront",', '  "private": true,', '  "scripts": { "build": "node build.js", "start": "node server.js" }', '}'),
  'build.js': lines("console.log('storefront built');"),
  'server.js': lines("require('node:http').createServer((req, res) => res.end('storefront')).listen(process.env.PORT ?? 3000);"),
};

const DOCS_SITE_TREE: SeedTree = {
  'README.md': lines('# docs-site', '', 'Static documentation; no build step.'),
  'index.html': lines('<!doctype html>', '<title>Acme Labs docs</title>', '<link rel="stylesheet" href="assets/style.css">', '<h1>Acme Labs docs</h1>'),
  'about.html': lines('<!doctype html>', '<title>About</title>', '<h1>About Acme Labs</h1>'),
  'assets/style.css': lines('body { font-family: system-ui, sans-serif; margin: 2rem; }'),
  'assets/logo.svg': lines('<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><circle cx="8" cy="8" r="8"/></svg>'),
};

const MONOREPO_TREE: SeedTree = {
  'README.md': lines('# monorepo', '', 'Apps, services and shared packages of Acme Labs.'),
  'GUIDE.md': { symlink: 'docs/guide.md' },
  'package.json': lines('{', '  "name": "acme-monorepo",', '  "private": true,', '  "workspaces": ["apps/*", "packages/*"]', '}'),
  'docs/guide.md': lines('# Guide', '', 'Run `npm install` at the root, then `npm run dev -w apps/web`.'),
  'apps/web/package.json': lines(
    '{',
    '  "name": "@acme/web",',
    '  "private": true,',
    '  "scripts": { "build": "node build.js", "start": "node src/server.js" }',
    '}',
  ),
  'apps/web/src/server.js': lines("require('node:http').createServer((req, res) => res.end('web')).listen(process.env.PORT ?? 8080);"),
  'apps/web/src/components/Header.js': lines("module.exports = () => '<header>Acme</header>';"),
  'apps/web/src/components/Footer.js': lines("module.exports = () => '<footer>Acme Labs</footer>';"),
  'packages/ui/package.json': lines('{ "name": "@acme/ui", "version": "0.3.0" }'),
  'packages/ui/src/Button.js': lines('module.exports = (label) => `<button>${label}</button>`;'),
  'services/api/go.mod': lines('module github.com/acme-labs/monorepo/services/api', '', 'go 1.22'),
  'services/api/cmd/server/main.go': lines('package main', '', 'func main() {}'),
  'services/api/internal/handlers/health.go': lines('package handlers', '', 'func Health() string { return "ok" }'),
  'vendor/design-tokens': { submodule: 'https://git-host-1.example/acme-labs/design-tokens.git' },
};

/** Enough branches for two pages of SPEC's 100 a page. */
export const MONOREPO_BRANCH_COUNT = 130;

const MONOREPO_FEATURE_BRANCHES = Array.from({ length: MONOREPO_BRANCH_COUNT - 1 }, (_, index) => {
  const number = String(index + 1).padStart(3, '0');
  return { name: `feature/task-${number}`, message: `Work on task ${number}` };
});

const GLOBEX_TREE: SeedTree = {
  'README.md': lines('# website', '', 'Globex marketing site.'),
  'index.html': lines('<!doctype html>', '<h1>Globex</h1>'),
};

/** SPEC's "Deployment template" with a Dockerfile service. */
const API_SERVICE_TEMPLATE = lines(
  'name: api-service',
  'services:',
  '  - name: api',
  '    appType: WEB',
  '    sourceDir: .',
  '    buildStrategy: DOCKERFILE',
  '    publicPort: 443',
  '    internalPort: 8080',
  '    instanceSize: apps-s-1vcpu-1gb',
  '    instances: 2',
  '    region: fra',
  '    autoDeploy: true',
  '    envVars:',
  '      - key: LOG_LEVEL',
  '        value: info',
);

const API_SERVICE_TREE: SeedTree = {
  '.cloudpanel/app.yaml': API_SERVICE_TEMPLATE,
  Dockerfile: lines('FROM python:3.12-slim', 'WORKDIR /app', 'COPY . .', 'RUN pip install -r requirements.txt', 'EXPOSE 8080', 'CMD ["python", "app/main.py"]'),
  'README.md': lines('# api-service', '', 'The demo team’s HTTP API, built from its Dockerfile.'),
  'requirements.txt': lines('gunicorn==22.0.0'),
  'app/main.py': lines(
    'from http.server import BaseHTTPRequestHandler, HTTPServer',
    '',
    'class Handler(BaseHTTPRequestHandler):',
    '    def do_GET(self):',
    '        self.send_response(200)',
    '        self.end_headers()',
    "        self.wfile.write(b'api-service')",
    '',
    "HTTPServer(('', 8080), Handler).serve_forever()",
  ),
};

const LEGACY_APP_TREE: SeedTree = {
  'README.md': lines('# legacy-app', '', 'A PHP application without a deployment template.'),
  'composer.json': lines('{ "name": "demo-team/legacy-app", "require": { "php": ">=8.1" } }'),
  'public/index.php': lines('<?php', "echo 'legacy-app';"),
};

const INTERNAL_TOOLS_TREE: SeedTree = {
  'README.md': lines('# internal-tools'),
};

/** Two services in one region, the second a WORKER. */
const PAYMENTS_API_TEMPLATE = lines(
  'name: payments-api',
  'services:',
  '  - name: api',
  '    appType: WEB',
  '    buildStrategy: BUILDPACK',
  '    buildCommand: go build -o bin/server ./cmd/server',
  '    runCommand: bin/server',
  '    internalPort: 8080',
  '    instanceSize: apps-s-1vcpu-1gb',
  '    region: ams',
  '  - name: worker',
  '    appType: WORKER',
  '    buildStrategy: BUILDPACK',
  '    buildCommand: go build -o bin/worker ./cmd/worker',
  '    runCommand: bin/worker',
  '    instanceSize: apps-s-1vcpu-0.5gb',
  '    region: ams',
);

const PAYMENTS_API_TREE: SeedTree = {
  '.cloudpanel/app.yaml': PAYMENTS_API_TEMPLATE,
  'README.md': lines('# payments-api'),
  'go.mod': lines('module demo-group/backend/payments-api', '', 'go 1.22'),
  'cmd/server/main.go': lines('package main', '', 'func main() {}'),
  'cmd/worker/main.go': lines('package main', '', 'func main() {}'),
};

/** Invalid: a STATIC service without `outputDir`, and a misspelt key (`buildComand`) on line 6. */
const WEBSITE_TEMPLATE = lines(
  'name: website',
  'services:',
  '  - name: site',
  '    appType: STATIC',
  '    buildStrategy: BUILDPACK',
  '    buildComand: npm run build',
  '    instanceSize: apps-s-1vcpu-0.5gb',
  '    region: ams',
);

const WEBSITE_TREE: SeedTree = {
  '.cloudpanel/app.yaml': WEBSITE_TEMPLATE,
  'index.html': lines('<!doctype html>', '<h1>Demo group</h1>'),
  'package.json': lines('{ "name": "website", "private": true, "scripts": { "build": "node build.js" } }'),
};

const SECRET_PROJECT_TREE: SeedTree = {
  'README.md': lines('# secret-project'),
};

export const SEED_NAMESPACES: readonly SeedNamespace[] = [
  { host: 'git-host-1', path: 'demo-user', type: 'User', displayName: 'Demo User', members: [SIMULATED_USER.login] },
  { host: 'git-host-1', path: 'acme-labs', type: 'Organization', displayName: 'Acme Labs', members: [SIMULATED_USER.login] },
  { host: 'git-host-1', path: 'globex', type: 'Organization', displayName: 'Globex', members: [OTHER_USER.login] },
  { host: 'git-host-2', path: 'demo-user', type: 'Workspace', displayName: 'Demo User', members: [SIMULATED_USER.login] },
  { host: 'git-host-2', path: 'demo-team', type: 'Workspace', displayName: 'Demo Team', members: [SIMULATED_USER.login] },
  { host: 'git-host-2', path: 'other-team', type: 'Workspace', displayName: 'Other Team', members: [OTHER_USER.login] },
  { host: 'git-host-3', path: 'demo-user', type: 'User', displayName: 'Demo User', members: [SIMULATED_USER.login] },
  { host: 'git-host-3', path: 'demo-group', type: 'Group', displayName: 'Demo Group', members: [SIMULATED_USER.login] },
  { host: 'git-host-3', path: 'demo-group/backend', type: 'Group', displayName: 'Backend', members: [] },
  { host: 'git-host-3', path: 'other-group', type: 'Group', displayName: 'Other Group', members: [OTHER_USER.login] },
];

export const SEED_REPOSITORIES: readonly SeedRepository[] = [
  repository({
    host: 'git-host-1',
    fullName: 'demo-user/hello-node',
    private: false,
    description: 'A Node.js web app with a deployment template',
    updatedAt: '2025-06-02T09:15:00.000Z',
    tree: HELLO_NODE_TREE,
    headMessage: 'Add the deployment template',
    otherBranches: [{ name: 'experiment', message: 'Try a build without a template', changes: { '.cloudpanel/app.yaml': null } }],
    tags: ['v1.0.0'],
  }),
  repository({
    host: 'git-host-1',
    fullName: 'acme-labs/storefront',
    description: 'The shop front (its template has mistakes)',
    updatedAt: '2025-05-28T16:40:00.000Z',
    tree: STOREFRONT_TREE,
    headMessage: 'Describe the storefront deployment',
  }),
  repository({
    host: 'git-host-1',
    fullName: 'acme-labs/docs-site',
    private: false,
    description: 'Static documentation site',
    updatedAt: '2025-04-11T08:00:00.000Z',
    tree: DOCS_SITE_TREE,
    headMessage: 'Publish the about page',
  }),
  repository({
    host: 'git-host-1',
    fullName: 'acme-labs/monorepo',
    description: 'Apps, services and packages in one repository',
    updatedAt: '2025-06-05T12:30:00.000Z',
    tree: MONOREPO_TREE,
    headMessage: 'Share the Button component',
    otherBranches: MONOREPO_FEATURE_BRANCHES,
  }),
  repository({
    host: 'git-host-1',
    fullName: 'globex/website',
    description: null,
    updatedAt: '2025-03-01T10:00:00.000Z',
    tree: GLOBEX_TREE,
    headMessage: 'Launch',
    author: OTHER_USER,
  }),
  repository({
    host: 'git-host-2',
    fullName: 'demo-team/api-service',
    description: 'HTTP API built from a Dockerfile',
    updatedAt: '2025-06-03T14:20:00.000Z',
    tree: API_SERVICE_TREE,
    headMessage: 'Serve on port 8080',
    otherBranches: [{ name: 'develop', message: 'Log at debug level' }],
  }),
  repository({
    host: 'git-host-2',
    fullName: 'demo-team/legacy-app',
    description: 'PHP application, no template',
    updatedAt: '2025-02-14T11:00:00.000Z',
    tree: LEGACY_APP_TREE,
    headMessage: 'Move the entry point into public/',
  }),
  repository({
    host: 'git-host-2',
    fullName: 'other-team/internal-tools',
    description: null,
    updatedAt: '2025-01-20T09:00:00.000Z',
    tree: INTERNAL_TOOLS_TREE,
    headMessage: 'Start',
    author: OTHER_USER,
  }),
  repository({
    host: 'git-host-3',
    fullName: 'demo-group/backend/payments-api',
    description: 'Payments API and its worker',
    updatedAt: '2025-06-04T07:45:00.000Z',
    tree: PAYMENTS_API_TREE,
    headMessage: 'Add the settlement worker',
    otherBranches: [{ name: 'release/1.x', message: 'Prepare 1.4' }],
  }),
  repository({
    host: 'git-host-3',
    fullName: 'demo-group/website',
    private: false,
    description: 'Group website (its template has mistakes)',
    updatedAt: '2025-05-19T13:05:00.000Z',
    tree: WEBSITE_TREE,
    headMessage: 'Describe the website deployment',
  }),
  repository({
    host: 'git-host-3',
    fullName: 'other-group/secret-project',
    description: null,
    updatedAt: '2025-01-05T18:00:00.000Z',
    tree: SECRET_PROJECT_TREE,
    headMessage: 'Start',
    author: OTHER_USER,
  }),
];

export interface SeedPackageVersion {
  /** `sha256:` and 64 hex digits. */
  digest: string;
  tags: readonly string[];
  createdAt: string;
}

export interface SeedPackage {
  owner: string;
  name: string;
  visibility: 'public' | 'private' | 'internal';
  /** Newest first. */
  versions: readonly SeedPackageVersion[];
}

const imageDigest = (seed: string) => `sha256:${createHash('sha256').update(seed).digest('hex')}`;

/** Host 1's container images. */
export const SEED_PACKAGES: readonly SeedPackage[] = [
  {
    owner: 'acme-labs',
    name: 'storefront',
    visibility: 'private',
    versions: [
      { digest: imageDigest('acme-labs/storefront@1.2.0'), tags: ['latest', 'v1.2.0'], createdAt: '2025-05-28T17:02:00.000Z' },
      { digest: imageDigest('acme-labs/storefront@1.1.0'), tags: ['v1.1.0'], createdAt: '2025-04-30T10:12:00.000Z' },
    ],
  },
  {
    owner: 'acme-labs',
    name: 'docs-site',
    visibility: 'public',
    versions: [{ digest: imageDigest('acme-labs/docs-site@latest'), tags: ['latest'], createdAt: '2025-04-11T08:05:00.000Z' }],
  },
  {
    owner: 'demo-user',
    name: 'hello-node',
    visibility: 'public',
    versions: [{ digest: imageDigest('demo-user/hello-node@1.0.0'), tags: ['latest', 'v1.0.0'], createdAt: '2025-06-02T09:20:00.000Z' }],
  },
  {
    owner: 'globex',
    name: 'website',
    visibility: 'private',
    versions: [{ digest: imageDigest('globex/website@latest'), tags: ['latest'], createdAt: '2025-03-01T10:05:00.000Z' }],
  },
];

const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export function findSeedRepository(host: GitHost, fullName: string): SeedRepository | undefined {
  return SEED_REPOSITORIES.find((repo) => repo.host === host && sameName(repo.fullName, fullName));
}

export function findSeedNamespace(host: GitHost, path: string): SeedNamespace | undefined {
  return SEED_NAMESPACES.find((namespace) => namespace.host === host && sameName(namespace.path, path));
}

export function seedRepositoriesOf(host: GitHost): SeedRepository[] {
  return SEED_REPOSITORIES.filter((repo) => repo.host === host);
}

/** The namespaces `login` belongs to on `host`, subgroups of its groups included. */
export function namespacesOfUser(host: GitHost, login: string): SeedNamespace[] {
  const direct = SEED_NAMESPACES.filter((namespace) => namespace.host === host && namespace.members.some((member) => sameName(member, login)));
  return SEED_NAMESPACES.filter(
    (namespace) =>
      namespace.host === host &&
      direct.some((parent) => sameName(parent.path, namespace.path) || namespace.path.toLowerCase().startsWith(`${parent.path.toLowerCase()}/`)),
  );
}

export function findSeedPackage(owner: string, name: string): SeedPackage | undefined {
  return SEED_PACKAGES.find((pkg) => sameName(pkg.owner, owner) && sameName(pkg.name, name));
}

const trees = new Map<string, ReadonlyMap<string, SeedEntry>>();

/** The files of a seeded branch: the default branch's with the branch's changes applied. */
export function seedTreeOf(repo: SeedRepository, branch: SeedBranch): ReadonlyMap<string, SeedEntry> {
  const key = `${repo.host}:${repo.fullName}:${branch.name}`;
  let tree = trees.get(key);
  if (!tree) {
    const files = new Map<string, SeedEntry>(Object.entries(repo.tree));
    for (const [path, entry] of Object.entries(branch.changes ?? {})) {
      if (entry === null) files.delete(path);
      else files.set(path, entry);
    }
    tree = files;
    trees.set(key, tree);
  }
  return tree;
}
