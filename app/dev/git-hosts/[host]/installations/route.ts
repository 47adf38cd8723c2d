import { AppError } from '@/server/platform/errors';
import { handleHostForm, submitInstallForm } from '@/server/providers/gitHosts/simulatorPages';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The install page's form: installs the app on the chosen account and returns to the platform's setup URL. */
export async function POST(request: Request, { params }: { params: Promise<{ host: string }> }): Promise<Response> {
  return handleHostForm(request, (await params).host, (host, form) => {
    if (host !== 'git-host-1') throw new AppError('NOT_FOUND', 'Only git host 1 has app installations');
    return submitInstallForm(form);
  });
}
