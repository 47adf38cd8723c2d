import type { EventDeclaration } from '../../platform/domain';

const site = { tenantId: 'hst_5t7y9u1i3o5p7a9s', siteName: 'acme_shop' };
const by = 'usr_3n5b7v9c1x2z4a6s';

export const hostingEvents: readonly EventDeclaration[] = [
  { type: 'hosting_site.created', description: 'A hosting site was bought and is being served.', example: { ...site, tier: 'STARTER', phpVersion: '8.3', by } },
  {
    type: 'hosting_site.tier_changed',
    description: "A site's tier changed; its new limits apply at once.",
    example: { ...site, from: 'STARTER', to: 'GROWTH', by },
  },
  { type: 'hosting_site.deleted', description: 'A site, its files, databases and domains were deleted and its billing stopped.', example: { ...site, by } },
  {
    type: 'hosting_site.suspended',
    description: 'A site went offline and its SFTP closed: an invoice stayed unpaid past its grace period.',
    example: { ...site, reason: 'invoice_unpaid' },
  },
  { type: 'hosting_site.resumed', description: 'A suspended site is served again now that the invoice is paid.', example: { ...site, reason: 'invoice_paid' } },
  {
    type: 'hosting_domain.attached',
    description: 'A hostname was attached to a site.',
    example: { tenantId: site.tenantId, domainId: 'hdom_2w4e6r8t0y2u4i6o', hostname: 'shop.example.com', kind: 'SITE', by },
  },
  {
    type: 'hosting_domain.updated',
    description: "A domain's behaviour (kind, folder, redirect) was replaced.",
    example: { tenantId: site.tenantId, domainId: 'hdom_2w4e6r8t0y2u4i6o', hostname: 'shop.example.com', kind: 'REDIRECT', by },
  },
  {
    type: 'hosting_domain.detached',
    description: 'A hostname stopped pointing at a site; its folder and files stay.',
    example: { tenantId: site.tenantId, domainId: 'hdom_2w4e6r8t0y2u4i6o', hostname: 'shop.example.com', by },
  },
  {
    type: 'hosting_database.created',
    description: 'A MySQL database was made for a site (by is null when made with the site).',
    example: { tenantId: site.tenantId, databaseId: 'hdb_8u6y4t2r0e8w6q4a', name: 'shop', dbName: 'acme_shop_shop', by },
  },
  {
    type: 'hosting_database.deleted',
    description: "A site's MySQL database and its user were dropped.",
    example: { tenantId: site.tenantId, databaseId: 'hdb_8u6y4t2r0e8w6q4a', name: 'shop', by },
  },
];
