import { setTimeout as sleep } from 'node:timers/promises';
import type { StoredAppService } from '../../../db/schema/apps';
import { AppError } from '../../platform/errors';
import type { GitContentEntry } from '../gitHosts/types';
import type { BuildOutcome, BuildProvider, BuildReporter, BuildRequest, SourceReader } from './types';

export interface BuildSimulatorOptions {
  /** Pause between build steps, so the statuses and the log can be watched as they change; 0 in tests. */
  stepMs: number;
}

/** Why the build stopped; its message becomes the deployment's failure reason. */
class BuildFailure extends Error {}

interface Buildpack {
  language: string;
  /** The file whose presence in sourceDir selects the buildpack. */
  marker: string;
}

/** In detection order: the first marker present wins, as buildpack detection does. */
const BUILDPACKS: readonly Buildpack[] = [
  { language: 'Node.js', marker: 'package.json' },
  { language: 'Python', marker: 'requirements.txt' },
  { language: 'Python', marker: 'pyproject.toml' },
  { language: 'Go', marker: 'go.mod' },
  { language: 'PHP', marker: 'composer.json' },
  { language: 'Ruby', marker: 'Gemfile' },
];
const STATIC_BUILDPACK: Buildpack = { language: 'static files', marker: 'index.html' };

/** What a build produced for a service, for the release to start. */
interface BuiltService {
  service: StoredAppService;
  /** Null for STATIC, which runs no process. */
  runCommand: string | null;
}

/**
 * A faithful model of a build and release: it reads the real source at the commit through the
 * SourceReader and refuses what a builder would refuse (a missing sourceDir or Dockerfile, no
 * detectable language, nothing to run), then logs the release of every instance. No container
 * is built or run.
 */
export class BuildSimulator implements BuildProvider {
  readonly kind = 'simulator' as const;
  readonly description = 'Simulated builds: the source is read from the git host and checked as a builder would; no image is built and no instance runs';

  constructor(private readonly options: BuildSimulatorOptions) {}

  async build(request: BuildRequest, reporter: BuildReporter): Promise<BuildOutcome> {
    await reporter.building();
    try {
      await new BuildRun(request, reporter, this.options.stepMs).run();
      return { status: 'LIVE' };
    } catch (err) {
      if (!(err instanceof BuildFailure)) throw err;
      await reporter.log(`Build failed: ${err.message}`);
      return { status: 'FAILED', reason: err.message };
    }
  }
}

/** One build of one deployment: the steps in order, each logged as it happens. */
class BuildRun {
  private readonly source: SourceReader;
  private readonly shortSha: string;

  constructor(
    private readonly request: BuildRequest,
    private readonly reporter: BuildReporter,
    private readonly stepMs: number,
  ) {
    this.source = request.source;
    this.shortSha = request.commitSha.slice(0, 7);
  }

  async run(): Promise<void> {
    await this.clone();
    const built: BuiltService[] = [];
    for (const service of this.request.services) built.push(await this.buildService(service));
    for (const service of built) await this.release(service);
    await this.reporter.log(`Deployment ${this.request.deploymentId} of ${this.request.appName} is live in ${this.request.region}`);
  }

  private async clone(): Promise<void> {
    await this.reporter.log(`Cloning ${this.source.label}`);
    const root = await this.read(() => this.source.listContents(''));
    await this.reporter.log(`Checked out commit ${this.request.commitSha} (${root.length} entries at the repository root)`);
    await this.step();
  }

  private async buildService(service: StoredAppService): Promise<BuiltService> {
    const log = (line: string) => this.reporter.log(`[build ${service.name}] ${line}`);
    await log(`Building the ${service.appType} service from ${describeDir(service.sourceDir)} with ${service.buildStrategy}`);
    if (service.appType === 'STATIC' && service.outputDir === null) {
      throw new BuildFailure(`service ${service.name}: a STATIC service needs an outputDir, the folder the site is built to`);
    }
    const entries = await this.listSourceDir(service);
    await this.logEnvironment(service, log);
    const runCommand =
      service.buildStrategy === 'DOCKERFILE' ? await this.buildWithDockerfile(service, entries, log) : await this.buildWithBuildpack(service, entries, log);
    await this.step();
    return { service, runCommand };
  }

  private async listSourceDir(service: StoredAppService): Promise<GitContentEntry[]> {
    try {
      return await this.source.listContents(repositoryPath(service.sourceDir));
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') {
        throw new BuildFailure(`service ${service.name}: sourceDir "${service.sourceDir}" does not exist at ${this.request.commitSha}`);
      }
      throw readFailure(err);
    }
  }

  /** Names only: values stay out of the log, and a secret's is not hinted at beyond whether it has one. */
  private async logEnvironment(service: StoredAppService, log: (line: string) => Promise<void>): Promise<void> {
    if (!service.envVars.length) return log('Environment: no variables');
    const names = service.envVars.map(({ key, value, secret }) => (secret ? `${key} (secret, ${value === '' ? 'empty' : 'set'})` : key));
    await log(`Environment: ${names.join(', ')}`);
  }

  /** Answers the command the release runs, null for a STATIC service. */
  private async buildWithDockerfile(service: StoredAppService, entries: GitContentEntry[], log: (line: string) => Promise<void>): Promise<string | null> {
    const dockerfilePath = joinPath(service.sourceDir, 'Dockerfile');
    const text = hasFile(entries, 'Dockerfile') ? await this.read(() => this.source.readFile(dockerfilePath)) : null;
    if (text === null) {
      throw new BuildFailure(`service ${service.name}: the DOCKERFILE strategy needs ${dockerfilePath}, and there is none at ${this.request.commitSha}`);
    }
    const instructions = dockerInstructions(text);
    if (!instructions.some((instruction) => instruction.keyword === 'FROM')) {
      throw new BuildFailure(`service ${service.name}: ${dockerfilePath} has no FROM instruction, so there is no image to build on`);
    }
    if (service.buildCommand) await log('buildCommand is not used with DOCKERFILE: the Dockerfile’s RUN steps build the image');
    await log(`$ docker build --file ${dockerfilePath} ${describeDir(service.sourceDir)}`);
    for (const [index, instruction] of instructions.entries()) {
      await log(`Step ${index + 1}/${instructions.length} : ${instruction.shown}`);
    }
    await log(`Built image ${this.imageName(service)}`);
    if (service.appType === 'STATIC') return null;
    return service.runCommand || 'the image’s CMD';
  }

  /** Answers the command the release runs, null for a STATIC service. */
  private async buildWithBuildpack(service: StoredAppService, entries: GitContentEntry[], log: (line: string) => Promise<void>): Promise<string | null> {
    const buildpack = detectBuildpack(service, entries);
    if (!buildpack) {
      const markers = BUILDPACKS.map((pack) => `${pack.marker} (${pack.language})`);
      if (service.appType === 'STATIC') markers.push(`${STATIC_BUILDPACK.marker} (static files)`);
      throw new BuildFailure(
        `service ${service.name}: no buildpack detected in ${describeDir(service.sourceDir)} at ${this.request.commitSha}: add one of ${markers.join(', ')}, or use the DOCKERFILE strategy`,
      );
    }
    await log(`Detected ${buildpack.language} (${joinPath(service.sourceDir, buildpack.marker)})`);
    const packageScripts = buildpack.language === 'Node.js' ? await this.packageScripts(service) : {};
    const install = installCommand(buildpack, entries);
    if (install) await runLogged(install, log);
    const buildCommand = service.buildCommand || defaultBuildCommand(buildpack, packageScripts);
    if (buildCommand) await runLogged(buildCommand, log);

    if (service.appType === 'STATIC') {
      if (!buildCommand) await this.checkOutputDirExists(service);
      await log(`Collected the site from ${describeDir(outputPath(service))}`);
      return null;
    }
    const runCommand = service.runCommand || (await this.procfileCommand(service, entries)) || defaultRunCommand(buildpack, packageScripts);
    if (!runCommand) {
      const processType = service.appType === 'WORKER' ? 'worker' : 'web';
      throw new BuildFailure(
        `service ${service.name}: nothing to run: set runCommand, or add a Procfile with a "${processType}:" line${buildpack.language === 'Node.js' ? ' or a "start" script in package.json' : ''}`,
      );
    }
    await log(`Built image ${this.imageName(service)}`);
    return runCommand;
  }

  /** A STATIC service that nothing builds serves files already in the repository. */
  private async checkOutputDirExists(service: StoredAppService): Promise<void> {
    try {
      await this.source.listContents(repositoryPath(outputPath(service)));
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') {
        throw new BuildFailure(
          `service ${service.name}: outputDir "${service.outputDir}" does not exist at ${this.request.commitSha} and no buildCommand makes it`,
        );
      }
      throw readFailure(err);
    }
  }

  private async packageScripts(service: StoredAppService): Promise<Record<string, unknown>> {
    const path = joinPath(service.sourceDir, 'package.json');
    const text = await this.read(() => this.source.readFile(path));
    try {
      const manifest: unknown = JSON.parse(text ?? '{}');
      const scripts = typeof manifest === 'object' && manifest !== null ? (manifest as { scripts?: unknown }).scripts : undefined;
      return typeof scripts === 'object' && scripts !== null ? (scripts as Record<string, unknown>) : {};
    } catch {
      throw new BuildFailure(`service ${service.name}: ${path} is not valid JSON`);
    }
  }

  /** The Procfile's line for the service's process type (`web` or `worker`), as buildpacks read it. */
  private async procfileCommand(service: StoredAppService, entries: GitContentEntry[]): Promise<string | null> {
    if (!hasFile(entries, 'Procfile')) return null;
    const text = await this.read(() => this.source.readFile(joinPath(service.sourceDir, 'Procfile')));
    const processType = service.appType === 'WORKER' ? 'worker' : 'web';
    for (const line of (text ?? '').split(/\r?\n/)) {
      const match = /^([A-Za-z0-9_-]+):\s*(.+)$/.exec(line.trim());
      if (match?.[1] === processType && match[2]) return match[2];
    }
    return null;
  }

  private async release(built: BuiltService): Promise<void> {
    const { service, runCommand } = built;
    const log = (line: string) => this.reporter.log(`[release ${service.name}] ${line}`);
    for (let instance = 1; instance <= service.instances; instance += 1) {
      await log(`Starting instance ${service.name}-${instance} of ${service.instances} (${service.instanceSize}) in ${this.request.region}`);
      if (runCommand === null) {
        await log(`Serving the site from ${describeDir(outputPath(service))}`);
      } else {
        await log(`Running: ${firstLine(runCommand)}`);
        await log(`Health check on port ${service.internalPort}: passed`);
      }
      await this.step();
    }
    if (service.publicPort > 0) {
      const target = service.internalPort > 0 ? `port ${service.internalPort}` : 'the site';
      await log(`Public port ${service.publicPort} now routes to ${target}`);
    }
  }

  private imageName(service: StoredAppService): string {
    return `${this.request.appName}/${service.name}:${this.shortSha}`;
  }

  /** Any failure to read the source ends the build; the platform's own errors say why (never with a token). */
  private async read<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw readFailure(err);
    }
  }

  private async step(): Promise<void> {
    if (this.stepMs > 0) await sleep(this.stepMs);
  }
}

function readFailure(err: unknown): BuildFailure {
  // Only the platform's own errors have messages fit to show; anything else may carry a URL or worse.
  const why = err instanceof AppError ? err.message : 'the git host could not be read';
  return new BuildFailure(`reading the source failed: ${why}`);
}

function detectBuildpack(service: StoredAppService, entries: GitContentEntry[]): Buildpack | null {
  const found = BUILDPACKS.find((pack) => hasFile(entries, pack.marker));
  if (found) return found;
  return service.appType === 'STATIC' && hasFile(entries, STATIC_BUILDPACK.marker) ? STATIC_BUILDPACK : null;
}

function installCommand(buildpack: Buildpack, entries: GitContentEntry[]): string | null {
  switch (buildpack.marker) {
    case 'package.json':
      return hasFile(entries, 'package-lock.json') ? 'npm ci' : 'npm install';
    case 'requirements.txt':
      return 'pip install -r requirements.txt';
    case 'pyproject.toml':
      return 'pip install .';
    case 'go.mod':
      return 'go mod download';
    case 'composer.json':
      return 'composer install --no-dev';
    case 'Gemfile':
      return 'bundle install';
    default:
      return null;
  }
}

function defaultBuildCommand(buildpack: Buildpack, packageScripts: Record<string, unknown>): string | null {
  if (buildpack.marker === 'package.json') return typeof packageScripts.build === 'string' ? 'npm run build' : null;
  if (buildpack.marker === 'go.mod') return 'go build -o bin/app .';
  return null;
}

function defaultRunCommand(buildpack: Buildpack, packageScripts: Record<string, unknown>): string | null {
  if (buildpack.marker === 'package.json') return typeof packageScripts.start === 'string' ? 'npm start' : null;
  if (buildpack.marker === 'go.mod') return './bin/app';
  return null;
}

interface DockerInstruction {
  keyword: string;
  /** As logged: ENV and ARG values are left out, since they often hold credentials. */
  shown: string;
}

function dockerInstructions(text: string): DockerInstruction[] {
  return text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const keyword = (line.split(/\s+/, 1)[0] ?? '').toUpperCase();
      const shown = keyword === 'ENV' || keyword === 'ARG' ? `${keyword} (values not shown)` : truncate(line, 200);
      return { keyword, shown };
    });
}

async function runLogged(command: string, log: (line: string) => Promise<void>): Promise<void> {
  for (const line of command.split(/\r?\n/)) {
    if (line.trim()) await log(`$ ${line.trim()}`);
  }
}

function hasFile(entries: GitContentEntry[], name: string): boolean {
  return entries.some((entry) => entry.name === name && (entry.type === 'file' || entry.type === 'symlink'));
}

/** The stored `.` (the root) is `''` to a git host. */
function repositoryPath(dir: string): string {
  return dir === '.' ? '' : dir;
}

function joinPath(dir: string, name: string): string {
  if (dir === '.') return name;
  if (name === '.') return dir;
  return `${dir}/${name}`;
}

/** outputDir is relative to sourceDir. */
function outputPath(service: StoredAppService): string {
  return joinPath(service.sourceDir, service.outputDir ?? '.');
}

function describeDir(dir: string): string {
  return dir === '.' ? 'the repository root' : `${dir}/`;
}

function firstLine(command: string): string {
  const lines = command.split(/\r?\n/).filter((line) => line.trim());
  return truncate(lines.length > 1 ? `${lines[0]} …` : (lines[0] ?? command), 200);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
