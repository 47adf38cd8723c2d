import { getConfig } from '../../platform/config';
import { DockerHubProvider } from './dockerhub';
import { ImageHubSimulator } from './simulator';
import type { ImageHubProvider } from './types';

export type * from './types';

const holder = globalThis as unknown as { __imageHub?: ImageHubProvider };

/** The image hub IMAGE_HUB_PROVIDER names, made once per process. */
export function getImageHub(): ImageHubProvider {
  let provider = holder.__imageHub;
  if (!provider) {
    const config = getConfig();
    provider =
      config.IMAGE_HUB_PROVIDER === 'dockerhub'
        ? new DockerHubProvider({ apiUrl: config.IMAGE_HUB_API_URL, timeoutMs: config.GIT_API_TIMEOUT_SECONDS * 1000 })
        : new ImageHubSimulator();
    holder.__imageHub = provider;
  }
  return provider;
}

/** Test hook: the next call makes the provider again, from the configuration as it is then. */
export function resetImageHubForTests(): void {
  holder.__imageHub = undefined;
}
