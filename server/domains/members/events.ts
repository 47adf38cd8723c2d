import type { EventDeclaration } from '../../platform/domain';

export const memberEvents: readonly EventDeclaration[] = [
  {
    type: 'member.joined',
    description: 'Someone joined the project by accepting an invitation.',
    example: { userId: 'usr_7h9j1k3l5z7x9c1v', role: 'member', invitationId: 'inv_2w4e6r8t0y2u4i6o' },
  },
  {
    type: 'member.left',
    description: 'A member left the project of their own accord; their API keys were revoked.',
    example: { userId: 'usr_7h9j1k3l5z7x9c1v', role: 'member', by: 'usr_7h9j1k3l5z7x9c1v' },
  },
  {
    type: 'member.removed',
    description: 'A member was removed from the project; their API keys were revoked.',
    example: { userId: 'usr_7h9j1k3l5z7x9c1v', role: 'member', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'member.role_changed',
    description: "A member's role in the project changed.",
    example: { userId: 'usr_7h9j1k3l5z7x9c1v', from: 'member', to: 'admin', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
];
