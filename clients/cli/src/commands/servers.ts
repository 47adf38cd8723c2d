import type { Schema } from '@cloudpanel/sdk';
import type { Command } from 'commander';
import { CHARGE_FIELDS, chargeNote } from '../charges.ts';
import { action, collect, confirm, examples, timeoutMs } from '../command.ts';
import type { Context } from '../context.ts';
import type { Io } from '../io.ts';
import { money, when, type Column } from '../output.ts';
import { startProgress } from '../progress.ts';

type Server = Schema<'Server'>;
type PowerAction = 'power_on' | 'power_off' | 'reboot';

const COLUMNS: Column<Server>[] = [
  { header: 'id', value: (s) => s.id },
  { header: 'name', value: (s) => s.name },
  { header: 'status', value: (s) => s.status },
  { header: 'size', value: (s) => s.instanceType },
  { header: 'region', value: (s) => s.region },
  { header: 'ip', value: (s) => s.ipAddress },
];

const FIELDS: Column<Server>[] = [
  ...COLUMNS.map((c) => ({
    ...c,
    header: ({ id: 'ID', ip: 'IP address' } as Record<string, string>)[c.header] ?? c.header[0]!.toUpperCase() + c.header.slice(1),
  })),
  { header: 'Hostname', value: (s) => s.hostname },
  { header: 'SSH user', value: (s) => s.sshUser },
  { header: 'Created', value: (s) => when(s.createdAt) },
];

const serverPath = (ctx: Context, serverId: string) => ({ params: { path: { projectId: ctx.project(), serverId } } });

/** Polls the server until it has the status, showing each status it passes through. */
async function waitForStatus(ctx: Context, serverId: string, status: Server['status'], timeout: string | undefined): Promise<Server> {
  const progress = startProgress(ctx.io, `Waiting for the server to be ${status}…`);
  try {
    const server = await ctx.client.waitFor(() => ctx.client.get('/projects/{projectId}/servers/{serverId}', serverPath(ctx, serverId)), {
      until: (s) => s.status === status,
      onPoll: (s) => progress.update(`Server ${s.name} is ${s.status}…`),
      timeoutMs: timeoutMs(timeout),
      intervalMs: 1000,
    });
    progress.stop(`Server ${server.name} is ${status}`);
    return server;
  } catch (err) {
    progress.stop();
    throw err;
  }
}

export function registerServers(program: Command, io: Io): void {
  const servers = program.command('servers').description('dedicated servers: buy, power, reach over SSH, delete');
  examples(servers, 'cloud servers create web-1 --size s-1vcpu-1gb --region fra1 --ssh-key <key id> --wait');

  examples(
    servers
      .command('list')
      .description('list the project’s servers')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.client.get('/projects/{projectId}/servers', { params: { path: { projectId: ctx.project() } } }), COLUMNS);
        }),
      ),
    'cloud servers list',
  );

  examples(
    servers
      .command('get')
      .description('show a server')
      .argument('<id>', 'the server’s id')
      .action(
        action(io, async (ctx, [id]) => {
          ctx.out.item(await ctx.client.get('/projects/{projectId}/servers/{serverId}', serverPath(ctx, id!)), FIELDS);
        }),
      ),
    'cloud servers get srv_01h…',
  );

  examples(
    servers
      .command('sizes')
      .description('sizes on sale, with their prices and regions')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.client.get('/catalog/servers/sizes'), [
            { header: 'slug', value: (s) => s.slug },
            { header: 'family', value: (s) => s.description },
            { header: 'vcpus', value: (s) => s.vcpus },
            { header: 'memory', value: (s) => `${s.memoryMb / 1024} GB` },
            { header: 'disk', value: (s) => `${s.diskGb} GB` },
            { header: 'monthly', value: (s) => money(s.priceMonthly, s.currency) },
            { header: 'regions', value: (s) => s.regions.join(',') },
            { header: 'available', value: (s) => s.available },
          ]);
        }),
      ),
    'cloud servers sizes',
  );

  examples(
    servers
      .command('regions')
      .description('regions and whether new servers can be made there')
      .action(
        action(io, async (ctx) => {
          ctx.out.list(await ctx.client.get('/catalog/servers/regions'), [
            { header: 'slug', value: (r) => r.slug },
            { header: 'name', value: (r) => r.name },
            { header: 'country', value: (r) => r.country },
            { header: 'available', value: (r) => r.available },
          ]);
        }),
      ),
    'cloud servers regions',
  );

  examples(
    servers
      .command('preview')
      .description('what buying a server of a size would charge today and monthly')
      .requiredOption('-s, --size <slug>', 'the size (see `cloud servers sizes`)')
      .action(
        action<{ size: string }>(io, async (ctx, _args, options) => {
          const preview = await ctx.client.get('/projects/{projectId}/servers/preview', {
            params: { path: { projectId: ctx.project() }, query: { provider: 'infra', slug: options.size } },
          });
          ctx.out.item(preview, CHARGE_FIELDS);
        }),
      ),
    'cloud servers preview --size s-1vcpu-1gb',
  );

  examples(
    servers
      .command('create')
      .description('buy a server: the saved card is charged the prorated month now')
      .argument('<name>', 'hostname-safe, unique among the project’s servers')
      .requiredOption('-s, --size <slug>', 'the size (see `cloud servers sizes`)')
      .requiredOption('-r, --region <slug>', 'a region where the size is sold')
      .option('-k, --ssh-key <id>', 'an SSH key to write at first boot (repeatable); only at creation', collect, [])
      .option('-w, --wait', 'wait until the server is RUNNING')
      .option('--timeout <seconds>', 'how long --wait waits', '600')
      .action(
        action<{ size: string; region: string; sshKey: string[]; wait?: boolean; timeout: string }>(io, async (ctx, [name], options) => {
          const projectId = ctx.project();
          const preview = await ctx.client.get('/projects/{projectId}/servers/preview', {
            params: { path: { projectId }, query: { provider: 'infra', slug: options.size } },
          });
          await ctx.client.post('/projects/{projectId}/servers', {
            params: { path: { projectId } },
            body: { name: name!, slug: options.size, region: options.region, provider: 'infra', sshKeyIds: options.sshKey },
          });
          // Creation answers { deployed: true }; names are unique among live servers, so the name finds it.
          const servers = await ctx.client.get('/projects/{projectId}/servers', { params: { path: { projectId } } });
          let server = servers.find((s) => s.name === name);
          if (!server) throw new Error(`Server ${name} was bought but is not listed; see \`cloud servers list\``);
          ctx.out.note(chargeNote(preview));
          if (options.wait) server = await waitForStatus(ctx, server.id, 'RUNNING', options.timeout);
          ctx.out.item(server, FIELDS);
        }),
      ),
    'cloud servers create web-1 --size s-1vcpu-1gb --region fra1 --wait',
    'cloud servers create db-1 -s s-2vcpu-4gb -r ams3 -k key_01h… -k key_01j… --json',
  );

  const power = (command: string, powerAction: PowerAction, settled: Server['status'], description: string) =>
    examples(
      servers
        .command(command)
        .description(description)
        .argument('<id>', 'the server’s id')
        .option('-w, --wait', `wait until the server is ${settled}`)
        .option('--timeout <seconds>', 'how long --wait waits', '300')
        .action(
          action<{ wait?: boolean; timeout: string }>(io, async (ctx, [id], options) => {
            let server = await ctx.client.post('/projects/{projectId}/servers/{serverId}/actions', { ...serverPath(ctx, id!), body: { action: powerAction } });
            if (options.wait) server = await waitForStatus(ctx, id!, settled, options.timeout);
            ctx.out.item(server, FIELDS);
          }),
        ),
      `cloud servers ${command} srv_01h…${powerAction === 'reboot' ? '' : ' --wait'}`,
    );
  power('power-on', 'power_on', 'RUNNING', 'power a server on');
  power('power-off', 'power_off', 'OFF', 'power a server off (hard); billing goes on while it is off');
  power('reboot', 'reboot', 'RUNNING', 'reboot a server');

  examples(
    servers
      .command('rename')
      .description('rename a server')
      .argument('<id>', 'the server’s id')
      .argument('<name>', 'the new hostname-safe name')
      .action(
        action(io, async (ctx, [id, name]) => {
          const server = await ctx.client.patch('/projects/{projectId}/servers/{serverId}', { ...serverPath(ctx, id!), body: { name: name! } });
          ctx.out.done(`Renamed to ${server.name}`, server);
        }),
      ),
    'cloud servers rename srv_01h… web-2',
  );

  examples(
    servers
      .command('ssh')
      .description('print the ssh command that reaches a server (run it, or eval it)')
      .argument('<id>', 'the server’s id')
      .option('-i, --identity <file>', 'the private key file to pass to ssh')
      .action(
        action<{ identity?: string }>(io, async (ctx, [id], options) => {
          const server = await ctx.client.get('/projects/{projectId}/servers/{serverId}', serverPath(ctx, id!));
          if (!server.ipAddress) throw new Error(`Server ${server.name} has no address yet (it is ${server.status}); try again once it is RUNNING`);
          const command = ['ssh', ...(options.identity ? ['-i', shellQuote(options.identity)] : []), `${server.sshUser}@${server.ipAddress}`].join(' ');
          ctx.out.done(command, { command, user: server.sshUser, host: server.ipAddress });
        }),
      ),
    'cloud servers ssh srv_01h…',
    'eval "$(cloud servers ssh srv_01h… -i ~/.ssh/deploy_ed25519)"',
  );

  examples(
    servers
      .command('delete')
      .description('delete a server and stop its billing; its disk is gone for good')
      .argument('<id>', 'the server’s id')
      .option('-y, --yes', 'do not ask')
      .action(
        action<{ yes?: boolean }>(io, async (ctx, [id], options) => {
          const server = await ctx.client.get('/projects/{projectId}/servers/{serverId}', serverPath(ctx, id!));
          await confirm(ctx, `Delete server ${server.name} (${server.id}) and everything on its disk?`, options.yes);
          await ctx.client.delete('/projects/{projectId}/servers/{serverId}', serverPath(ctx, id!));
          ctx.out.done(`Deleted server ${server.name}`, { id: server.id, deleted: true });
        }),
      ),
    'cloud servers delete srv_01h… --yes',
  );
}

/** A path as one shell word. */
function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./~@:-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
