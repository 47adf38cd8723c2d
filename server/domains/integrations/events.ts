import type { EventDeclaration } from '../../platform/domain';

export const integrationEvents: readonly EventDeclaration[] = [
  {
    type: 'dns_provider.connected',
    description: 'A DNS provider account was connected to the project (with an API token or through OAuth).',
    example: { connectionType: 'API_TOKEN', accountName: 'Acme Ltd', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'dns_provider.disconnected',
    description: "The project's DNS provider credential was removed; its records stay in the account.",
    example: { by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'dns_provider.settings_changed',
    description: 'Auto-DNS was turned on or off.',
    example: { autoDnsEnabled: true, by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'dns_record.created',
    description: 'A DNS record was created in a zone of the connected account.',
    example: { zoneId: 'zone_1a2b3c', recordId: 'rec_4d5e6f', type: 'TXT', name: '_cloudpanel-verify.example.com', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'dns_record.updated',
    description: 'A DNS record of the connected account was replaced.',
    example: { zoneId: 'zone_1a2b3c', recordId: 'rec_4d5e6f', type: 'A', name: 'www.example.com', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'dns_record.deleted',
    description: 'A DNS record of the connected account was deleted.',
    example: { zoneId: 'zone_1a2b3c', recordId: 'rec_4d5e6f', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'git_host.connected',
    description: 'A git host account was connected to the project (an installation linked on git host 1, an OAuth grant on git host 2 or 3).',
    example: { host: 'git-host-1', account: 'acme-labs', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'git_host.disconnected',
    description: 'The project was disconnected from a git host; its push webhooks there were removed.',
    example: { host: 'git-host-2', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'git_host.installation_removed',
    description: 'The platform’s app was uninstalled from an account on git host 1, detaching it from the project.',
    example: { host: 'git-host-1', installationId: '48213377', reason: 'uninstalled' },
  },
  {
    type: 'image_hub.connected',
    description: 'An image hub account was connected to the project (or replaced the earlier one).',
    example: { username: 'acme', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'image_hub.disconnected',
    description: "The project's image hub credential was removed.",
    example: { by: 'usr_3n5b7v9c1x2z4a6s' },
  },
];
