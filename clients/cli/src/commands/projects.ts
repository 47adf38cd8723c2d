import type { Command } from 'commander';
import { action, examples } from '../command.ts';
import { writeConfig } from '../config.ts';
import type { Io } from '../io.ts';
import { money, when } from '../output.ts';

export function registerProjects(program: Command, io: Io): void {
  const projects = program.command('projects').description('the projects your key reaches, and the default one');
  examples(projects, 'cloud projects list', 'cloud projects use my-shop');

  examples(
    projects
      .command('list')
      .description('list projects (an API key sees its own)')
      .action(
        action(io, async (ctx) => {
          const rows = await ctx.client.get('/projects');
          ctx.out.list(rows, [
            { header: 'id', value: (p) => p.id },
            { header: 'slug', value: (p) => p.slug },
            { header: 'name', value: (p) => p.name },
            { header: 'role', value: (p) => p.role },
            { header: 'servers', value: (p) => p._count.servers },
            { header: 'blocked', value: (p) => (p.blockedAt ? `since ${when(p.blockedAt)}` : null) },
          ]);
        }),
      ),
    'cloud projects list --json',
  );

  examples(
    projects
      .command('get')
      .description('show a project and what it holds')
      .argument('[project]', 'id or slug (default: the chosen project)')
      .action(
        action(io, async (ctx, [project]) => {
          const found = await ctx.client.get('/projects/{projectId}', { params: { path: { projectId: project ?? ctx.project() } } });
          ctx.out.item(found, [
            { header: 'ID', value: (p) => p.id },
            { header: 'Name', value: (p) => p.name },
            { header: 'Slug', value: (p) => p.slug },
            { header: 'Your role', value: (p) => p.role },
            { header: 'Billing email', value: (p) => p.billingEmail },
            { header: 'Blocked', value: (p) => (p.blockedAt ? `${when(p.blockedAt)}: ${p.blockedReason ?? ''}` : null) },
            {
              header: 'Holds',
              value: (p) =>
                Object.entries(p._count)
                  .map(([kind, count]) => `${kind} ${count}`)
                  .join(', '),
            },
            { header: 'Created', value: (p) => when(p.createdAt) },
          ]);
        }),
      ),
    'cloud projects get',
    'cloud projects get my-shop --json',
  );

  examples(
    projects
      .command('use')
      .description('make a project the default for later commands (stored in your config)')
      .argument('<project>', 'id or slug')
      .action(
        action(io, async (ctx, [project]) => {
          const found = await ctx.client.get('/projects/{projectId}', { params: { path: { projectId: project! } } });
          writeConfig(ctx.io, { ...ctx.config, project: found.id });
          ctx.out.done(`Commands now act on ${found.name} (${found.slug})`, found);
        }),
      ),
    'cloud projects use my-shop',
  );

  examples(
    projects
      .command('rename')
      .description('rename the chosen project')
      .argument('<name>', 'the new name')
      .action(
        action(io, async (ctx, [name]) => {
          const renamed = await ctx.client.patch('/projects/{projectId}', { params: { path: { projectId: ctx.project() } }, body: { name: name! } });
          ctx.out.done(`Renamed to ${renamed.name} (${renamed.slug})`, renamed);
        }),
      ),
    'cloud projects rename "My shop"',
  );

  examples(
    projects
      .command('charges')
      .description('the charge history: five closed months and the month still accruing')
      .action(
        action(io, async (ctx) => {
          const { resourceHistory } = await ctx.client.get('/projects/{projectId}/stats', { params: { path: { projectId: ctx.project() } } });
          const total = (m: (typeof resourceHistory)[number]) =>
            m.servers + m.domains + m.apps + m.objectStorage + m.containerRegistry + m.databases + m.redis + m.email + m.other;
          ctx.out.list(resourceHistory, [
            { header: 'month', value: (m) => `${m.month}${m.inProgress ? ' (so far)' : ''}` },
            { header: 'servers', value: (m) => money(m.servers) },
            { header: 'redis', value: (m) => money(m.redis) },
            { header: 'storage', value: (m) => money(m.objectStorage + m.containerRegistry) },
            { header: 'databases', value: (m) => money(m.databases) },
            { header: 'apps', value: (m) => money(m.apps) },
            { header: 'other', value: (m) => money(m.domains + m.email + m.other) },
            { header: 'total', value: (m) => money(total(m)) },
          ]);
        }),
      ),
    'cloud projects charges',
  );
}
