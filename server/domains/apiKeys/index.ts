import { defineDomain } from '../../platform/domain';
import { apiKeysRouter } from './router';

export const apiKeysDomain = defineDomain({
  name: 'apiKeys',
  routers: { apiKeys: apiKeysRouter },
  events: ['api_key.created', 'api_key.revoked'],
  panel: [{ segment: 'api-keys', label: 'API keys', icon: 'key', section: 'project', order: 20 }],
});
