'use client';

import { formatDate } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, type Project } from '../projects/ProjectContext';
import { Alert } from '../ui/Alert';
import { ButtonLink } from '../ui/Button';

/** The server's reason is a phrase ("Unpaid invoice for 2026-10"); more text follows it here. */
export function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * The project's billing state wherever its paid resources are shown: blocked (an invoice is unpaid,
 * nothing new can be bought) or suspended (unpaid past the grace period, servers powered off).
 */
export function ProjectBillingAlert({ project }: { project: Project }) {
  if (!project.blockedAt && !project.suspendedAt) return null;
  const reason = sentence(project.blockedReason ?? 'An invoice is unpaid');
  const canPay = hasRole(project, 'admin');
  const action = canPay ? (
    <ButtonLink href={projectPath(project.id, 'billing')} variant={project.suspendedAt ? 'danger' : 'secondary'} size="sm">
      Pay the invoice
    </ButtonLink>
  ) : null;
  const whoPays = canPay ? '' : ' Ask an owner or admin to pay it.';
  if (project.suspendedAt) {
    return (
      <Alert tone="danger" title="This project is suspended" action={action}>
        {reason} Since {formatDate(project.suspendedAt)} its servers are powered off and cannot be started. Nothing has been deleted: paying the invoice powers
        them back on.{whoPays}
      </Alert>
    );
  }
  return (
    <Alert tone="warning" title="This project is blocked" action={action}>
      {reason} Since {formatDate(project.blockedAt!)} no new paid resources can be created. If it stays unpaid, its servers will be powered off.{whoPays}
    </Alert>
  );
}
