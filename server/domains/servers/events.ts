import type { EventDeclaration } from '../../platform/domain';

export const serverEvents: readonly EventDeclaration[] = [
  {
    type: 'server.created',
    description: 'A server was bought and is being provisioned.',
    example: { serverId: 'srv_9o7i5u3y1t9r7e5w', name: 'web-1', size: 's-1vcpu-1gb', region: 'fra1', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'server.renamed',
    description: 'A server was renamed.',
    example: { serverId: 'srv_9o7i5u3y1t9r7e5w', from: 'web-1', to: 'web-eu-1', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'server.action_requested',
    description: 'A power action (power_on, power_off, shutdown, reboot, power_cycle) was sent to a server.',
    example: { serverId: 'srv_9o7i5u3y1t9r7e5w', action: 'reboot', from: 'RUNNING', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'server.deleted',
    description: 'A server was deleted and its billing stopped.',
    example: { serverId: 'srv_9o7i5u3y1t9r7e5w', name: 'web-1', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'server.suspended',
    description: 'A running server was powered off because an invoice stayed unpaid past its grace period.',
    example: { serverId: 'srv_9o7i5u3y1t9r7e5w', name: 'web-1', action: 'power_off', reason: 'invoice_unpaid' },
  },
  {
    type: 'server.resumed',
    description: 'A server stopped by a billing suspension is back (powered on) now that the invoice is paid.',
    example: { serverId: 'srv_9o7i5u3y1t9r7e5w', name: 'web-1', action: 'power_on', reason: 'invoice_paid' },
  },
];
