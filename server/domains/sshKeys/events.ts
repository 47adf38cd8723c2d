import type { EventDeclaration } from '../../platform/domain';

export const sshKeyEvents: readonly EventDeclaration[] = [
  {
    type: 'ssh_key.created',
    description: 'An SSH public key was added to the project, pasted or generated.',
    example: {
      sshKeyId: 'ssh_1q3w5e7r9t1y3u5i',
      name: 'Laptop',
      fingerprint: 'SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s',
      by: 'usr_3n5b7v9c1x2z4a6s',
    },
  },
  {
    type: 'ssh_key.deleted',
    description: 'An SSH key was removed from the project; `stillAuthorisedOn` counts the live servers that keep trusting it.',
    example: {
      sshKeyId: 'ssh_1q3w5e7r9t1y3u5i',
      name: 'Laptop',
      fingerprint: 'SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s',
      stillAuthorisedOn: 1,
      by: 'usr_3n5b7v9c1x2z4a6s',
    },
  },
];
