import { defineDomain } from '../../platform/domain';
import { auditRouter } from './router';

/** Reads the audit log; the entries are written by the platform's base procedures (server/platform/audit.ts). */
export const auditDomain = defineDomain({
  name: 'audit',
  routers: { audit: auditRouter },
  scopes: ['audit'],
  panel: [{ segment: 'activity', label: 'Activity', icon: 'activity', section: 'project', order: 40, role: 'admin' }],
});
