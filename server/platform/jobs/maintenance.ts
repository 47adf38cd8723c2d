import { markInterruptedAuditEntries, purgeExpiredAuditEntries } from '../audit';
import { reloadKeyring } from '../encryption/keyring';
import { rewrapSealedValues, sealedValueStatus } from '../encryption/rotation';
import { purgeExpiredIdempotencyKeys } from '../idempotency';
import { getLogger } from '../logger';
import { purgeExpiredOAuthStates } from '../oauthState';
import { purgeExpiredRateLimits } from '../rateLimit';
import type { JobDefinition } from './runner';

export const PURGE_RATE_LIMITS = 'platform.purge-rate-limits';
export const PURGE_IDEMPOTENCY_KEYS = 'platform.purge-idempotency-keys';
export const MARK_INTERRUPTED_AUDIT_ENTRIES = 'platform.mark-interrupted-audit-entries';
export const PURGE_AUDIT_ENTRIES = 'platform.purge-audit-entries';
export const REWRAP_SEALED_VALUES = 'platform.rewrap-sealed-values';
export const PURGE_OAUTH_STATES = 'platform.purge-oauth-states';

/** The platform's own periodic work; each domain lists its jobs in its manifest. */
export const platformJobs: JobDefinition[] = [
  {
    name: PURGE_RATE_LIMITS,
    cron: '*/10 * * * *',
    handler: async () => {
      const rateLimits = await purgeExpiredRateLimits();
      getLogger().info({ rateLimits }, 'rate-limit state of whole budgets purged');
    },
  },
  {
    name: PURGE_IDEMPOTENCY_KEYS,
    cron: '17 * * * *',
    handler: async () => {
      const idempotencyKeys = await purgeExpiredIdempotencyKeys();
      getLogger().info({ idempotencyKeys }, 'expired idempotency records purged');
    },
  },
  {
    name: MARK_INTERRUPTED_AUDIT_ENTRIES,
    cron: '*/5 * * * *',
    handler: async () => {
      const interrupted = await markInterruptedAuditEntries();
      if (interrupted > 0) getLogger().warn({ interrupted }, 'audit entries of mutations whose process ended marked interrupted');
    },
  },
  {
    name: PURGE_OAUTH_STATES,
    cron: '23 * * * *',
    handler: async () => {
      const oauthStates = await purgeExpiredOAuthStates();
      getLogger().info({ oauthStates }, 'expired OAuth states purged');
    },
  },
  {
    name: PURGE_AUDIT_ENTRIES,
    cron: '30 3 * * *',
    handler: async () => {
      const auditEntries = await purgeExpiredAuditEntries();
      getLogger().info({ auditEntries }, 'audit entries past their retention purged');
    },
  },
  {
    name: REWRAP_SEALED_VALUES,
    cron: '*/5 * * * *',
    // The key file is read again first: `npm run encryption:rotate` puts a new key in it while the
    // embedded database's one process runs, and only that process can re-wrap.
    handler: async () => {
      const keyring = reloadKeyring();
      const { rewrapped, failed } = await rewrapSealedValues({ keyring });
      const { currentKeyId, underOtherKeys } = await sealedValueStatus(keyring);
      const log = getLogger();
      if (rewrapped > 0 || failed > 0) log.info({ rewrapped, failed, currentKeyId, underOtherKeys }, 'sealed values re-wrapped with the current master key');
      if (underOtherKeys > 0) log.warn({ currentKeyId, underOtherKeys }, 'sealed values are still wrapped by an older master key');
    },
  },
];
