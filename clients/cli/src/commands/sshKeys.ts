import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { action, examples } from '../command.ts';
import { UsageError } from '../errors.ts';
import { readStdin, type Io } from '../io.ts';
import { when } from '../output.ts';

export function registerSshKeys(program: Command, io: Io): void {
  const keys = program.command('ssh-keys').description('SSH public keys written to servers at first boot');
  examples(keys, 'cloud ssh-keys add laptop --public-key-file ~/.ssh/id_ed25519.pub');

  examples(
    keys
      .command('list')
      .description('list the project’s SSH keys')
      .action(
        action(io, async (ctx) => {
          const rows = await ctx.client.get('/projects/{projectId}/ssh-keys', { params: { path: { projectId: ctx.project() } } });
          ctx.out.list(rows, [
            { header: 'id', value: (k) => k.id },
            { header: 'name', value: (k) => k.name },
            { header: 'type', value: (k) => `${k.keyType} ${k.bits}` },
            { header: 'fingerprint', value: (k) => k.fingerprint },
            { header: 'added', value: (k) => when(k.createdAt) },
          ]);
        }),
      ),
    'cloud ssh-keys list',
  );

  examples(
    keys
      .command('add')
      .description('add a public key from a file, or from stdin with --public-key-file -')
      .argument('<name>', 'a name to know it by')
      .requiredOption('-f, --public-key-file <path>', 'the .pub file; - reads stdin')
      .action(
        action<{ publicKeyFile: string }>(io, async (ctx, [name], options) => {
          const publicKey = (options.publicKeyFile === '-' ? await readStdin(ctx.io) : readFileSync(options.publicKeyFile, 'utf8')).trim();
          if (!publicKey) throw new UsageError('The public key is empty');
          const key = await ctx.client.post('/projects/{projectId}/ssh-keys', {
            params: { path: { projectId: ctx.project() } },
            body: { name: name!, publicKey },
          });
          ctx.out.done(`Added ${key.name} (${key.id}), ${key.fingerprint}`, key);
        }),
      ),
    'cloud ssh-keys add laptop -f ~/.ssh/id_ed25519.pub',
    'ssh-add -L | head -1 | cloud ssh-keys add agent -f -',
  );

  examples(
    keys
      .command('generate')
      .description('generate an ed25519 key pair; the private half is shown this once and never stored')
      .argument('<name>', 'a name to know it by')
      .option('-o, --output <path>', 'write the private key to this file (mode 0600) instead of printing it')
      .action(
        action<{ output?: string }>(io, async (ctx, [name], options) => {
          const key = await ctx.client.post('/projects/{projectId}/ssh-keys/generate', {
            params: { path: { projectId: ctx.project() } },
            body: { name: name! },
          });
          if (options.output) {
            writeFileSync(options.output, key.privateKey.endsWith('\n') ? key.privateKey : `${key.privateKey}\n`, { mode: 0o600, flag: 'wx' });
            ctx.out.done(`Generated ${key.name} (${key.id}); the private key is in ${options.output}`, { ...key, privateKey: undefined });
            return;
          }
          if (ctx.out.json) return ctx.out.done('', key);
          ctx.io.stderr.write('Save this private key now: it is not shown again.\n');
          ctx.io.stdout.write(key.privateKey.endsWith('\n') ? key.privateKey : `${key.privateKey}\n`);
        }),
      ),
    'cloud ssh-keys generate deploy -o ~/.ssh/deploy_ed25519',
  );

  examples(
    keys
      .command('delete')
      .description('delete an SSH key (servers that have it keep it)')
      .argument('<id>', 'the key’s id')
      .action(
        action(io, async (ctx, [id]) => {
          await ctx.client.delete('/projects/{projectId}/ssh-keys/{sshKeyId}', { params: { path: { projectId: ctx.project(), sshKeyId: id! } } });
          ctx.out.done(`Deleted SSH key ${id}`, { id, deleted: true });
        }),
      ),
    'cloud ssh-keys delete key_01h…',
  );
}
