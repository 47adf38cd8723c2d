import { defineDomain } from '../../platform/domain';
import { invitationEvents } from './events';
import { invitationJobs } from './jobs';
import { invitationsRouter } from './router';

export { revokeInvitationsSentBy } from './service';

export const invitationsDomain = defineDomain({
  name: 'invitations',
  routers: { invitations: invitationsRouter },
  jobs: invitationJobs,
  events: invitationEvents,
  scopes: ['members'],
});
