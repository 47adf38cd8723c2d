import type { EventDeclaration } from '../../platform/domain';

export const domainEvents: readonly EventDeclaration[] = [
  {
    type: 'domain.added',
    description: 'An external domain was added to the project and waits for its verification record.',
    example: { domainId: 'dom_5t7y9u1i3o5p7a9s', name: 'example.com', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'domain.verified',
    description: "A domain's verification TXT record was found: the project's apps may use it.",
    example: { domainId: 'dom_5t7y9u1i3o5p7a9s', name: 'example.com', by: null },
  },
  {
    type: 'domain.removed',
    description: 'A domain was removed from the project.',
    example: { domainId: 'dom_5t7y9u1i3o5p7a9s', name: 'example.com', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
];
