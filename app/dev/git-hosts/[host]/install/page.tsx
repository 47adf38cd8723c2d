import { notFound } from 'next/navigation';
import { Alert } from '@/components/ui/Alert';
import { Badge } from '@/components/ui/Badge';
import { Button } from '@/components/ui/Button';
import { Card } from '@/components/ui/Card';
import { PageHeader } from '@/components/ui/PageHeader';
import { installPage, simulatedHostOf } from '@/server/providers/gitHosts/simulatorPages';

export const dynamic = 'force-dynamic';

/** Host 1's page for installing the platform's app on an account (where `installUrl` sends the browser). */
export default async function SimulatedInstallPage({
  params,
  searchParams,
}: {
  params: Promise<{ host: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  if (simulatedHostOf((await params).host) !== 'git-host-1') notFound();
  const page = await installPage(await searchParams);
  if (!page.ok) {
    return (
      <Alert tone="danger" title="This installation cannot start">
        {page.message}
      </Alert>
    );
  }
  return (
    <>
      <PageHeader
        title="Install Cloud Panel"
        description="Choose the account to install the app on. It will read every repository and container image of that account."
      />
      <Card flush aria-label="Accounts">
        <div className="table-wrap">
          <table className="table" aria-label="Accounts you can install on">
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Type</th>
                <th scope="col">App</th>
                <th scope="col" className="cell-actions" />
              </tr>
            </thead>
            <tbody>
              {page.accounts.map(({ account, installation }) => (
                <tr key={account.path}>
                  <td>
                    <strong>{account.path}</strong> <span className="secondary">{account.displayName}</span>
                  </td>
                  <td>{account.type}</td>
                  <td>
                    {installation ? (
                      <Badge tone={installation.suspended ? 'warning' : 'success'}>
                        {installation.suspended ? 'Suspended' : 'Installed'} #{installation.installationId}
                      </Badge>
                    ) : (
                      <Badge>Not installed</Badge>
                    )}
                  </td>
                  <td className="cell-actions">
                    <form method="post" action="/dev/git-hosts/git-host-1/installations">
                      <input type="hidden" name="account" value={account.path} />
                      <input type="hidden" name="state" value={page.state} />
                      <Button type="submit" variant={installation ? 'secondary' : 'primary'} size="sm">
                        {installation ? 'Configure' : 'Install'}
                      </Button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Card>
    </>
  );
}
