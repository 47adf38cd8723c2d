import { accountsDomain } from './accounts';
import { apiKeysDomain } from './apiKeys';
import { appsDomain } from './apps';
import { auditDomain } from './audit';
import { billingDomain } from './billing';
import { catalogDomain } from './catalog';
import { containerRegistryDomain } from './containerRegistry';
import { databasesDomain } from './databases';
import { domainsDomain } from './domains';
import { hostingDomain } from './hosting';
import { integrationsDomain } from './integrations';
import { invitationsDomain } from './invitations';
import { membersDomain } from './members';
import { notificationsDomain } from './notifications';
import { objectStorageDomain } from './objectStorage';
import { projectsDomain } from './projects';
import { redisDomain } from './redis';
import { secretsDomain } from './secrets';
import { serversDomain } from './servers';
import { sshKeysDomain } from './sshKeys';
import { variablesDomain } from './variables';
import { webhooksDomain } from './webhooks';

/**
 * The domains of the platform. Everything that lists domains (the router tree, jobs, `_count`,
 * events, the panel's areas, the authorization matrix) is derived from this one list: adding a
 * domain is its folder plus one line here.
 */
export const DOMAINS = [
  accountsDomain,
  projectsDomain,
  apiKeysDomain,
  membersDomain,
  invitationsDomain,
  billingDomain,
  sshKeysDomain,
  serversDomain,
  appsDomain,
  redisDomain,
  domainsDomain,
  integrationsDomain,
  objectStorageDomain,
  containerRegistryDomain,
  hostingDomain,
  databasesDomain,
  secretsDomain,
  variablesDomain,
  catalogDomain,
  auditDomain,
  notificationsDomain,
  webhooksDomain,
] as const;
