import { Badge } from '../ui/Badge';
import styles from './integrations.module.css';

interface EnvVarKey {
  key: string;
  secret: boolean;
}

/** The names of a service's environment variables, secrets marked; `titleOf` says what hovering one tells. */
export function EnvVarKeys<Variable extends EnvVarKey>({
  variables,
  titleOf,
}: {
  variables: readonly Variable[];
  titleOf: (variable: Variable) => string | undefined;
}) {
  return (
    <span className={styles.envKeys}>
      {variables.map((variable) => (
        <Badge key={variable.key} mono tone={variable.secret ? 'warning' : 'neutral'} title={titleOf(variable)}>
          {variable.key}
          {variable.secret ? ' · secret' : ''}
        </Badge>
      ))}
    </span>
  );
}
