import { getConfig } from '../../platform/config';
import { BuildSimulator } from './simulator';
import type { BuildProvider } from './types';

export type { BuildOutcome, BuildProvider, BuildReporter, BuildRequest, SourceReader } from './types';

/** Shared through globalThis: the panel's Next bundle and the REST bridge load this module separately. */
const holder = globalThis as unknown as { __buildProvider?: BuildProvider };

/** The build provider, made once per process; the simulator waits BUILD_SIM_STEP_MS between steps. */
export function getBuildProvider(): BuildProvider {
  holder.__buildProvider ??= new BuildSimulator({ stepMs: getConfig().BUILD_SIM_STEP_MS });
  return holder.__buildProvider;
}

/**
 * Test hook: the next call makes the provider again from the configuration as it is then, or
 * answers `provider` when one is given (a scripted build that observes each phase).
 */
export function resetBuildProviderForTests(provider?: BuildProvider): void {
  holder.__buildProvider = provider;
}
