import { APP_TEMPLATE_PATHS } from './template';

const SECRETS = 'Secret environment values are sealed at rest and never answered again: reads give `value: null` for them.';
const PRICE = 'An app is billed monthly for every instance of every service at its size’s price from GET /v1/catalog/apps/sizes (Σ size price × instances).';
const CONNECTION =
  'The repository is read with the project’s connection to the git host (Integrations): 400 GIT_HOST_NOT_CONNECTED without one that reaches the repository’s owner, 400 GIT_CREDENTIAL_INVALID when the host refuses it, 502 UPSTREAM_ERROR when the host fails.';
const WALK =
  'A deployment walks QUEUED → BUILDING (startedAt) → LIVE or FAILED (finishedAt; failureReason says why). Builds of one app run one at a time, in the order they were queued. When a deployment goes LIVE it becomes the app’s `liveDeploymentId` and the one it replaces becomes SUPERSEDED; a failed one leaves the live one serving. Hosts 2 and 3 build from a copy of the repository in the platform’s private deployment organisation, brought up to date first; host 1 builds from the repository itself.';
const SUSPENSION =
  'While an invoice stays unpaid past its grace period the project’s apps are SUSPENDED: deploying answers 402 PROJECT_SUSPENDED, pushes deploy nothing and deployments still queued end FAILED; a build already running finishes and what is live stays. Paying the invoice makes them ACTIVE again (nothing is redeployed by itself).';

export const LIST = `The project’s live apps, newest first, with their services, monthly price and live deployment. ${SECRETS}`;

export const PREVIEW = `What creating an app would charge now (prorated to the end of the month) and monthly after — exactly what creation charges. Either \`instanceSize\` (and \`instances\`, default 1) for an app of one service, or \`gitHost\`, \`repository\` and \`branch\` for the services of the template at the branch’s head (422 on \`branch\` when there is none, it is invalid, or its sizes or region are not sold; 422 on \`repository\` or \`branch\` when the connection does not reach them). 422 on \`instanceSize\` for a size not sold, or when both or neither form is given. ${PRICE} ${CONNECTION}`;

export const CREATE = `Buys an app that builds and runs branch \`branch\` of \`repository\` on \`gitHost\`. With \`fromTemplate: true\` its services and region come from the template at the branch’s head (${APP_TEMPLATE_PATHS.join(' or ')}); 422 on \`fromTemplate\` carries the template’s own error when it is missing or invalid. Otherwise \`service\` describes its one service, with the template’s rules and defaults. Before anything is charged: the repository must be reachable (422 on \`repository\`), the branch must exist (422 on \`branch\`), every \`instanceSize\` and the region must be sold (422 on \`service.instanceSize\` / \`service.region\`, or on \`fromTemplate\` naming the template’s field), and \`name\` must be free among the project’s live apps (409 CONFLICT). Then the project’s saved card is charged the prorated monthly price, exactly the preview: 402 ORG_PAYMENT_METHOD_REQUIRED / BILLER_PAYMENT_METHOD_REQUIRED without a usable card, 402 CARD_DECLINED, 402 PROJECT_BLOCKED. The repository’s push webhook is registered (hosts 2 and 3); when the host fails there the charge is refunded and its error answered. Answers 201 with the app; its first deployment (trigger CREATE, the branch’s head commit) is QUEUED. \`autoDeploy\` defaults to what the service says (for a template: true only when every service says so). ${PRICE} ${SECRETS} ${CONNECTION}`;

export const GET = `One live app. ${SECRETS}`;

export const UPDATE = `Changes whether pushes deploy (\`autoDeploy\`) and the deployed \`branch\`, which must exist (422 on \`branch\` otherwise). Changing the branch deploys nothing by itself: the next deployment (manual, or a push to the new branch) builds it. Send at least one of the two. ${CONNECTION}`;

export const DELETE = `Deletes the app: billing stops (no refund of the month), deployments still queued or building end FAILED ("app deleted"), and the repository’s push webhook is removed when no other live app of the project builds the repository. The app and its deployments answer 404 from then on; its charges stay in the project’s history.`;

export const LIST_DEPLOYMENTS = `The app’s deployments, newest first. ${WALK}`;

export const GET_DEPLOYMENT = `One deployment with its build and release log, in order (environment values never appear in it; secret ones are only said to be set). ${WALK}`;

export const DEPLOY = `Queues a deployment of the head commit of the app’s branch, read from the host now, and answers 202 with it, QUEUED (the build runs after the answer); poll it to follow the build. 409 CONFLICT when the repository or the branch is gone (point the app at another branch first). ${SUSPENSION} ${WALK} ${CONNECTION}`;
