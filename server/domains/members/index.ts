import { memberships } from '../../../db/schema';
import { defineDomain } from '../../platform/domain';
import { memberEvents } from './events';
import { membersRouter } from './router';

export const membersDomain = defineDomain({
  name: 'members',
  routers: { members: membersRouter },
  counters: [{ counter: 'members', label: 'member', blocksProjectDeletion: false, table: memberships, projectIdColumn: memberships.projectId }],
  events: memberEvents,
  scopes: ['members'],
  panel: [{ segment: 'members', label: 'Members', icon: 'users', section: 'project', order: 10 }],
});
