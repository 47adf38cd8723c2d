import { getConfig } from '../../platform/config';
import { RegistrarSimulator } from './simulator';
import type { RegistrarProvider } from './types';

export type { DomainCandidate, RegistrarProvider, RegistrarTld } from './types';
export { REGISTRAR_TLDS } from './types';

let provider: RegistrarProvider | undefined;

/** The registrar named by REGISTRAR_PROVIDER, made once per process. */
export function getRegistrarProvider(): RegistrarProvider {
  if (!provider) {
    switch (getConfig().REGISTRAR_PROVIDER) {
      case 'simulator':
        provider = new RegistrarSimulator();
        break;
    }
  }
  return provider;
}

/** Test hook: the next call makes the provider again, from the configuration as it is then. */
export function resetRegistrarProviderForTests(): void {
  provider = undefined;
}
