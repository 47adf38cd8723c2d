const CONNECTION =
  '400 GIT_HOST_NOT_CONNECTED without a connection; 400 GIT_CREDENTIAL_INVALID when the host refuses the grant or installation (connect again); 502 UPSTREAM_ERROR when the host fails.';

export const HOST1_STATUS =
  'Whether the project links installations of the platform’s app on git host 1, and on which accounts. Connect with `GET …/git-host-1/connect` (a browser redirect to the host’s installation page; the host returns through `GET /v1/integrations/git-host-1/setup`, state-checked, single use, 10 minutes, then to `redirect` with `git-host-1=connected`, or `requested`, `denied`, `error`).';
export const HOST1_PACKAGES = `Container images of the accounts of the linked installations, newest first. ${CONNECTION}`;
export const HOST1_PACKAGE_TAGS = `Tags of one image (\`owner\` is the account, \`package\` the image name), newest first. 404 for an account no linked installation reaches or an unknown image. ${CONNECTION}`;
export const HOST1_LINKABLE =
  'Installations you connected (installed, or proved you reach through the host’s consent) that this project does not link yet: link them here without installing again.';
export const HOST1_LINK =
  'Links one of your linkable installations to the project after asking the host about it. 404 for an id not in your linkable list; an installation removed on the host meanwhile is forgotten everywhere and refused with 404.';
export const HOST1_DISCONNECT =
  'Unlinks every installation from the project. Installations no other project links any more are uninstalled from their accounts on the host. Apps of the project stop receiving push deployments.';

export const oauthHostStatus = (host: string) =>
  `Whether the project holds an OAuth grant on ${host}, for which account and scopes. Connect with \`GET …/${host}/connect\` (a browser redirect to the host’s consent page; the host returns through \`GET /v1/integrations/${host}/callback\`, state-checked, single use, 10 minutes, then to \`redirect\` with \`${host}=connected\`, or \`denied\`, \`error\`). Tokens are stored encrypted and never returned; repositories used by the project’s apps are copied into the platform’s private deployment organisation on connection and before each build.`;
export const oauthHostDisconnect = (host: string) =>
  `Removes the push webhooks the project registered on ${host}’s repositories, then revokes (where the host allows) and deletes the grant. When the host fails to remove a webhook the answer is 502 and the grant is kept, so no hook is left behind; retry. Succeeds when nothing is connected.`;

export const REPOS = `The repositories the connection reaches, most recently updated first. ${CONNECTION}`;
export const CONTENTS = `A directory of the repository: folders first, then files, each alphabetically. The path after \`/contents/\` may hold slashes; empty for the root. \`ref\` is a branch, tag or commit (default branch when absent). 404 for a path that is not a directory, an unknown ref or repository. ${CONNECTION}`;
export const APP_TEMPLATE = `The repository’s app template, \`.cloudpanel/app.yaml\` (or \`.cloudpanel/app.yml\`; \`.yaml\` wins): \`{ found: false }\`, \`{ found: true, valid: true, path, name, services }\`, or \`{ found: true, valid: false, path, error }\` where \`error\` names the line and the field to fix. \`ref\` as for contents. ${CONNECTION}`;
export const BRANCHES = `Branches of the repository, 100 a page (\`page\` from 1); \`nextPage\` is null on the last page. ${CONNECTION}`;

export const CONNECT_HOST1 =
  'Redirects (302) to the host’s page for installing the platform’s app on an account, with a signed state valid for 10 minutes and single use. The host returns through `GET /v1/integrations/git-host-1/setup`, which links the installation to the project and sends the browser to `redirect` (a relative path; default `/en/controlpanel`, which the panel forwards to the Integrations page of the project the round trip began in) with `git-host-1=connected`. An installation the round trip cannot vouch for (one that existed before it began, or one another user installed) is proved first through the host’s OAuth consent.';
export const SETUP_HOST1 =
  'Public: the host’s post-install redirect. The state is checked and consumed (400 LINK_EXPIRED when invalid, expired or used). The installation is looked up with the host, never taken on the query’s word: one created during the round trip is linked at once; any other is proved through the host’s OAuth consent (a 302 there). Returns to the panel with `git-host-1=connected`, `requested` (an organisation owner must approve) or `error`.';
export const CALLBACK_HOST1 =
  'Public: the host’s OAuth return (the legacy callback and the proof of access). The state is checked and consumed; the code is traded for the user’s token, which lists the installations the user reaches: the one the round trip is about is linked when listed (every one without it). Returns with `git-host-1=connected`, `denied` or `error`.';
export const connectOAuthHost = (host: string) =>
  `Redirects (302) to ${host}’s OAuth consent page${host === 'git-host-3' ? ' (asking for `api` and `read_repository`)' : ''}, with a signed state valid for 10 minutes and single use. The host returns through \`GET /v1/integrations/${host}/callback\`, then to \`redirect\` (a relative path; default the project’s Integrations page) with \`${host}=connected\`.`;
export const callbackOAuthHost = (host: string) =>
  `Public: ${host}’s OAuth return. The state is checked and consumed (400 LINK_EXPIRED otherwise); the code is traded for tokens, stored encrypted, replacing any earlier grant; the repositories the project’s apps use are copied into the deployment organisation and hooked again. Returns with \`${host}=connected\`, \`denied\` or \`error\`.`;
export const WEBHOOK_HOST1 =
  'Public, authenticated by the HMAC-SHA256 signature of the raw body (`X-Hub-Signature-256`) with the app’s webhook secret, checked in constant time before the body is read. A `push` to a branch queues a deployment of every app, in the projects linking the installation, that deploys that repository and branch with auto-deploy on (202 `{ queued }`); an `installation` event with action `deleted` detaches the installation from every project. Other events answer 200 `{ queued: 0 }`. A delivery id already processed answers 200 `{ queued: 0, duplicate: true }`. 401 SIGNATURE_INVALID for a missing or wrong signature.';
export const WEBHOOK_HOST2 =
  'Public, authenticated by the HMAC-SHA256 signature of the raw body (`X-Hub-Signature: sha256=…`) with the secret of the repository webhook named by `hook` (each repository hook has its own). `repo:push` queues a deployment of the project’s apps deploying a pushed branch with auto-deploy on (202 `{ queued }`); anything else answers 200. Replays of a delivery id answer 200 `{ queued: 0, duplicate: true }`. 401 SIGNATURE_INVALID for a missing or wrong signature or an unknown hook.';
export const WEBHOOK_HOST3 =
  'Public, authenticated by the repository webhook’s own token in `X-Gitlab-Token` (SPEC’s brand-neutral `X-<host3>-Token`), compared in constant time; `hook` names the webhook. `Push Hook` queues a deployment of the project’s apps deploying the pushed branch with auto-deploy on (202 `{ queued }`); anything else answers 200. Replays answer 200 `{ queued: 0, duplicate: true }`. 401 SIGNATURE_INVALID for a missing or wrong token or an unknown hook.';
