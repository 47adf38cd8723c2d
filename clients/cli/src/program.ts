import { Command } from 'commander';
import { registerApps } from './commands/apps.ts';
import { registerAuth } from './commands/auth.ts';
import { registerCompletion } from './commands/completion.ts';
import { registerDatabases } from './commands/databases.ts';
import { registerDomains } from './commands/domains.ts';
import { registerHosting } from './commands/hosting.ts';
import { registerProjects } from './commands/projects.ts';
import { registerRedis } from './commands/redis.ts';
import { registerRegistry } from './commands/registry.ts';
import { registerSecrets } from './commands/secrets.ts';
import { registerServers } from './commands/servers.ts';
import { registerSshKeys } from './commands/sshKeys.ts';
import { registerStorage } from './commands/storage.ts';
import { registerVariables } from './commands/variables.ts';
import { registerWebhooks } from './commands/webhooks.ts';
import { examples } from './command.ts';
import { VERSION } from './context.ts';
import type { Io } from './io.ts';

/** Each resource area adds its command group; the order is the order of `cloud --help`. */
const AREAS = [
  registerAuth,
  registerProjects,
  registerSshKeys,
  registerServers,
  registerDomains,
  registerRedis,
  registerSecrets,
  registerVariables,
  registerWebhooks,
  registerStorage,
  registerRegistry,
  registerHosting,
  registerDatabases,
  registerApps,
  registerCompletion,
];

export function buildProgram(io: Io): Command {
  const program = new Command('cloud')
    .description('Run your Cloud Panel projects from the shell: servers, Redis, secrets, storage, registries, sites, databases and apps.')
    .version(VERSION, '-v, --version')
    .option('--api-url <url>', 'the platform to talk to (default: CLOUD_API_URL, the config, then http://localhost:3000)')
    .option('-p, --project <id>', 'the project to act on, by id or slug (default: CLOUD_PROJECT, then `cloud projects use`)')
    .option('--json', 'print the API’s data as JSON, for scripts (errors go to stderr as JSON too)')
    .showHelpAfterError('(add --help for usage)')
    .showSuggestionAfterError()
    .configureOutput({ writeOut: (text) => void io.stdout.write(text), writeErr: (text) => void io.stderr.write(text) })
    .exitOverride();
  examples(program, 'cloud auth login', 'cloud servers create web-1 --size s-1vcpu-1gb --region fra1 --wait', 'cloud secrets list --json');
  for (const register of AREAS) register(program, io);
  return program;
}
