import { defineDomain } from '../../platform/domain';
import { sshKeysRouter } from './router';

export { parsePublicKey, type ParsedPublicKey } from './keyFormat';

export const sshKeysDomain = defineDomain({
  name: 'sshKeys',
  routers: { sshKeys: sshKeysRouter },
  events: ['ssh_key.created', 'ssh_key.deleted'],
  scopes: ['servers'],
  panel: [{ segment: 'ssh-keys', label: 'SSH keys', icon: 'terminal', section: 'resources', order: 20 }],
});
