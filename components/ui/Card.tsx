import type { ReactNode } from 'react';

export function Card({
  title,
  description,
  actions,
  footer,
  tone,
  flush = false,
  children,
  className,
  'aria-label': ariaLabel,
}: {
  title?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  footer?: ReactNode;
  tone?: 'danger';
  /** Lets a table reach the card's edges. */
  flush?: boolean;
  children?: ReactNode;
  className?: string;
  'aria-label'?: string;
}) {
  const classes = ['card', tone === 'danger' ? 'card-danger' : '', flush ? 'card-flush' : '', className ?? ''].filter(Boolean).join(' ');
  return (
    <section className={classes} aria-label={ariaLabel}>
      {title || actions ? (
        <header className={children === undefined ? 'card-header card-header-alone' : 'card-header'}>
          <div className="card-header-text">
            {title ? <h2>{title}</h2> : null}
            {description ? <p className="card-description">{description}</p> : null}
          </div>
          {actions ? <div className="row">{actions}</div> : null}
        </header>
      ) : null}
      {children !== undefined ? <div className="card-body">{children}</div> : null}
      {footer ? <footer className="card-footer">{footer}</footer> : null}
    </section>
  );
}
