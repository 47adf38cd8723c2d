import type { EventDeclaration } from '../../platform/domain';

const app = { appId: 'app_7h2k9m4p1q8r3s6t', name: 'hello-node' };
const deployment = { ...app, deploymentId: 'dpl_5v8b1n4m7c0x3z6a', branch: 'main', commitSha: '3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c1e3b5d7f9a' };
const by = 'usr_3n5b7v9c1x2z4a6s';

export const appsEvents: readonly EventDeclaration[] = [
  {
    type: 'app.created',
    description: 'An app was bought: it deploys a branch of a connected repository; its first deployment is queued.',
    example: { ...app, gitHost: 'git-host-1', repository: 'demo-user/hello-node', branch: 'main', region: 'nyc', services: ['web'], monthly: 1200, by },
  },
  {
    type: 'app.updated',
    description: "An app's deployed branch or auto-deploy setting changed.",
    example: { ...app, changes: { branch: { from: 'main', to: 'release' }, autoDeploy: { from: true, to: false } }, by },
  },
  {
    type: 'app.deleted',
    description: 'An app was deleted: billing stopped and its queued or running builds ended FAILED.',
    example: { ...app, by },
  },
  {
    type: 'app.suspended',
    description: "An app's deployments are refused: an invoice stayed unpaid past its grace period.",
    example: { ...app, reason: 'invoice_unpaid' },
  },
  {
    type: 'app.resumed',
    description: 'A suspended app can be deployed again now that the invoice is paid.',
    example: { ...app, reason: 'invoice_paid' },
  },
  {
    type: 'deployment.queued',
    description: 'A deployment of an app was queued: on creation, by hand, or by a push to its branch.',
    example: { ...deployment, trigger: 'PUSH', commitMessage: 'Fix the login redirect', by: null },
  },
  {
    type: 'deployment.live',
    description: 'A deployment was built and released and now serves the app; the one before it is SUPERSEDED.',
    example: { ...deployment, supersededDeploymentId: 'dpl_1q3w5e7r9t2y4u6i' },
  },
  {
    type: 'deployment.failed',
    description: 'A deployment did not go live; the reason says why, and the live deployment (if any) keeps serving.',
    example: { ...deployment, reason: 'sourceDir "api" does not exist at 3f9a1c7' },
  },
];
