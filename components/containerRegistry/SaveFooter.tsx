import { Button } from '../ui/Button';
import { SubmitButton } from '../ui/SubmitButton';
import styles from './containerRegistry.module.css';

/** The footer of a settings form: whether it is saved, Discard while it is not, and its save button. */
export function SaveFooter({ dirty, saving, label, onDiscard }: { dirty: boolean; saving: boolean; label: string; onDiscard?: () => void }) {
  return (
    <div className={styles.actionsRow}>
      <span className="muted">{dirty ? 'Unsaved changes' : 'Saved'}</span>
      <span className="row">
        {dirty && onDiscard ? (
          <Button variant="ghost" onClick={onDiscard}>
            Discard
          </Button>
        ) : null}
        <SubmitButton variant="primary" loading={saving} disabled={!dirty}>
          {label}
        </SubmitButton>
      </span>
    </div>
  );
}
