export const LIST_PROJECTS = 'Projects the caller is a member of, newest first. An API key sees only its own project.';

export const CREATE_PROJECT = 'Names are unique per creating user, case-insensitive (409 CONFLICT). The caller becomes its owner and biller.';

export const GET_PROJECT = '404 when the project does not exist or the caller is not a member.';

export const DELETE_PROJECT = [
  'Immediate and irreversible. 409 CONFLICT listing what is left while resources remain, and listing them while an invoice is unpaid (open or failed);',
  "404 when absent or the caller is not its owner. Invoices are never deleted: a deleted project's paid invoices stay in the billing history of whoever paid them (GET /v1/account/invoices).",
].join(' ');

export const SET_BILLING_EMAIL = 'null clears it; invoices then go to the account email of the member who holds billing.';

export const PROJECT_STATS =
  'resourceHistory: the last five closed UTC months and the month in progress (inProgress: true, a running total), oldest first, amounts in minor units.';
