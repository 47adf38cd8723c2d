import type { TierLimits } from '@/server/domains/hosting/tiers';
import { formatMemory } from '../format';
import wizard from '../ui/Wizard.module.css';

/** A tier's limits, as the wizard's tier cards and the site's tier change list them. */
export function TierSpecs({ limits, diskGb = limits.diskGb }: { limits: TierLimits; diskGb?: number }) {
  return (
    <span className={wizard.specs}>
      <span>{diskGb} GB disk</span>
      <span>
        {limits.phpWorkers} PHP workers · {formatMemory(limits.memoryMb)} memory
      </span>
      <span>
        {limits.domains} domains · {limits.databases} databases
      </span>
      <span>{limits.connectionsPerDatabase} connections per database</span>
    </span>
  );
}
