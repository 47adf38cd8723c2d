import path from 'node:path';
import { getConfig } from '../../platform/config';
import { getLogger } from '../../platform/logger';
import { findExecutable } from '../redis';
import { registryVersion } from './embedded';
import { FrontedRegistryProvider } from './provider';
import type { RegistryProvider } from './types';

export type { IssuedRegistryToken, ManifestInfo, RegistryAction, RegistryEvent, RegistryHooks, RegistryProvider, RepositoryAccess, TagRef } from './types';
export { REGISTRY_ACTIONS } from './types';
export { PLATFORM_SUBJECT, REGISTRY_ISSUER, REGISTRY_SERVICE } from './provider';

/**
 * One provider per process, shared through globalThis: the panel's Next bundle and the REST bridge
 * load this module separately, and a second instance would start a second front door and registry.
 */
const holder = globalThis as unknown as { __registryProvider?: RegistryProvider };

/** The registry provider REGISTRY_PROVIDER names; embedded falls back to the simulator without a docker-registry binary. */
export function getRegistryProvider(): RegistryProvider {
  holder.__registryProvider ??= makeRegistryProvider();
  return holder.__registryProvider;
}

function makeRegistryProvider(): RegistryProvider {
  const config = getConfig();
  const common = {
    dataDir: path.resolve(config.REGISTRY_DATA_DIR ?? path.join(config.DATA_DIR, 'registry')),
    endpointHost: config.REGISTRY_ENDPOINT_HOST,
    endpointPort: config.REGISTRY_ENDPOINT_PORT,
    realm: config.REGISTRY_TOKEN_REALM ?? `${config.APP_URL.replace(/\/+$/, '')}/v1/registry/token`,
  };
  const binary = config.REGISTRY_PROVIDER === 'embedded' ? findExecutable(config.REGISTRY_BINARY) : null;
  if (binary) {
    return new FrontedRegistryProvider({
      ...common,
      backend: { kind: 'embedded', binary, version: registryVersion(binary), startTimeoutMs: config.REGISTRY_START_TIMEOUT_SECONDS * 1000 },
    });
  }
  if (config.REGISTRY_PROVIDER === 'embedded') {
    getLogger().warn({ binary: config.REGISTRY_BINARY }, 'docker-registry not found: the container registry is simulated');
    return new FrontedRegistryProvider({ ...common, backend: { kind: 'simulator', reason: `no ${config.REGISTRY_BINARY} binary found` } });
  }
  return new FrontedRegistryProvider({ ...common, backend: { kind: 'simulator', reason: 'REGISTRY_PROVIDER=simulator' } });
}

/** Stops the registry this process started, if it made a provider at all (shutdown, the end of a test file). */
export async function stopRegistryProvider(): Promise<void> {
  await holder.__registryProvider?.stop();
}

/** Test hook: the next call makes the provider again, from the configuration as it is then. The caller stops the old one. */
export function resetRegistryProviderForTests(): void {
  holder.__registryProvider = undefined;
}
