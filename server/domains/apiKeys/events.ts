import type { EventDeclaration } from '../../platform/domain';

export const apiKeyEvents: readonly EventDeclaration[] = [
  {
    type: 'api_key.created',
    description: 'An API key was issued for the project; the key itself is never in an event.',
    example: { apiKeyId: 'key_5t7y9u1i3o5p7a9s', name: 'CI deploys', scopes: ['servers:read', 'servers:write'], by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'api_key.revoked',
    description: 'An API key of the project was revoked and stopped working.',
    example: { apiKeyId: 'key_5t7y9u1i3o5p7a9s', name: 'CI deploys', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
];
