import { getLogger } from '../../platform/logger';
import { getRegistryProvider, type RegistryProvider } from '../../providers/registry';
import { handleRegistryEvents, tagMutabilityOf } from './notifications';

/**
 * The registry, started with this domain's hooks. Every entry point of the domain goes through it,
 * so whichever process serves a request first (the server at startup, a test, a worker) brings the
 * registry and its front door up; starting again is a no-op. A registry that does not start is
 * logged, and each call that needs it then answers 502 while reads of the platform's own rows work.
 */
export async function startedRegistry(): Promise<RegistryProvider> {
  const provider = getRegistryProvider();
  try {
    await provider.start({ tagMutability: tagMutabilityOf, onEvents: handleRegistryEvents });
  } catch (err) {
    getLogger().error({ err }, 'the container registry did not start');
  }
  return provider;
}
