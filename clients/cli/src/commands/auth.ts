import { createClient, DEFAULT_BASE_URL } from '@cloudpanel/sdk';
import type { Command } from 'commander';
import { action, examples } from '../command.ts';
import { configFile, writeConfig } from '../config.ts';
import { VERSION } from '../context.ts';
import { UsageError } from '../errors.ts';
import { readSecretLine, type Io } from '../io.ts';
import { when } from '../output.ts';
import { signIn } from '../session.ts';

/** The platform's address as stored: nothing for the default, so the default can move with the tool. */
const storedUrl = (apiUrl: string) => (apiUrl === DEFAULT_BASE_URL ? undefined : apiUrl);

/** The visible start of a key (`cp_live_abcd…`), never the whole of it. */
export const keyPrefix = (key: string) => `${key.slice(0, 12)}…`;

export function registerAuth(program: Command, io: Io): void {
  const auth = program.command('auth').description('sign this tool in with a project API key');
  examples(auth, 'cloud auth login', 'cloud auth status');

  examples(
    auth
      .command('login')
      .description('check an API key (typed without echo, or piped on stdin) and store it in your config directory, readable by you only')
      .option('-e, --email <email>', 'sign in with your email and password instead, as a session: what shared PostgreSQL needs')
      .action(
        action<{ email?: string }>(io, async (ctx, _args, options) => {
          if (options.email) {
            const password = await readSecretLine(ctx.io, `Password for ${options.email}: `);
            if (!password) throw new UsageError('No password given');
            const session = await signIn(ctx.apiUrl, options.email, password);
            writeConfig(ctx.io, { ...ctx.config, session, apiUrl: storedUrl(ctx.apiUrl) });
            ctx.out.done(`Signed in to ${ctx.apiUrl} as ${session.email}${session.expiresAt ? ` until ${when(session.expiresAt)}` : ''}`, {
              apiUrl: ctx.apiUrl,
              email: session.email,
              expiresAt: session.expiresAt,
            });
            return;
          }
          const key = await readSecretLine(ctx.io, 'API key (create one in the panel under Project → API keys): ');
          if (!key) throw new UsageError('No API key given');
          // The key is checked before it is kept: it reaches exactly one project, which becomes the default.
          const client = createClient({ baseUrl: ctx.apiUrl, apiKey: key, userAgent: `cloud-cli/${VERSION}`, retries: 1 });
          const [project] = await client.get('/projects');
          writeConfig(ctx.io, { ...ctx.config, apiKey: key, apiUrl: storedUrl(ctx.apiUrl), project: project?.id ?? ctx.config.project });
          ctx.out.done(`Signed in to ${ctx.apiUrl}${project ? ` for project ${project.name} (${project.slug})` : ''}; the key is in ${configFile(ctx.io)}`, {
            apiUrl: ctx.apiUrl,
            project: project ?? null,
            configFile: configFile(ctx.io),
          });
        }),
      ),
    'cloud auth login',
    'cat key.txt | cloud auth login --api-url https://panel.example.com',
    'cloud auth login --email ada@example.com',
  );

  examples(
    auth
      .command('logout')
      .description('forget the stored API key and session (revoke the key in the panel to end it everywhere)')
      .action(
        action(io, async (ctx) => {
          writeConfig(ctx.io, { ...ctx.config, apiKey: undefined, session: undefined });
          ctx.out.done('Signed out: the stored key and session are forgotten', { signedOut: true });
        }),
      ),
    'cloud auth logout',
  );

  examples(
    auth
      .command('status')
      .description('show which platform, key, session and project commands use, and check the key')
      .action(
        action(io, async (ctx) => {
          const session = ctx.config.session;
          if (!ctx.apiKey && !session) throw new UsageError('Not signed in: run `cloud auth login` or set CLOUD_API_KEY');
          const [project] = ctx.apiKey ? await ctx.client.get('/projects') : [];
          const status = {
            apiUrl: ctx.apiUrl,
            keySource: ctx.keySource,
            key: ctx.apiKey ? keyPrefix(ctx.apiKey) : null,
            project: project ? { id: project.id, name: project.name, slug: project.slug, role: project.role } : null,
            session: session ? { email: session.email, expiresAt: session.expiresAt } : null,
            configFile: configFile(ctx.io),
          };
          ctx.out.item(status, [
            { header: 'API', value: (s) => s.apiUrl },
            { header: 'Key', value: (s) => (s.key ? `${s.key} (from ${s.keySource === 'config' ? s.configFile : s.keySource})` : null) },
            { header: 'Project', value: (s) => (s.project ? `${s.project.name} (${s.project.slug}, ${s.project.id})` : null) },
            { header: 'Role', value: (s) => s.project?.role },
            { header: 'Session', value: (s) => (s.session ? `${s.session.email}${s.session.expiresAt ? ` until ${when(s.session.expiresAt)}` : ''}` : null) },
          ]);
        }),
      ),
    'cloud auth status',
  );
}
