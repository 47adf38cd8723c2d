import { defineDomain } from '../../platform/domain';
import { projectEvents } from './events';
import { projectsRouter } from './router';

export const projectsDomain = defineDomain({
  name: 'projects',
  routers: { projects: projectsRouter },
  events: projectEvents,
  scopes: ['projects'],
  panel: [
    { segment: '', label: 'Overview', icon: 'home', section: 'project', order: 0 },
    { segment: 'settings', label: 'Settings', icon: 'settings', section: 'project', order: 90 },
  ],
});
