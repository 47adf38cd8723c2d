import { defineDomain } from '../../platform/domain';
import { projectsRouter } from './router';

export const projectsDomain = defineDomain({
  name: 'projects',
  routers: { projects: projectsRouter },
  events: ['project.created', 'project.renamed', 'project.billing_email_changed', 'project.deleted'],
  scopes: ['projects'],
  panel: [
    { segment: '', label: 'Overview', icon: 'home', section: 'project', order: 0 },
    { segment: 'settings', label: 'Settings', icon: 'settings', section: 'project', order: 90 },
  ],
});
