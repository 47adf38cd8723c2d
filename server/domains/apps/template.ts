import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, Parser, visit, type CST, type Document, type Node, type YAMLError } from 'yaml';
import { z } from 'zod';
import { APP_TYPES, BUILD_STRATEGIES } from '../../../db/schema/apps';

/**
 * The deployment template a repository may hold (SPEC "Deployment template"): found, found and
 * valid, or found and invalid with one error a person can act on, naming the line and the field.
 */

/** Where the template is looked up, in order: `.yaml` wins when both exist. */
export const APP_TEMPLATE_PATHS = ['.cloudpanel/app.yaml', '.cloudpanel/app.yml'] as const;

export const MAX_TEMPLATE_BYTES = 64 * 1024;
/**
 * Collections inside collections: a template needs 5 (services → service → envVars → variable);
 * the YAML composer recurses per level and hostile nesting would exhaust the stack.
 */
const MAX_NESTING = 16;
/** Alias expansions allowed when reading the file: enough for sharing a block, far too few for a "billion laughs". */
const MAX_ALIAS_COUNT = 100;

const MAX_SERVICES = 10;
const MAX_INSTANCES = 20;
const MAX_ENV_VARS = 100;
const MAX_COMMAND_LENGTH = 1000;
const MAX_ENV_KEY_LENGTH = 128;
const MAX_ENV_VALUE_LENGTH = 10_000;
const MAX_PATH_LENGTH = 255;
const DEFAULT_PUBLIC_PORT = 443;
const DEFAULT_INTERNAL_PORT = 8080;

const NAME_PATTERN = /^[a-z][a-z0-9-]{0,39}$/;
const REGION_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;
const SIZE_PATTERN = /^[a-z0-9][a-z0-9.-]{0,63}$/;
const ENV_KEY_PATTERN = /^[A-Z_][A-Z0-9_]*$/;

/** What each field of the file must hold: the error messages and the API's descriptions say the same thing. */
const RULES = {
  name: 'must be 1 to 40 lowercase letters, digits and hyphens, starting with a letter',
  services: `must be a list of 1 to ${MAX_SERVICES} services`,
  service: 'must be a mapping of service fields (name, appType, sourceDir, …)',
  appType: `must be one of ${APP_TYPES.join(', ')} (any letter case)`,
  sourceDir: 'must be a relative path inside the repository: no "..", no leading "/", no backslash',
  buildStrategy: `must be one of ${BUILD_STRATEGIES.join(', ')} (any letter case)`,
  command: `must be text of at most ${MAX_COMMAND_LENGTH} characters`,
  outputDir: 'must be null or a relative path inside the repository: no "..", no leading "/", no backslash',
  port: 'must be a whole number from 1 to 65535',
  instanceSize: 'must be a size slug: lowercase letters, digits, dots and hyphens, up to 64 characters',
  instances: `must be a whole number from 1 to ${MAX_INSTANCES}`,
  region: 'must be a region slug: lowercase letters, digits and hyphens, up to 32 characters',
  boolean: 'must be true or false',
  envVars: `must be a list of at most ${MAX_ENV_VARS} variables`,
  envVar: 'must be a mapping with key, value and optionally secret',
  envKey: `must be 1 to ${MAX_ENV_KEY_LENGTH} characters of upper-case letters, digits and underscores, not starting with a digit`,
  envValue: `must be text of at most ${MAX_ENV_VALUE_LENGTH} characters`,
} as const;

const RULE_OF_FIELD: Record<string, string> = {
  name: RULES.name,
  services: RULES.services,
  appType: RULES.appType,
  sourceDir: RULES.sourceDir,
  buildStrategy: RULES.buildStrategy,
  buildCommand: RULES.command,
  runCommand: RULES.command,
  outputDir: RULES.outputDir,
  publicPort: `${RULES.port} (0 or absent for a WORKER)`,
  internalPort: `${RULES.port} (0 or absent for a STATIC)`,
  instanceSize: RULES.instanceSize,
  instances: RULES.instances,
  region: RULES.region,
  autoDeploy: RULES.boolean,
  envVars: RULES.envVars,
  key: RULES.envKey,
  value: RULES.envValue,
  secret: RULES.boolean,
};

export const appTemplateEnvVarSchema = z.object({
  key: z.string().describe(`Variable name: ${RULES.envKey}; unique within the service`),
  value: z.string().describe(`${RULES.envValue}; numbers and booleans must be quoted in the file`),
  secret: z.boolean().describe('Stored encrypted and never shown again when true; false when the file leaves it out'),
});

export const appTemplateServiceSchema = z
  .object({
    name: z.string().describe(`Service name: ${RULES.name}; unique within the file`),
    appType: z.enum(APP_TYPES).describe('WEB serves HTTP, WORKER runs in the background, STATIC serves built files; any letter case in the file; default WEB'),
    sourceDir: z.string().describe(`Folder of the service from the repository root, "." for the root; ${RULES.sourceDir}; "./api/" becomes "api"; default "."`),
    buildStrategy: z
      .enum(BUILD_STRATEGIES)
      .describe('BUILDPACK detects the language from the files of sourceDir; DOCKERFILE builds sourceDir/Dockerfile; default BUILDPACK'),
    buildCommand: z.string().describe(`Runs after dependencies are installed; ${RULES.command}; empty for the strategy's default`),
    runCommand: z.string().describe(`Starts the service; ${RULES.command}; empty for the strategy's default`),
    outputDir: z
      .string()
      .nullable()
      .describe(`STATIC only, and required for it: the folder, from sourceDir, the build writes the site to; ${RULES.sourceDir}. Null for WEB and WORKER`),
    publicPort: z
      .number()
      .int()
      .describe(`The port served to the internet: 1 to 65535 for WEB and STATIC (default ${DEFAULT_PUBLIC_PORT}); 0 for WORKER, which serves none`),
    internalPort: z
      .number()
      .int()
      .describe(`The port the process listens on: 1 to 65535 for WEB and WORKER (default ${DEFAULT_INTERNAL_PORT}); 0 for STATIC, which runs no process`),
    instanceSize: z.string().describe(`App size slug from the catalogue, checked when the app is created; ${RULES.instanceSize}`),
    instances: z.number().int().describe(`Instances that run the service: 1 to ${MAX_INSTANCES}; default 1`),
    region: z.string().describe(`Region slug, required; every service of a file names the same region (an app runs in one region)`),
    autoDeploy: z.boolean().describe('Whether a push to the branch deploys; default true'),
    envVars: z.array(appTemplateEnvVarSchema).describe(`Up to ${MAX_ENV_VARS} variables, keys unique within the service; default none`),
  })
  .meta({ id: 'AppTemplateService' });

const templatePath = z.string().describe(`The template file found, from the repository root: ${APP_TEMPLATE_PATHS.join(' or ')}`);

export const appTemplateResultSchema = z
  .union([
    z.object({
      found: z.literal(true),
      valid: z.literal(true),
      path: templatePath,
      name: z.string().describe(`The app name the template proposes: ${RULES.name}`),
      services: z.array(appTemplateServiceSchema).describe(`1 to ${MAX_SERVICES} services, defaults applied`),
    }),
    z.object({ found: z.literal(false) }),
    z.object({
      found: z.literal(true),
      valid: z.literal(false),
      path: templatePath,
      error: z
        .string()
        .describe(
          'The first problem of the file, with its line: "line 7: services[0].instances must be a whole number from 1 to 20 (got "three")". Unknown fields, duplicate keys, YAML syntax errors and files over 64 KB are problems too',
        ),
    }),
  ])
  .meta({ id: 'AppTemplate' });

export type AppTemplateService = z.infer<typeof appTemplateServiceSchema>;
export type AppTemplateResult = z.infer<typeof appTemplateResultSchema>;

/** A relative path that stays inside the repository, or null when it would leave it. */
function normaliseRepositoryPath(raw: string): string | null {
  const hasControlCharacter = [...raw].some((char) => char.charCodeAt(0) < 0x20);
  if (hasControlCharacter || raw.includes('\\') || raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) return null;
  const segments = raw.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) return null;
  return segments.length ? segments.join('/') : '.';
}

const repositoryPath = z
  .string()
  .min(1)
  .max(MAX_PATH_LENGTH)
  .transform((raw, ctx) => {
    const normalised = normaliseRepositoryPath(raw);
    if (normalised === null) {
      ctx.addIssue({ code: 'custom', message: 'leaves the repository', input: raw });
      return z.NEVER;
    }
    return normalised;
  });

const anyCase = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .transform((raw) => raw.toUpperCase())
    .pipe(z.enum(values));

const command = z.string().max(MAX_COMMAND_LENGTH).default('');
const portInFile = z.int().min(0).max(65535).optional();

/**
 * A rule spanning fields (ports by app type, unique names, one region). Its message is complete as
 * written, where a single field's failure is phrased from RULES with the value the file holds.
 */
function crossFieldIssue(path: (string | number)[], message: string) {
  return { code: 'custom' as const, path, message, params: { crossField: true } };
}

const envVarFields = {
  key: z.string().max(MAX_ENV_KEY_LENGTH).regex(ENV_KEY_PATTERN),
  value: z.string().max(MAX_ENV_VALUE_LENGTH),
  secret: z.boolean().optional(),
};

const envVarInFile = z.strictObject(envVarFields).transform(({ key, value, secret }) => ({ key, value, secret: secret ?? false }));

const serviceFields = {
  name: z.string().regex(NAME_PATTERN),
  appType: anyCase(APP_TYPES).default('WEB'),
  sourceDir: repositoryPath.default('.'),
  buildStrategy: anyCase(BUILD_STRATEGIES).default('BUILDPACK'),
  buildCommand: command,
  runCommand: command,
  outputDir: repositoryPath.nullable().default(null),
  publicPort: portInFile,
  internalPort: portInFile,
  instanceSize: z.string().regex(SIZE_PATTERN),
  instances: z.int().min(1).max(MAX_INSTANCES).default(1),
  region: z.string().regex(REGION_PATTERN),
  autoDeploy: z.boolean().default(true),
  envVars: z.array(envVarInFile).max(MAX_ENV_VARS).default([]),
};

const serviceInFile = z
  .strictObject(serviceFields)
  .superRefine((service, ctx) => {
    const { appType } = service;
    if (appType === 'WORKER' && service.publicPort) {
      ctx.addIssue(crossFieldIssue(['publicPort'], 'must be 0 or absent for a WORKER service, which serves no public port'));
    } else if (appType !== 'WORKER' && service.publicPort === 0) {
      ctx.addIssue(crossFieldIssue(['publicPort'], `must be a whole number from 1 to 65535 for a ${appType} service (only a WORKER has none)`));
    }
    if (appType === 'STATIC' && service.internalPort) {
      ctx.addIssue(crossFieldIssue(['internalPort'], 'must be 0 or absent for a STATIC service, which runs no process'));
    } else if (appType !== 'STATIC' && service.internalPort === 0) {
      ctx.addIssue(crossFieldIssue(['internalPort'], `must be a whole number from 1 to 65535 for a ${appType} service (only a STATIC has none)`));
    }
    if (appType === 'STATIC' && service.outputDir === null) {
      ctx.addIssue(crossFieldIssue(['outputDir'], 'is required for a STATIC service: the folder, from sourceDir, the build writes the site to'));
    } else if (appType !== 'STATIC' && service.outputDir !== null) {
      ctx.addIssue(crossFieldIssue(['outputDir'], `must be null or absent for a ${appType} service (only a STATIC service has one)`));
    }
    const firstIndexOfKey = new Map<string, number>();
    service.envVars.forEach(({ key }, index) => {
      const first = firstIndexOfKey.get(key);
      if (first === undefined) firstIndexOfKey.set(key, index);
      else ctx.addIssue(crossFieldIssue(['envVars', index, 'key'], `"${key}" is already set by envVars[${first}] of this service`));
    });
  })
  .transform((service): AppTemplateService => ({
    name: service.name,
    appType: service.appType,
    sourceDir: service.sourceDir,
    buildStrategy: service.buildStrategy,
    buildCommand: service.buildCommand,
    runCommand: service.runCommand,
    outputDir: service.outputDir,
    publicPort: service.appType === 'WORKER' ? 0 : (service.publicPort ?? DEFAULT_PUBLIC_PORT),
    internalPort: service.appType === 'STATIC' ? 0 : (service.internalPort ?? DEFAULT_INTERNAL_PORT),
    instanceSize: service.instanceSize,
    instances: service.instances,
    region: service.region,
    autoDeploy: service.autoDeploy,
    envVars: service.envVars,
  }));

const templateFields = {
  name: z.string().regex(NAME_PATTERN),
  services: z.array(serviceInFile).min(1).max(MAX_SERVICES),
};

const templateInFile = z.strictObject(templateFields).superRefine(({ services }, ctx) => {
  const firstIndexOfName = new Map<string, number>();
  services.forEach(({ name }, index) => {
    const first = firstIndexOfName.get(name);
    if (first === undefined) firstIndexOfName.set(name, index);
    else ctx.addIssue(crossFieldIssue(['services', index, 'name'], `"${name}" is already the name of services[${first}]`));
  });
  const region = services[0]?.region;
  services.forEach((service, index) => {
    if (service.region !== region) {
      ctx.addIssue(
        crossFieldIssue(
          ['services', index, 'region'],
          `"${service.region}" differs from services[0].region "${region}": every service of an app runs in the same region`,
        ),
      );
    }
  });
});

/** The fields each level of the file takes, for naming the expected ones next to an unknown one. */
const KNOWN_FIELDS = {
  template: Object.keys(templateFields),
  service: Object.keys(serviceFields),
  envVar: Object.keys(envVarFields),
};

type FieldPath = ReadonlyArray<PropertyKey>;

interface TemplateProblem {
  /** 1-based; null when the problem is the file as a whole. */
  line: number | null;
  message: string;
}

/** Reads one template file's text. Pure: the same text always answers the same. */
export function parseAppTemplate(path: string, text: string): AppTemplateResult {
  const outcome = readTemplate(text);
  if ('problem' in outcome) {
    const { line, message } = outcome.problem;
    return { found: true, valid: false, path, error: line === null ? message : `line ${line}: ${message}` };
  }
  return { found: true, valid: true, path, name: outcome.template.name, services: outcome.template.services };
}

/** Looks the template up through `readFile` (null: no file there) at each of APP_TEMPLATE_PATHS in turn. */
export async function findAppTemplate(readFile: (path: string) => Promise<string | null>): Promise<AppTemplateResult> {
  for (const path of APP_TEMPLATE_PATHS) {
    const text = await readFile(path);
    if (text !== null) return parseAppTemplate(path, text);
  }
  return { found: false };
}

type ReadOutcome = { template: { name: string; services: AppTemplateService[] } } | { problem: TemplateProblem };

function readTemplate(text: string): ReadOutcome {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_TEMPLATE_BYTES) {
    return { problem: { line: null, message: `the template is ${bytes} bytes; it may be at most ${MAX_TEMPLATE_BYTES} bytes (64 KB)` } };
  }
  const tooDeepAt = offsetBeyondNesting(text, MAX_NESTING);
  if (tooDeepAt !== null) {
    const line = text.slice(0, tooDeepAt).split('\n').length;
    return { problem: { line, message: `lists and mappings are nested more than ${MAX_NESTING} levels deep here` } };
  }
  const lineCounter = new LineCounter();
  const lineAt = (offset: number) => lineCounter.linePos(offset).line;
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });

  const [syntaxError] = doc.errors;
  if (syntaxError) {
    return { problem: { line: lineAt(syntaxError.pos[0]), message: describeSyntaxError(text, syntaxError) } };
  }
  if (!isMap(doc.contents)) {
    const line = doc.contents?.range ? lineAt(doc.contents.range[0]) : 1;
    const got = doc.contents ? ` (got ${describeNode(doc.contents)})` : ' (the file is empty)';
    return { problem: { line, message: `the template must be a mapping with name and services${got}` } };
  }

  const data = toPlainData(doc, lineAt);
  if ('problem' in data) return data;

  const parsed = templateInFile.safeParse(data.value);
  if (parsed.success) return { template: parsed.data };
  const problems = parsed.error.issues.map((issue) => describeIssue(doc, lineAt, issue));
  // Zod reports in the schema's field order; a person reads the file top to bottom.
  const [first] = problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return { problem: first ?? { line: null, message: 'the template is not valid' } };
}

/**
 * Where collections first nest deeper than `limit`, or null. Walks the parser's syntax tree with a
 * stack of its own: the parser does not recurse, the composer that builds the document does.
 */
function offsetBeyondNesting(text: string, limit: number): number | null {
  const pending: { token: CST.Token | null | undefined; depth: number }[] = [...new Parser().parse(text)].map((token) => ({ token, depth: 0 }));
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { token, depth } = next;
    if (token?.type === 'document') {
      pending.push({ token: token.value, depth });
    } else if (token?.type === 'block-map' || token?.type === 'block-seq' || token?.type === 'flow-collection') {
      if (depth + 1 > limit) return token.offset;
      for (const item of token.items) pending.push({ token: item.key, depth: depth + 1 }, { token: item.value, depth: depth + 1 });
    }
  }
  return null;
}

/** The parser's words, except where they would send a person to the parser's API. */
function describeSyntaxError(text: string, error: YAMLError): string {
  switch (error.code) {
    case 'DUPLICATE_KEY':
      return `the key ${duplicateKeyAt(text, error.pos[0])} appears twice in the same mapping; each field may be given once`;
    case 'MULTIPLE_DOCS':
      return 'the template must be a single YAML document: remove the "---" that starts a second one';
    default:
      return `YAML syntax error: ${error.message}`;
  }
}

/** The key the parser flagged as repeated, as written at `offset`. */
function duplicateKeyAt(text: string, offset: number): string {
  const written = /^\s*(?:"([^"\n]*)"|'([^'\n]*)'|([^:\n]*?))\s*:/.exec(text.slice(offset));
  const key = written?.[1] ?? written?.[2] ?? written?.[3];
  return key ? JSON.stringify(key) : 'here';
}

function toPlainData(doc: Document, lineAt: (offset: number) => number): { value: unknown } | { problem: TemplateProblem } {
  const aliases: { source: string; line: number; resolved: boolean }[] = [];
  visit(doc, {
    Alias(_key, alias) {
      aliases.push({ source: alias.source, line: alias.range ? lineAt(alias.range[0]) : 1, resolved: alias.resolve(doc) !== undefined });
    },
  });
  const dangling = aliases.find((alias) => !alias.resolved);
  if (dangling) {
    return { problem: { line: dangling.line, message: `the alias *${dangling.source} refers to no anchor &${dangling.source} defined before it` } };
  }
  try {
    return { value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (err) {
    if (!(err instanceof ReferenceError)) throw err;
    return {
      problem: {
        line: aliases[0]?.line ?? 1,
        message: `the aliases of the template expand to too much data (more than ${MAX_ALIAS_COUNT} expansions); write the values out instead`,
      },
    };
  }
}

interface ZodIssueView {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  params?: Record<string, unknown>;
}

function describeIssue(doc: Document, lineAt: (offset: number) => number, issue: ZodIssueView): TemplateProblem {
  const located = locate(doc, issue.path);
  const lineOf = (node: Node) => (node.range ? lineAt(node.range[0]) : 1);

  if (issue.code === 'unrecognized_keys' && issue.keys?.length) {
    const unknown = new Set(issue.keys);
    const pair = isMap(located.node) ? located.node.items.find((item) => unknown.has(keyText(item.key))) : undefined;
    const key = pair ? keyText(pair.key) : (issue.keys[0] ?? '');
    const keyNode = pair && isScalar(pair.key) ? pair.key : located.node;
    const expected = knownFieldsAt(issue.path);
    return {
      line: keyNode ? lineOf(keyNode) : 1,
      message: `${formatPath([...issue.path, key])} is not a known field (${expected.length ? `expected one of: ${expected.join(', ')}` : 'remove it'})`,
    };
  }

  const field = formatPath(issue.path);
  const line = located.node ? lineOf(located.node) : 1;
  if (issue.code === 'custom' && issue.params?.crossField === true) return { line, message: `${field} ${issue.message}` };
  if (!located.found) return { line, message: `${field} is required` };
  const node = located.node;
  const rule = ruleOf(issue.path);
  if (isScalar(node) && issue.path.at(-1) === 'value' && (typeof node.value === 'number' || typeof node.value === 'boolean')) {
    return { line, message: `${field} must be text, not a ${typeof node.value}: quote it, as in value: "${node.source ?? String(node.value)}"` };
  }
  return { line, message: `${field} ${rule}${node ? ` (got ${describeNode(node)})` : ''}` };
}

function ruleOf(path: FieldPath): string {
  const last = path.at(-1);
  if (typeof last === 'number') return path.at(-2) === 'envVars' ? RULES.envVar : RULES.service;
  return RULE_OF_FIELD[String(last)] ?? 'is not valid';
}

function knownFieldsAt(path: FieldPath): string[] {
  if (path.length === 0) return KNOWN_FIELDS.template;
  if (path.length === 2 && path[0] === 'services') return KNOWN_FIELDS.service;
  if (path.length === 4 && path[2] === 'envVars') return KNOWN_FIELDS.envVar;
  return [];
}

/**
 * The node at `path`, or the deepest node on the way when the path does not exist (a missing
 * field is reported on the line of the mapping that lacks it). Aliases are followed to their anchor.
 */
function locate(doc: Document, path: FieldPath): { node: Node | null; found: boolean } {
  let current: Node | null = resolve(doc, doc.contents);
  for (const segment of path) {
    let next: Node | null | undefined;
    if (isMap(current)) {
      const pair = current.items.find((item) => keyText(item.key) === String(segment));
      next = pair ? ((pair.value as Node | null) ?? (pair.key as Node | null)) : undefined;
    } else if (isSeq(current) && typeof segment === 'number') {
      next = current.items[segment] as Node | undefined;
    }
    if (!next) return { node: current, found: false };
    current = resolve(doc, next);
  }
  return { node: current, found: true };
}

function resolve(doc: Document, node: Node | null): Node | null {
  if (!isAlias(node)) return node;
  return (node.resolve(doc) as Node | undefined) ?? node;
}

function keyText(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

/** What a node holds, for "(got …)": a scalar as written, a collection by its kind. */
function describeNode(node: Node): string {
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    const { value } = node;
    if (value === null) return 'nothing';
    if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    return 'a value of another type';
  }
  return 'a value of another type';
}

/** `services[0].envVars[2].key`, the way the error names a field. */
function formatPath(path: FieldPath): string {
  return path.reduce<string>(
    (text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : text ? `${text}.${String(segment)}` : String(segment)),
    '',
  );
}
