import { handleHostForm, submitUninstallForm } from '@/server/providers/gitHosts/simulatorPages';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The overview page's form: uninstalls the app on the host's side and sends the `installation` event. */
export async function POST(request: Request, { params }: { params: Promise<{ host: string }> }): Promise<Response> {
  return handleHostForm(request, (await params).host, submitUninstallForm);
}
