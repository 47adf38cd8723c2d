const UPSTREAM = '502 UPSTREAM_ERROR when the Redis provider fails.';

export const LIST_PLANS =
  'The plan catalogue: every tier with its memory, reserved CPU, options and monthly price in whole currency units (one unit; replication bills two), and the regions it is sold in. Any credential reads it, whatever its scopes. Cached a few minutes.';

export const LIST_REGIONS =
  'Regions with the backends (`providers`) that sell there, the plan families every plan of which is sold there (`planTypes`), and the plans sold there (`plans`). A plan not listed for a region cannot be created in it. Any credential reads it. Cached a few minutes.';

export const LIST_REDIS =
  'Live databases, newest first, without passwords; deleted ones are omitted. PROVISIONING databases are settled with the provider on read.';

export const CREATE_REDIS = `Starts a Redis 7.2 compatible database of plan \`planSlug\` in \`region\`. The plan must be sold in the region (422 otherwise: never moved to another region), and replication or persistence must be supported by the plan (422). The name must be free among the project's live databases (409). Charges the project's saved card the prorated monthly price, exactly the preview's amount (replication bills a second unit): 402 ORG_PAYMENT_METHOD_REQUIRED / BILLER_PAYMENT_METHOD_REQUIRED without a usable card, 402 CARD_DECLINED, 402 PROJECT_BLOCKED. Provisioning is asynchronous: the database answers PROVISIONING and turns READY within seconds; read it for the password. When the provider cannot start it, the answer is 502 UPSTREAM_ERROR, nothing is kept and the charge is refunded; a database that fails later while starting is retried, then turns FAILED with its charge credited back. Databases use maxmemory-policy noeviction: a full database refuses writes with an OOM error rather than dropping keys.`;

export const GET_REDIS = "With the default user's password and a ready-made connection URL. Only this read returns the password; treat the answer as a secret.";

export const DELETE_REDIS = `Stops the database and removes its data (unrecoverable), then stops billing (no refund of the month). When the provider fails the answer is 502, the database stays listed and the call can be repeated. ${UPSTREAM}`;

export const REDIS_USAGE = `Memory used and its limit (the usable memory), network in and out, and commands processed since the database last started, read from the database at most a minute ago, with one reading a minute over the last hour. Every figure is 0 (and \`sampledAt\` null) while the database is not READY. ${UPSTREAM}`;

export const PREVIEW_REDIS =
  'What creating a database of plan `planSlug` would charge now (prorated to the end of the month) and monthly after; `replication=true` bills a second unit. 400 BAD_REQUEST when `planSlug` is missing or the query is malformed; 422 for an unknown plan or replication on a plan without it.';
