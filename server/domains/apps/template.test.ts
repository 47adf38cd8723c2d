import { describe, expect, it } from 'vitest';
import { APP_TEMPLATE_PATHS, appTemplateResultSchema, findAppTemplate, MAX_TEMPLATE_BYTES, parseAppTemplate, type AppTemplateResult } from './template';

const PATH = '.cloudpanel/app.yaml';

/** A template whose lines are numbered as written here (line 1 is the first element). */
const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;

const minimalService = ['  - name: api', '    instanceSize: apps-s-1vcpu-1gb', '    region: nyc1'];

function errorOf(text: string): string {
  const result = parseAppTemplate(PATH, text);
  if (!result.found || result.valid) throw new Error(`expected an invalid template, got ${JSON.stringify(result)}`);
  expect(result.path).toBe(PATH);
  return result.error;
}

function validOf(text: string) {
  const result = parseAppTemplate(PATH, text);
  if (!result.found || !result.valid) throw new Error(`expected a valid template, got ${JSON.stringify(result)}`);
  return result;
}

describe('parseAppTemplate: valid templates', () => {
  it('reads every field and normalises type, strategy and paths', () => {
    const result = validOf(
      yaml(
        'name: shop',
        'services:',
        '  - name: api',
        '    appType: web',
        '    sourceDir: ./api/',
        '    buildStrategy: dockerfile',
        '    buildCommand: npm run build',
        '    runCommand: |',
        '      node migrate.js',
        '      node server.js',
        '    publicPort: 8443',
        '    internalPort: 3000',
        '    instanceSize: apps-s-1vcpu-0.5gb',
        '    instances: 3',
        '    region: fra1',
        '    autoDeploy: false',
        '    envVars:',
        '      - key: NODE_ENV',
        '        value: production',
        '      - key: DATABASE_URL',
        '        value: "postgres://db/shop"',
        '        secret: true',
        '  - name: site',
        '    appType: Static',
        '    sourceDir: web//public/.',
        '    outputDir: ./build/',
        '    instanceSize: apps-s-1vcpu-1gb',
        '    region: fra1',
      ),
    );
    expect(result).toEqual({
      found: true,
      valid: true,
      path: PATH,
      name: 'shop',
      services: [
        {
          name: 'api',
          appType: 'WEB',
          sourceDir: 'api',
          buildStrategy: 'DOCKERFILE',
          buildCommand: 'npm run build',
          runCommand: 'node migrate.js\nnode server.js\n',
          outputDir: null,
          publicPort: 8443,
          internalPort: 3000,
          instanceSize: 'apps-s-1vcpu-0.5gb',
          instances: 3,
          region: 'fra1',
          autoDeploy: false,
          envVars: [
            { key: 'NODE_ENV', value: 'production', secret: false },
            { key: 'DATABASE_URL', value: 'postgres://db/shop', secret: true },
          ],
        },
        {
          name: 'site',
          appType: 'STATIC',
          sourceDir: 'web/public',
          buildStrategy: 'BUILDPACK',
          buildCommand: '',
          runCommand: '',
          outputDir: 'build',
          publicPort: 443,
          internalPort: 0,
          instanceSize: 'apps-s-1vcpu-1gb',
          instances: 1,
          region: 'fra1',
          autoDeploy: true,
          envVars: [],
        },
      ],
    });
    expect(appTemplateResultSchema.parse(result)).toEqual(result);
  });

  it('applies the defaults of a WEB service and of a WORKER', () => {
    const result = validOf(
      yaml('name: jobs', 'services:', ...minimalService, '  - name: queue', '    appType: WORKER', '    instanceSize: s', '    region: nyc1'),
    );
    expect(result.services).toEqual([
      {
        name: 'api',
        appType: 'WEB',
        sourceDir: '.',
        buildStrategy: 'BUILDPACK',
        buildCommand: '',
        runCommand: '',
        outputDir: null,
        publicPort: 443,
        internalPort: 8080,
        instanceSize: 'apps-s-1vcpu-1gb',
        instances: 1,
        region: 'nyc1',
        autoDeploy: true,
        envVars: [],
      },
      expect.objectContaining({ name: 'queue', appType: 'WORKER', publicPort: 0, internalPort: 8080 }),
    ]);
  });

  it('accepts a WORKER publicPort of 0, a STATIC internalPort of 0 and an explicit null outputDir', () => {
    const result = validOf(
      yaml(
        'name: mixed',
        'services:',
        '  - name: queue',
        '    appType: worker',
        '    publicPort: 0',
        '    outputDir: null',
        '    instanceSize: s',
        '    region: nyc1',
        '  - name: docs',
        '    appType: static',
        '    internalPort: 0',
        '    outputDir: .',
        '    instanceSize: s',
        '    region: nyc1',
      ),
    );
    expect(result.services.map((s) => [s.publicPort, s.internalPort, s.outputDir])).toEqual([
      [0, 8080, null],
      [443, 0, '.'],
    ]);
  });

  it('follows aliases that expand to little', () => {
    const result = validOf(
      yaml(
        'name: shared',
        'services:',
        '  - name: api',
        '    instanceSize: s',
        '    region: nyc1',
        '    envVars: &common',
        '      - key: LOG_LEVEL',
        '        value: info',
        '  - name: web',
        '    instanceSize: s',
        '    region: nyc1',
        '    envVars: *common',
      ),
    );
    expect(result.services[1]?.envVars).toEqual([{ key: 'LOG_LEVEL', value: 'info', secret: false }]);
  });
});

describe('parseAppTemplate: invalid templates name the line and the field', () => {
  const cases: [string, string, string][] = [
    ['a YAML syntax error', yaml('name: shop', 'services:', '  - name: [api', '    region: nyc1'), 'line 4: YAML syntax error: '],
    [
      'a value of the wrong type',
      yaml('name: shop', 'services:', ...minimalService, '    instances: three'),
      'line 6: services[0].instances must be a whole number from 1 to 20 (got "three")',
    ],
    ['a missing required field', yaml('name: shop', 'services:', '  - name: api', '    instanceSize: s'), 'line 3: services[0].region is required'],
    ['missing services', yaml('name: shop'), 'line 1: services is required'],
    [
      'an unknown key',
      yaml('name: shop', 'services:', ...minimalService, '    instnces: 2'),
      'line 6: services[0].instnces is not a known field (expected one of: name, appType, sourceDir, buildStrategy, buildCommand, runCommand, outputDir, publicPort, internalPort, instanceSize, instances, region, autoDeploy, envVars)',
    ],
    [
      'an unknown top-level key',
      yaml('name: shop', 'regoin: nyc1', 'services:', ...minimalService),
      'line 2: regoin is not a known field (expected one of: name, services)',
    ],
    [
      'an out-of-range number',
      yaml('name: shop', 'services:', ...minimalService, '    instances: 21'),
      'line 6: services[0].instances must be a whole number from 1 to 20 (got 21)',
    ],
    [
      'a port out of range',
      yaml('name: shop', 'services:', ...minimalService, '    internalPort: 70000'),
      'line 6: services[0].internalPort must be a whole number from 1 to 65535 (0 or absent for a STATIC) (got 70000)',
    ],
    [
      'a STATIC service without outputDir',
      yaml('name: shop', 'services:', '  - name: site', '    appType: STATIC', '    instanceSize: s', '    region: nyc1'),
      'line 3: services[0].outputDir is required for a STATIC service: the folder, from sourceDir, the build writes the site to',
    ],
    [
      'a WEB service with an outputDir',
      yaml('name: shop', 'services:', ...minimalService, '    outputDir: dist'),
      'line 6: services[0].outputDir must be null or absent for a WEB service (only a STATIC service has one)',
    ],
    [
      'a WORKER with a publicPort',
      yaml(
        'name: shop',
        'services:',
        ...minimalService,
        '  - name: queue',
        '    appType: WORKER',
        '    publicPort: 443',
        '    instanceSize: s',
        '    region: nyc1',
      ),
      'line 8: services[1].publicPort must be 0 or absent for a WORKER service, which serves no public port',
    ],
    [
      'a WEB service with publicPort 0',
      yaml('name: shop', 'services:', ...minimalService, '    publicPort: 0'),
      'line 6: services[0].publicPort must be a whole number from 1 to 65535 for a WEB service (only a WORKER has none)',
    ],
    [
      'a STATIC service with an internalPort',
      yaml(
        'name: shop',
        'services:',
        '  - name: site',
        '    appType: STATIC',
        '    outputDir: dist',
        '    internalPort: 8080',
        '    instanceSize: s',
        '    region: nyc1',
      ),
      'line 6: services[0].internalPort must be 0 or absent for a STATIC service, which runs no process',
    ],
    [
      'services in different regions',
      yaml('name: shop', 'services:', ...minimalService, '  - name: web', '    instanceSize: s', '    region: fra1'),
      'line 8: services[1].region "fra1" differs from services[0].region "nyc1": every service of an app runs in the same region',
    ],
    [
      'two services with one name',
      yaml('name: shop', 'services:', ...minimalService, '  - name: api', '    instanceSize: s', '    region: nyc1'),
      'line 6: services[1].name "api" is already the name of services[0]',
    ],
    [
      'an env key set twice',
      yaml('name: shop', 'services:', ...minimalService, '    envVars:', '      - key: PORT', '        value: "1"', '      - key: PORT', '        value: "2"'),
      'line 9: services[0].envVars[1].key "PORT" is already set by envVars[0] of this service',
    ],
    [
      'an unquoted number as an env value',
      yaml('name: shop', 'services:', ...minimalService, '    envVars:', '      - key: PORT', '        value: 3000'),
      'line 8: services[0].envVars[0].value must be text, not a number: quote it, as in value: "3000"',
    ],
    [
      'an unquoted boolean as an env value',
      yaml('name: shop', 'services:', ...minimalService, '    envVars:', '      - key: DEBUG', '        value: true'),
      'line 8: services[0].envVars[0].value must be text, not a boolean: quote it, as in value: "true"',
    ],
    [
      'an env key in lower case',
      yaml('name: shop', 'services:', ...minimalService, '    envVars:', '      - key: port', '        value: "1"'),
      'line 7: services[0].envVars[0].key must be 1 to 128 characters of upper-case letters, digits and underscores, not starting with a digit (got "port")',
    ],
    [
      'a sourceDir escaping with ..',
      yaml('name: shop', 'services:', ...minimalService, '    sourceDir: api/../../secrets'),
      'line 6: services[0].sourceDir must be a relative path inside the repository: no "..", no leading "/", no backslash (got "api/../../secrets")',
    ],
    [
      'an absolute outputDir',
      yaml('name: shop', 'services:', '  - name: site', '    appType: STATIC', '    outputDir: /var/www', '    instanceSize: s', '    region: nyc1'),
      'line 5: services[0].outputDir must be null or a relative path inside the repository: no "..", no leading "/", no backslash (got "/var/www")',
    ],
    [
      'a boolean written as yes',
      yaml('name: shop', 'services:', ...minimalService, '    autoDeploy: yes'),
      'line 6: services[0].autoDeploy must be true or false (got "yes")',
    ],
    [
      'an unknown app type',
      yaml('name: shop', 'services:', ...minimalService, '    appType: cron'),
      'line 6: services[0].appType must be one of WEB, WORKER, STATIC (any letter case) (got "cron")',
    ],
    [
      'a bad app name',
      yaml('name: My Shop', 'services:', ...minimalService),
      'line 1: name must be 1 to 40 lowercase letters, digits and hyphens, starting with a letter (got "My Shop")',
    ],
    ['an empty service list', yaml('name: shop', 'services: []'), 'line 2: services must be a list of 1 to 10 services (got a list)'],
    [
      'a service that is not a mapping',
      yaml('name: shop', 'services:', '  - api'),
      'line 3: services[0] must be a mapping of service fields (name, appType, sourceDir, …) (got "api")',
    ],
    [
      'a duplicate key',
      yaml('name: shop', 'services:', ...minimalService, '    region: fra1'),
      'line 6: the key "region" appears twice in the same mapping; each field may be given once',
    ],
    [
      'two documents in one file',
      yaml('name: shop', 'services:', ...minimalService, '---', 'name: other'),
      'line 6: the template must be a single YAML document: remove the "---" that starts a second one',
    ],
    ['a document that is a list', yaml('- name: shop'), 'line 1: the template must be a mapping with name and services (got a list)'],
    ['an empty file', '', 'line 1: the template must be a mapping with name and services (the file is empty)'],
    [
      'an alias with no anchor',
      yaml('name: shop', 'services:', ...minimalService, '    envVars: *shared'),
      'line 6: the alias *shared refers to no anchor &shared defined before it',
    ],
  ];

  it.each(cases)('%s', (_title, text, expected) => {
    const error = errorOf(text);
    if (expected.endsWith(': ')) expect(error.startsWith(expected)).toBe(true);
    else expect(error).toBe(expected);
  });

  it('reports the first problem in file order when there are several', () => {
    const text = yaml('name: shop', 'services:', '  - name: api', '    region: NYC1', '    instances: 0', '    instanceSize: s');
    expect(errorOf(text)).toBe('line 4: services[0].region must be a region slug: lowercase letters, digits and hyphens, up to 32 characters (got "NYC1")');
  });

  it('refuses a file over 64 KB before parsing it', () => {
    const text = yaml('name: shop', 'services:', ...minimalService, `# ${'x'.repeat(MAX_TEMPLATE_BYTES)}`);
    expect(errorOf(text)).toBe(`the template is ${Buffer.byteLength(text)} bytes; it may be at most ${MAX_TEMPLATE_BYTES} bytes (64 KB)`);
  });

  it('refuses an alias bomb without expanding it', () => {
    const text = yaml(
      'name: shop',
      'a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]',
      'services:',
      ...minimalService,
    );
    expect(errorOf(text)).toBe('line 3: the aliases of the template expand to too much data (more than 100 expansions); write the values out instead');
  });

  it('refuses hostile nesting before building the document, and keeps working afterwards', () => {
    const deepFlow = yaml('name: shop', `services: ${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    const deepBlock = yaml('name: shop', 'services:', `  - ${'- '.repeat(10_000)}api`);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect(errorOf(deepFlow)).toBe('line 2: lists and mappings are nested more than 16 levels deep here');
      expect(errorOf(deepBlock)).toBe('line 3: lists and mappings are nested more than 16 levels deep here');
    }
    expect(validOf(yaml('name: shop', 'services:', ...minimalService)).name).toBe('shop');
  });

  it('keeps every invalid answer within the API schema', () => {
    const result = parseAppTemplate(PATH, yaml('name: shop'));
    expect(appTemplateResultSchema.parse(result)).toEqual(result);
  });
});

describe('findAppTemplate', () => {
  const valid = yaml('name: shop', 'services:', ...minimalService);
  const readerOf = (files: Record<string, string>) => {
    const asked: string[] = [];
    const readFile = async (path: string) => {
      asked.push(path);
      return files[path] ?? null;
    };
    return { asked, readFile };
  };

  it('answers found: false when neither file exists', async () => {
    const reader = readerOf({ 'app.yaml': valid, '.cloudpanel/other.yaml': valid });
    const result: AppTemplateResult = await findAppTemplate(reader.readFile);
    expect(result).toEqual({ found: false });
    expect(reader.asked).toEqual([...APP_TEMPLATE_PATHS]);
  });

  it('falls back to app.yml', async () => {
    const result = await findAppTemplate(readerOf({ '.cloudpanel/app.yml': valid }).readFile);
    expect(result).toMatchObject({ found: true, valid: true, path: '.cloudpanel/app.yml', name: 'shop' });
  });

  it('prefers app.yaml when both exist, even when app.yaml is the invalid one', async () => {
    const reader = readerOf({ '.cloudpanel/app.yaml': yaml('name: shop'), '.cloudpanel/app.yml': valid });
    const result = await findAppTemplate(reader.readFile);
    expect(result).toEqual({ found: true, valid: false, path: '.cloudpanel/app.yaml', error: 'line 1: services is required' });
    expect(reader.asked).toEqual(['.cloudpanel/app.yaml']);
  });

  it('lets a failure to read the repository through', async () => {
    const failure = new Error('host unreachable');
    await expect(
      findAppTemplate(async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
  });
});
