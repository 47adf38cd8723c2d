import { handleHostForm, submitPushForm } from '@/server/providers/gitHosts/simulatorPages';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The repository page's form: pushes a commit and delivers the push event to the repository's webhooks. */
export async function POST(request: Request, { params }: { params: Promise<{ host: string }> }): Promise<Response> {
  return handleHostForm(request, (await params).host, submitPushForm);
}
