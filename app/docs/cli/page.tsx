import type { Metadata } from 'next';
import { DocsCode as Code, DocsPage, DocsSection as Section } from '@/components/docs/DocsPage';
import { Alert } from '@/components/ui/Alert';

export const metadata: Metadata = {
  title: 'Command line and SDK',
  description: 'Use the platform from the shell with the cloud command, and from TypeScript with the typed SDK.',
};

export const dynamic = 'force-static';

const EXIT_CODES: Array<[number, string]> = [
  [0, 'Done.'],
  [1, 'Any other failure: a 500, an answer the tool did not understand.'],
  [2, 'The command line: an unknown command or option, a missing argument, no project chosen, a destructive command without --yes in a script.'],
  [3, 'Not allowed (401, 403): no key, a revoked one, a missing scope or role.'],
  [4, 'Not found (404).'],
  [5, 'Refused as sent (400, 409, 413, 415, 422): the message and the failing fields say why.'],
  [6, 'Payment (402): a card is needed or was declined, or the project is blocked.'],
  [7, 'Rate limited (429), after waiting out the retries.'],
  [8, 'Unavailable: no answer, or 502, 503, 504 after the retries.'],
  [9, '--wait ended without the state it waited for: it failed or timed out.'],
];

export default function CliDocsPage() {
  return (
    <DocsPage
      eyebrow="API"
      title="Command line and SDK"
      description="Everything the panel does is in the REST API, and the same API is in the cloud command and the typed TypeScript SDK. Both authenticate with a project API key, retry safely and wait out rate limits for you."
    >
      <Section title="Sign in from the shell">
        <p>
          Create an API key under <strong>Project → API keys</strong> with the scopes you need, then paste it into <code>cloud auth login</code>. It is typed
          without echo (or read from a pipe), checked against the platform, and kept in your config directory (<code>~/.config/cloud/config.json</code>)
          readable by you only. Its project becomes the default.
        </p>
        <Code>{'npx cloud auth login\nnpx cloud auth status'}</Code>
        <p>
          In CI, set <code>CLOUD_API_KEY</code> (and <code>CLOUD_API_URL</code> for another platform) instead. <code>--project</code> or{' '}
          <code>CLOUD_PROJECT</code> chooses the project; <code>cloud projects use</code> changes the default.
        </p>
      </Section>

      <Section title="Buy a server and reach it">
        <Code>
          {[
            'npx cloud servers sizes',
            'npx cloud ssh-keys add laptop --public-key-file ~/.ssh/id_ed25519.pub',
            'npx cloud servers create web-1 --size s-1vcpu-2gb --region fra1 --ssh-key <key id> --wait',
            'npx cloud servers ssh <server id>',
          ].join('\n')}
        </Code>
        <p>
          <code>--wait</code> follows the server until it is RUNNING. Every area of the panel has its commands: <code>domains</code>, <code>redis</code>,{' '}
          <code>secrets</code>, <code>variables</code>, <code>webhooks</code>, <code>storage</code>, <code>registry</code>, <code>hosting</code>,{' '}
          <code>databases</code> and <code>apps</code>. <code>cloud &lt;area&gt; --help</code> lists them, each with an example.
        </p>
      </Section>

      <Section title="Secrets stay out of your shell history">
        <p>Values are read from stdin, never from the command line, and never printed back:</p>
        <Code>{'printf %s "$DATABASE_PASSWORD" | npx cloud secrets set DATABASE_PASSWORD --environment production'}</Code>
        <p>
          What the platform shows only once (a generated private key, a storage credential&apos;s secret, a webhook&apos;s signing secret) is printed that once.
          Shared PostgreSQL is managed with a signed-in session rather than a key: <code>cloud auth login --email you@example.com</code>.
        </p>
      </Section>

      <Section title="Scripts">
        <p>
          <code>--json</code> prints the API&apos;s data as it is; notes and progress go to stderr. Failures print <code>Error: CODE: message</code> with the
          request id (JSON on stderr with <code>--json</code>), and the exit code says what kind of failure it was:
        </p>
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th>Exit code</th>
                <th>Meaning</th>
              </tr>
            </thead>
            <tbody>
              {EXIT_CODES.map(([code, meaning]) => (
                <tr key={code}>
                  <td>
                    <code>{code}</code>
                  </td>
                  <td>{meaning}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p>
          Destructive commands ask first at a terminal and need <code>--yes</code> in a script. Shell completion:{' '}
          <code>eval &quot;$(npx cloud completion bash)&quot;</code> or <code>zsh</code>.
        </p>
      </Section>

      <Section title="From TypeScript">
        <p>
          <code>@cloudpanel/sdk</code> is generated from the API&apos;s OpenAPI document (<code>/v1/openapi.json</code>): every path, parameter, body and answer
          is typed.
        </p>
        <Code>
          {[
            "import { ApiError, createClient } from '@cloudpanel/sdk';",
            '',
            "const cloud = createClient({ apiKey: process.env.CLOUD_API_KEY, baseUrl: 'https://panel.example.com' });",
            "const servers = await cloud.get('/projects/{projectId}/servers', { params: { path: { projectId: 'my-shop' } } });",
            'const running = await cloud.waitFor(',
            "  () => cloud.get('/projects/{projectId}/servers/{serverId}', { params: { path: { projectId: 'my-shop', serverId: servers[0]!.id } } }),",
            "  { until: (s) => s.status === 'RUNNING', timeoutMs: 300_000 },",
            ');',
          ].join('\n')}
        </Code>
        <p>
          A call resolves to the answer&apos;s <code>data</code> and fails with one <code>ApiError</code> (<code>status</code>, <code>code</code>,{' '}
          <code>message</code>, <code>fields</code>, <code>requestId</code>).
        </p>
      </Section>

      <Alert tone="info" title="Safe to retry">
        Both send an <code>Idempotency-Key</code> with every write and reuse it when they retry, so a write whose answer was lost is done once. They retry 429,
        502, 503 and 504 with back-off, never sooner than the platform&apos;s <code>Retry-After</code>.
      </Alert>
    </DocsPage>
  );
}
