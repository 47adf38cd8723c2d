const VALUES_ONCE =
  'Values are encrypted at rest (AES-256-GCM, a data key per value) and returned only by the create and update answers; no read returns them again.';

export const LIST_SECRETS = `Metadata of the project's secrets, by environment then name; never a value. \`environment\` lists the secrets *of* that environment only (a \`default\` secret is not repeated under \`production\`). With \`effective=true\` it lists the set a deployment in \`environment\` receives instead: that environment's secrets and the \`default\` ones it does not override by name. ${VALUES_ONCE}`;

export const GET_SECRET = `Metadata of one secret; never its value. ${VALUES_ONCE}`;

export const SECRETS_USAGE =
  'How many secrets the project holds (every environment counted) against its limit: the free allowance plus five per pack bought. `packPrice` is null when this deployment sells no packs.';

export const CREATE_SECRET = `Answers 201 with the secret, its \`value\` (shown this once) and \`maskedValue\` (bullets between at most the first two and last two characters). 409 CONFLICT when the name exists in the same environment (the same name may exist in other environments). 402 SECRET_LIMIT_REACHED when the project holds as many secrets as its limit: buy packs with \`POST …/secrets/upgrade\` or delete one. ${VALUES_ONCE}`;

export const UPDATE_SECRET = `Replaces the value (and the description when given) and adds one to \`version\`; the answer carries the new \`value\` this once. Deployments receive the new value from their next start. ${VALUES_ONCE}`;

export const DELETE_SECRET = 'Deletes the secret: 204, no body. Its audit trail is kept. Packs bought are kept and not refunded: they stay billed monthly.';

export const SECRET_AUDIT = 'Who created, updated and deleted the secret, newest first; kept after the secret is deleted. Owners and admins only.';

export const UPGRADE_SECRETS = `Buys \`packs\` packs (1 to 20, default 1) of five more secrets as a monthly subscription item: the prorated price of the rest of the month is charged now to the project's saved card (exactly \`GET …/secrets/upgrade/preview\`), the full price at every month's close. Answers the usage with the new limit. 402 ORG_PAYMENT_METHOD_REQUIRED or BILLER_PAYMENT_METHOD_REQUIRED when the project has no saved card (no subscription can start), 402 CARD_DECLINED when the card declines (nothing is bought), 400 SECRET_PACKS_NOT_SOLD when this deployment configures no pack price. Packs are never refunded by deleting secrets. A billing suspension changes nothing for secrets: deployments keep reading them.`;

export const PREVIEW_SECRETS_UPGRADE =
  'What `POST …/secrets/upgrade` with the same `packs` would charge now (amounts in minor units). 400 SECRET_PACKS_NOT_SOLD when no pack price is configured.';
