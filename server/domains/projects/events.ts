import type { EventDeclaration } from '../../platform/domain';

export const projectEvents: readonly EventDeclaration[] = [
  {
    type: 'project.created',
    description: 'A project was created; its creator is its owner.',
    example: { projectId: 'prj_8f2k1m0q9z7x6c5v', name: 'Shop', createdBy: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'project.renamed',
    description: 'The project was renamed (its slug follows the new name).',
    example: { projectId: 'prj_8f2k1m0q9z7x6c5v', from: 'Shop', to: 'Shop (EU)', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'project.billing_email_changed',
    description: "The project's billing email was set, changed or cleared; the address itself is not in the event.",
    example: { projectId: 'prj_8f2k1m0q9z7x6c5v', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
  {
    type: 'project.deleted',
    description: 'The project was deleted; it is recorded outside the project, so its own webhook endpoints (deleted with it) never receive it.',
    example: { projectId: 'prj_8f2k1m0q9z7x6c5v', name: 'Shop', by: 'usr_3n5b7v9c1x2z4a6s' },
  },
];
