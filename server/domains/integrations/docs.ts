const CONNECTION_REQUIRED =
  '400 DNS_PROVIDER_NOT_CONNECTED without a connection; 400 DNS_CREDENTIAL_INVALID when the provider refuses the stored credential (connect again); 502 UPSTREAM_ERROR when the provider fails.';

export const DNS_STATUS =
  'Whether a DNS provider account is connected to the project, how (API_TOKEN or OAUTH), the account name when the provider gives one, the auto-DNS setting and whether OAuth is configured. The credential itself is never returned.';

export const CONNECT_TOKEN =
  'Checks the API token with the provider and stores it encrypted, replacing any earlier credential. A token the provider refuses is 422 on `apiToken` and nothing changes. The token is never returned nor logged.';

export const CONNECT_OAUTH =
  "Redirects (302) to the provider's consent page. The callback (`GET /v1/integrations/dns-provider/callback`) checks a signed, single-use state valid for 10 minutes, stores the granted token, and returns to `redirect` (a relative panel path; anything else returns to the integration page) with the query `dns-provider=connected` (or `denied`, `error`). 404 when OAuth is not configured.";

export const DNS_SETTINGS =
  'Turns auto-DNS on or off (off by default; kept across disconnections). When on, adding an external domain whose zone is in the connected account creates its verification TXT record there without asking.';

export const DISCONNECT = 'Forgets the stored credential. Records made through it stay in the DNS account. Succeeds when nothing is connected.';

export const LIST_ZONES = `The zones of the connected account. ${CONNECTION_REQUIRED}`;

export const LIST_RECORDS = `The zone's records of the supported types (A, AAAA, CNAME, MX, TXT, NS, SRV, CAA), by name. 404 for a zone the account does not hold. ${CONNECTION_REQUIRED}`;

const RECORD_RULES =
  '`name` is `@` (the apex), a name relative to the zone (`www`) or a fully qualified name inside it. `ttl` is 1 (automatic) or 60–86400 seconds. `proxied` applies only to A, AAAA and CNAME and requires ttl 1. MX requires a numeric `priority` (0–65535); other types refuse one. A content is an IPv4 address, AAAA an IPv6 address, CNAME, NS and MX a hostname (CNAME not at the apex), TXT up to 2048 characters, SRV `priority weight port target`, CAA `flags tag "value"` (tag issue, issuewild or iodef). Every violation is 422 naming the rule.';

export const CREATE_RECORD = `Creates a record in the zone. ${RECORD_RULES} ${CONNECTION_REQUIRED}`;

export const REPLACE_RECORD = `Replaces every supported field of the record (the body is the whole record, as for creation). ${RECORD_RULES} 404 for a record the zone does not hold. ${CONNECTION_REQUIRED}`;

export const DELETE_RECORD = `Permanently removes the record. 404 when it does not exist. ${CONNECTION_REQUIRED}`;
