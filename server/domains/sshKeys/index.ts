import { defineDomain } from '../../platform/domain';
import { sshKeyEvents } from './events';
import { sshKeysRouter } from './router';

export { parsePublicKey, type ParsedPublicKey } from './keyFormat';

export const sshKeysDomain = defineDomain({
  name: 'sshKeys',
  routers: { sshKeys: sshKeysRouter },
  events: sshKeyEvents,
  scopes: ['servers'],
  panel: [{ segment: 'ssh-keys', label: 'SSH keys', icon: 'terminal', section: 'resources', order: 20 }],
});
