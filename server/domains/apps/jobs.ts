import { z } from 'zod';
import type { JobDefinition } from '../../platform/jobs/runner';
import { recoverBuilds, runBuilds } from './builds';
import { BUILD_APP } from './queue';

export { BUILD_APP };
export const RECOVER_BUILDS = 'apps.recover-builds';

const buildAppData = z.object({ appId: z.string().min(1) });

export const appsJobs: JobDefinition[] = [
  // Sent for every queued deployment; the job builds whatever the app has waiting, oldest first.
  { name: BUILD_APP, handler: async (data) => void (await runBuilds(buildAppData.parse(data).appId)) },
  // Every minute: a lost job or a crashed build holds an app's queue for a minute at most, not forever.
  { name: RECOVER_BUILDS, cron: '* * * * *', handler: async () => void (await recoverBuilds()) },
];
