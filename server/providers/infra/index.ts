import { getConfig } from '../../platform/config';
import { DropletsInfraProvider } from './droplets';
import { InfraSimulator } from './simulator';
import type { InfraProvider } from './types';

export type { InfraImage, InfraMachine, InfraProvider, InfraRegion, InfraSize, PowerAction } from './types';

let provider: InfraProvider | undefined;

/** The infrastructure provider named by INFRA_PROVIDER, made once per process. */
export function getInfraProvider(): InfraProvider {
  if (!provider) {
    const config = getConfig();
    switch (config.INFRA_PROVIDER) {
      case 'simulator':
        provider = new InfraSimulator();
        break;
      case 'droplets':
        if (!config.INFRA_API_URL || !config.INFRA_API_TOKEN) throw new Error('INFRA_API_URL and INFRA_API_TOKEN are required when INFRA_PROVIDER=droplets');
        provider = new DropletsInfraProvider({ apiUrl: config.INFRA_API_URL, token: config.INFRA_API_TOKEN });
        break;
    }
  }
  return provider;
}

/** Test hook: the next call makes the provider again, from the configuration as it is then. */
export function resetInfraProviderForTests(): void {
  provider = undefined;
}
