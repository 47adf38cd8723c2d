export const LIST_AUDIT_LOG = [
  'Owner or admin; API keys need `audit:read`.',
  'One entry per write (every POST, PATCH, PUT and DELETE on /v1 and every mutation of the panel) that reached an operation with a known caller: who (user, and the API key with its prefix when a key acted), the operation, the ids it named, the request id, the client address, the outcome (`ok` or the error code, refusals included) and the time.',
  'Calls without a valid credential (401) name no one and are not recorded; a refusal before the project is known to the caller (not a member of it) is not filed under the project. A retried call replayed from its idempotency record is recorded again, as the call it was.',
  'An entry is written before the operation can change anything and completed after it answers, so no change is missing from the log; an entry left `pending` by a process that ended is marked `interrupted` within minutes. No values are recorded: no names, keys, tokens, passwords or card data.',
  'Newest first; filter by actor (user or API key id), action, outcome (`ok`, `error`, an error code) and time; page with `cursor`. Entries are kept for AUDIT_RETENTION_DAYS (default 400).',
].join(' ');
