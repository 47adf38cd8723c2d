import { notFound, redirect } from 'next/navigation';
import { Alert } from '@/components/ui/Alert';
import { Button } from '@/components/ui/Button';
import { PageHeader } from '@/components/ui/PageHeader';
import { checkAuthorization, describeScope, hostLabel, simulatedHostOf } from '@/server/providers/gitHosts/simulatorPages';

export const dynamic = 'force-dynamic';

/** A simulated host's OAuth consent page (where `authorizeUrl` sends the browser). */
export default async function SimulatedAuthorizePage({
  params,
  searchParams,
}: {
  params: Promise<{ host: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const host = simulatedHostOf((await params).host);
  if (!host) notFound();
  const check = checkAuthorization(host, await searchParams);
  if (check.kind === 'redirect') redirect(check.location);
  if (check.kind === 'error-page') {
    return (
      <Alert tone="danger" title="This authorization request is not valid">
        {check.message}
      </Alert>
    );
  }
  const { request } = check;
  const abilities = host === 'git-host-1' ? ['See which of the app’s installations you can reach'] : request.scopes.map(describeScope);
  return (
    <>
      <PageHeader title="Authorize Cloud Panel" description={`Cloud Panel asks to use your ${hostLabel(host).toLowerCase()} account demo-user.`} />
      <form className="card" method="post" action={`/dev/git-hosts/${host}/authorizations`}>
        <div className="card-body stack">
          <p>It will be able to:</p>
          <ul>
            {abilities.map((ability) => (
              <li key={ability}>{ability}</li>
            ))}
          </ul>
          <p className="secondary">
            You will return to <span className="mono">{request.redirectUri}</span>.
          </p>
          <input type="hidden" name="client_id" value={request.clientId} />
          <input type="hidden" name="redirect_uri" value={request.redirectUri} />
          <input type="hidden" name="state" value={request.state} />
          {host === 'git-host-1' ? null : <input type="hidden" name="response_type" value="code" />}
          {request.scopes.length > 0 ? <input type="hidden" name="scope" value={request.scopes.join(' ')} /> : null}
        </div>
        <footer className="card-footer">
          <Button type="submit" name="decision" value="deny" variant="ghost">
            Cancel
          </Button>
          <Button type="submit" name="decision" value="allow" variant="primary">
            Authorize
          </Button>
        </footer>
      </form>
    </>
  );
}
