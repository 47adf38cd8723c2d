const UPSTREAM = '502 UPSTREAM_ERROR when the object storage endpoint fails.';
const SCOPES =
  'API keys need `object-storage:read` (and `object-storage:write` to change anything); `storage:read` / `storage:write` are accepted as the same scopes.';

export const LIST_BUCKETS = `The project's live buckets, newest first, each with the S3 endpoint to give S3 clients (URL, signing region, path-style flag, and whether it is the embedded development endpoint), the CDN state and the CORS rules. ${SCOPES}`;

export const PREVIEW_BUCKET =
  'What creating a bucket of `tier` (default STARTER) would charge now, prorated to the end of the month, and monthly after: STARTER 5, GROWTH 20, SCALE 75, ENTERPRISE 300 USD.';

export const CREATE_BUCKET = `Buys a bucket and makes it on the endpoint with its settings. The name is global (409 when any live bucket holds it) and follows S3's rules (3–63 lower-case letters, digits and hyphens). \`cdnEnabled\` needs \`publicAccess\` (400 BAD_REQUEST). Charges the project's saved card the prorated tier price, exactly the preview: 402 ORG_PAYMENT_METHOD_REQUIRED / BILLER_PAYMENT_METHOD_REQUIRED without a usable card, 402 CARD_DECLINED, 402 PROJECT_BLOCKED. When the endpoint fails the charge is refunded and the answer is 502. Project-wide credentials reach the new bucket. ${SCOPES}`;

export const BUCKET_USAGE = `Storage, egress and requests with the tier's monthly allowances (STARTER 250 GB / 1 TB / 5 M requests, GROWTH 1 TB / 5 TB / 25 M, SCALE 5 TB / 20 TB / 100 M, ENTERPRISE 25 TB / 100 TB / 500 M; decimal units). Egress and requests count from the start of the billing month. Measured hourly and again on request when older than 5 minutes (SPEC allows 24 hours). A bucket more than 10% over an allowance is suspended until an upgrade. CDN delivery is metered at 12 cents per GB and 150 cents per million requests. ${UPSTREAM}`;

export const PLAN_PREVIEW =
  'The tier-change preview: an upgrade is invoiced now for the prorated difference (positive dueToday); a downgrade charges nothing and credits the prorated difference (creditBack) to the project balance.';

export const CHANGE_TIER = `An upgrade invoices the prorated difference now: 402 CARD_DECLINED and the tier unchanged when the card is declined; it reopens a bucket suspended for its usage. A downgrade is allowed only when the current usage fits the target tier (409 otherwise) and credits the difference back. The same tier is 409. ${UPSTREAM}`;

export const REPLACE_CORS = `Replaces the whole CORS configuration on the endpoint; an empty list clears it. Each rule needs at least one origin (\`*\` allows any; one \`*\` in a host as in https://*.example.com) and one method of GET, PUT, POST, DELETE, HEAD; maxAgeSeconds 0–86400. ${UPSTREAM}`;

export const SET_CDN =
  '`{ cdnEnabled }`: 400 BAD_REQUEST when enabling on a bucket without publicAccess. The CDN domain is null until the CDN has been provisioned (about 30 seconds), then the answer and the bucket carry it.';

export const DELETE_BUCKET = `Deletes the bucket and every object in it at the endpoint (unrecoverable), then ends its billing item. When the endpoint fails the answer is 502 and the bucket stays. ${UPSTREAM}`;

export const BUCKET_CREDENTIALS = 'Every credential that reaches the bucket: the ones scoped to it and the project-wide ones. Secrets are never shown again.';

export const LIST_IAM_USERS = 'Legacy: the credentials made through iam-users for this bucket.';
export const CREATE_IAM_USER = `Legacy: a credential reaching this bucket only, with full access; the secret is returned once. It cannot be re-scoped; prefer POST /v1/projects/{projectId}/iam. ${UPSTREAM}`;
export const DELETE_IAM_USER = `Legacy: revokes the credential at the endpoint, then forgets it. ${UPSTREAM}`;

export const LIST_IAM =
  'Every object-storage credential of the project: name, access key id, the buckets it reaches (null: every bucket of the project, present and future) and its access.';
export const CREATE_IAM = `Issues an access key for S3 clients reaching \`bucketIds\` (or, with null, every bucket of the project) with \`access\` read (list and download), write (also upload and delete) or full (also bucket settings). The secret access key is returned once. Names are unique per project (409). ${UPSTREAM}`;
export const RESCOPE_IAM = `Changes the buckets and access of a credential at the endpoint. Legacy iam-users credentials cannot be re-scoped (409). ${UPSTREAM}`;
export const DELETE_IAM = `Revokes the access key at the endpoint (502 and kept when that fails), then forgets it. ${UPSTREAM}`;
