export const LIST_DOMAINS =
  "The project's domains, newest first, with the stable fields of SPEC: id, name, type, status, createdAt, dnsRecords (what the connected DNS provider's zone holds at the domain and under it; empty without a connection) and verificationRecord (the TXT record that proves ownership).";

export const GET_DOMAIN = '`{domain}` is the domain id or its name (an IDN may be given in Unicode). 404 when the project has no such domain.';

export const ADD_DOMAIN =
  "Adds an external domain: a registrable name, or a name under one (IDNs are stored as punycode, lower-cased); a public suffix, an IP address or an unknown top-level domain is 422. Status PENDING; publish `verificationRecord` (a TXT record) where the domain's DNS is hosted, then verify. With auto-DNS on and the domain's zone in the connected DNS account, the record is created there at once (`autoDns` says whether). Refused to viewers (403) and to a project blocked over an unpaid invoice (402 PROJECT_BLOCKED). A name any project already holds is 409. Registering a domain or moving one in is not done through the API.";

export const VERIFY_DOMAIN =
  'Looks the verification TXT record up with a DNS query now. Found: the domain turns VERIFIED. Not found: it stays PENDING, and the answer says what was expected, what was found and why nothing was (NXDOMAIN, NODATA, TIMEOUT…). Pending domains are also checked in the background, after 1 minute and then twice as long each time (up to every 6 hours) for a week; this call starts that schedule again. A verified domain stays verified.';

export const CREATE_VERIFICATION_RECORD =
  "Creates the verification TXT record in the connected DNS account's zone that holds the domain: the one-click alternative to auto-DNS. 400 DNS_PROVIDER_NOT_CONNECTED without a connection; 404 when no zone of the account holds the domain or the provider refused the record.";

export const REMOVE_DOMAIN = 'Removes the domain from the project and frees its name for any project. DNS records published for it are left where they are.';

export const SEARCH_DOMAINS =
  'Candidate names for a query, with whether each can be registered and its yearly price (minor units). A query without a TLD is tried under .com, .net, .org, .io, .dev and .app. Registering is not done through the API.';
