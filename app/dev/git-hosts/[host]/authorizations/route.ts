import { handleHostForm, submitAuthorizationForm } from '@/server/providers/gitHosts/simulatorPages';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The consent page's form: back to the platform's callback with a code, or with `error=access_denied`. */
export async function POST(request: Request, { params }: { params: Promise<{ host: string }> }): Promise<Response> {
  return handleHostForm(request, (await params).host, submitAuthorizationForm);
}
