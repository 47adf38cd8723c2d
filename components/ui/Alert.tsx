import type { ReactNode } from 'react';
import { Icon, type IconName } from './Icon';

export type AlertTone = 'danger' | 'success' | 'warning' | 'info';

const ICONS: Record<AlertTone, IconName> = { danger: 'alert', success: 'checkCircle', warning: 'alert', info: 'info' };

export function Alert({ tone, title, children, action }: { tone: AlertTone; title?: ReactNode; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className={`alert alert-${tone}`} role={tone === 'danger' ? 'alert' : 'status'}>
      <Icon name={ICONS[tone]} className="alert-icon" />
      <div className="alert-body">
        {title ? <p className="alert-title">{title}</p> : null}
        {children ? <div>{children}</div> : null}
      </div>
      {action}
    </div>
  );
}
