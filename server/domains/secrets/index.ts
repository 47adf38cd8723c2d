import { secrets } from '../../../db/schema';
import { defineDomain } from '../../platform/domain';
import { secretsRouter } from './router';

export { effectiveSecrets } from './service';

const by = 'usr_0123456789abcdef';

/**
 * Secrets: encrypted configuration per environment, shown once. A billing suspension changes
 * nothing here (no `suspension` hook): nothing runs to be stopped, deployments keep reading their
 * values, and the packs stay billed like every active item.
 */
export const secretsDomain = defineDomain({
  name: 'secrets',
  routers: { secrets: secretsRouter },
  events: [
    {
      type: 'secret.created',
      description: 'A secret was created in one environment of the project (its name, never its value).',
      example: { secretId: 'sec_0123456789abcdef', name: 'DATABASE_URL', environment: 'production', version: 1, by },
    },
    {
      type: 'secret.updated',
      description: "A secret's value was replaced; the version is the new one (the value is never sent).",
      example: { secretId: 'sec_0123456789abcdef', name: 'DATABASE_URL', environment: 'production', version: 2, by },
    },
    {
      type: 'secret.deleted',
      description: 'A secret was deleted; its audit trail is kept.',
      example: { secretId: 'sec_0123456789abcdef', name: 'DATABASE_URL', environment: 'production', version: 2, by },
    },
    {
      type: 'secrets.upgraded',
      description: 'Packs of five secrets were bought; the limit is the new one.',
      example: { packs: 2, paidPacks: 3, limit: 20, by },
    },
  ],
  scopes: ['secrets'],
  panel: [{ segment: 'secrets', label: 'Secrets', icon: 'lock', section: 'resources', order: 30 }],
  sealedColumns: [{ table: secrets, id: secrets.id, sealed: secrets.sealedValue }],
});
