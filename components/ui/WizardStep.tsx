import { useId, type ReactNode } from 'react';
import wizard from './Wizard.module.css';

/** One numbered section of a create wizard, labelled by its heading. */
export function WizardStep({ number, title, description, children }: { number: number; title: string; description: ReactNode; children: ReactNode }) {
  const headingId = useId();
  return (
    <section className={wizard.step} aria-labelledby={headingId}>
      <h2 id={headingId} className={wizard.stepHeader}>
        <span className={wizard.stepNumber} aria-hidden>
          {number}
        </span>
        {title}
      </h2>
      <p className={wizard.stepDescription}>{description}</p>
      {children}
    </section>
  );
}
