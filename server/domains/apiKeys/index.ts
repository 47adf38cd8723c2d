import { defineDomain } from '../../platform/domain';
import { apiKeyEvents } from './events';
import { apiKeysRouter } from './router';

export const apiKeysDomain = defineDomain({
  name: 'apiKeys',
  routers: { apiKeys: apiKeysRouter },
  events: apiKeyEvents,
  panel: [{ segment: 'api-keys', label: 'API keys', icon: 'key', section: 'project', order: 20 }],
});
