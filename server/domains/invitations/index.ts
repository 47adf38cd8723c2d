import { defineDomain } from '../../platform/domain';
import { invitationJobs } from './jobs';
import { invitationsRouter } from './router';

export { revokeInvitationsSentBy } from './service';

export const invitationsDomain = defineDomain({
  name: 'invitations',
  routers: { invitations: invitationsRouter },
  jobs: invitationJobs,
  events: ['invitation.created', 'invitation.accepted', 'invitation.rejected', 'invitation.revoked'],
  scopes: ['members'],
});
