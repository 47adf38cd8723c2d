import type { EventDeclaration } from '../../platform/domain';

export const invitationEvents: readonly EventDeclaration[] = [
  {
    type: 'invitation.created',
    description: 'Someone was invited to the project by email.',
    example: { invitationId: 'inv_2w4e6r8t0y2u4i6o', email: 'ada@example.com', role: 'member', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'invitation.accepted',
    description: 'An invitation was accepted (a `member.joined` event follows).',
    example: { invitationId: 'inv_2w4e6r8t0y2u4i6o', userId: 'usr_7h9j1k3l5z7x9c1v' },
  },
  {
    type: 'invitation.rejected',
    description: 'An invitation was declined by the person invited.',
    example: { invitationId: 'inv_2w4e6r8t0y2u4i6o', userId: 'usr_7h9j1k3l5z7x9c1v' },
  },
  {
    type: 'invitation.revoked',
    description: 'A pending invitation was withdrawn by an admin, or (with `reason: "sender_lost_access"`) because its sender left or dropped below admin.',
    example: { invitationId: 'inv_2w4e6r8t0y2u4i6o', email: 'ada@example.com', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
];
