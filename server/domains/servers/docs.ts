const UPSTREAM = '502 UPSTREAM_ERROR when the infrastructure provider fails.';

export const LIST_SERVERS =
  'Live servers, newest first; deleted ones are omitted. PROVISIONING servers are reconciled with the provider on read: one whose machine has finished starting (or has applied its power action) turns RUNNING or OFF and gets its address.';

export const CREATE_SERVER = `Creates a LAMP server of size \`slug\` in \`region\` (both from the catalogue; the size must be sold in the region and have the disk the LAMP image needs, else 422), trusting the SSH keys \`sshKeyIds\` (unknown ids are 422). The name must be free among the project's live servers (409, checked before any charge). Charges the project's saved card the prorated monthly price, exactly the preview's amount: 402 ORG_PAYMENT_METHOD_REQUIRED / BILLER_PAYMENT_METHOD_REQUIRED without a usable card, 402 CARD_DECLINED, 402 PROJECT_BLOCKED. Transactional: a failure at any step leaves no server and no charge. The server starts PROVISIONING. ${UPSTREAM}`;

export const PREVIEW_SERVER =
  'What creating a server of size `slug` would charge now (prorated to the end of the month) and monthly after. 404 NOT_FOUND for a size the catalogue does not have.';

export const GET_SERVER = 'With the SSH keys it was created with. Reconciled like the list.';

export const RENAME_SERVER = `Renamed at the provider first, then here, so a provider failure leaves the old name on both sides. 409 when the name is taken or the server is being deleted. ${UPSTREAM}`;

export const DELETE_SERVER = `Destroys the machine and its data (unrecoverable) and stops billing. When the provider fails the answer is 502, the server stays listed with its status, and the call can simply be repeated. ${UPSTREAM}`;

export const SERVER_ACTION = `power_on fits an OFF server; power_off, shutdown and reboot fit a RUNNING one; power_cycle fits both. A fitting action is sent and the server answers PROVISIONING until it has been applied (read it again to see where it lands: RUNNING, or OFF after power_off and shutdown). An action that does not fit, or any action while the server is PROVISIONING, is 409 CONFLICT and nothing changes. ${UPSTREAM}`;
