'use client';

import { APP_TYPES, BUILD_STRATEGIES, type AppType, type BuildStrategy } from '@/db/schema/apps';
import { APP_TYPE_LABELS, BUILD_STRATEGY_LABELS } from '../integrations/TemplatePreview';
import { Button } from '../ui/Button';
import { Icon } from '../ui/Icon';
import { Input } from '../ui/Input';
import { OptionCards } from '../ui/OptionCards';
import { Select } from '../ui/Select';
import wizard from '../ui/Wizard.module.css';
import styles from './apps.module.css';

export interface EnvVarDraft {
  /** Stable across edits, so a row keeps its focus when one above it goes. */
  id: number;
  key: string;
  value: string;
  secret: boolean;
}

/** The one service of an app made without a template, as the form holds it. */
export interface ServiceDraft {
  name: string;
  appType: AppType;
  sourceDir: string;
  buildStrategy: BuildStrategy;
  buildCommand: string;
  runCommand: string;
  outputDir: string;
  /** Text as typed; empty for the default. */
  internalPort: string;
  envVars: EnvVarDraft[];
}

export const NEW_SERVICE: ServiceDraft = {
  name: 'web',
  appType: 'WEB',
  sourceDir: '.',
  buildStrategy: 'BUILDPACK',
  buildCommand: '',
  runCommand: '',
  outputDir: '',
  internalPort: '',
  envVars: [],
};

const APP_TYPES_EXPLAINED: Record<AppType, string> = {
  WEB: 'Serves HTTP on a public address.',
  WORKER: 'Runs in the background, with no public port.',
  STATIC: 'Built once; its files are served as they are.',
};

/** Field errors of the service, keyed as the API names them (`service.runCommand`, `service.envVars.0.key`). */
export type FieldErrors = Record<string, string>;

export function ServiceFields({ draft, onChange, errors }: { draft: ServiceDraft; onChange: (draft: ServiceDraft) => void; errors: FieldErrors }) {
  const set = <K extends keyof ServiceDraft>(field: K, value: ServiceDraft[K]) => onChange({ ...draft, [field]: value });
  const error = (field: string) => errors[`service.${field}`];

  return (
    <div className="stack-lg">
      <OptionCards
        label="Service type"
        name="appType"
        layout="wide"
        value={draft.appType}
        onChange={(appType) => set('appType', appType)}
        options={APP_TYPES.map((type) => ({
          value: type,
          title: APP_TYPE_LABELS[type],
          body: <span className={wizard.optionMeta}>{APP_TYPES_EXPLAINED[type]}</span>,
        }))}
      />
      <div className="form-grid">
        <Input
          label="Service name"
          name="serviceName"
          value={draft.name}
          maxLength={40}
          autoComplete="off"
          spellCheck={false}
          error={error('name')}
          onChange={(event) => set('name', event.target.value)}
        />
        <Input
          label="Source folder"
          name="sourceDir"
          value={draft.sourceDir}
          autoComplete="off"
          spellCheck={false}
          hint="From the repository root; . for the root itself."
          error={error('sourceDir')}
          onChange={(event) => set('sourceDir', event.target.value)}
        />
        <Select
          label="Build strategy"
          name="buildStrategy"
          value={draft.buildStrategy}
          onChange={(event) => set('buildStrategy', event.target.value as BuildStrategy)}
          options={BUILD_STRATEGIES.map((strategy) => ({ value: strategy, label: BUILD_STRATEGY_LABELS[strategy] }))}
          hint={draft.buildStrategy === 'DOCKERFILE' ? 'Builds the Dockerfile of the source folder.' : 'Detects the language from the source folder’s files.'}
        />
      </div>
      <div className="form-grid">
        <Input
          label="Build command"
          name="buildCommand"
          optional
          value={draft.buildCommand}
          autoComplete="off"
          spellCheck={false}
          placeholder="npm run build"
          className="mono"
          error={error('buildCommand')}
          onChange={(event) => set('buildCommand', event.target.value)}
        />
        {draft.appType === 'STATIC' ? (
          <Input
            label="Output folder"
            name="outputDir"
            value={draft.outputDir}
            autoComplete="off"
            spellCheck={false}
            placeholder="dist"
            hint="Where the build writes the site, from the source folder."
            error={error('outputDir')}
            onChange={(event) => set('outputDir', event.target.value)}
          />
        ) : (
          <>
            <Input
              label="Run command"
              name="runCommand"
              optional
              value={draft.runCommand}
              autoComplete="off"
              spellCheck={false}
              placeholder="npm start"
              className="mono"
              error={error('runCommand')}
              onChange={(event) => set('runCommand', event.target.value)}
            />
            <Input
              label="Port the process listens on"
              name="internalPort"
              optional
              inputMode="numeric"
              value={draft.internalPort}
              autoComplete="off"
              placeholder="8080"
              error={error('internalPort')}
              onChange={(event) => set('internalPort', event.target.value)}
            />
          </>
        )}
      </div>
      <EnvVarsEditor variables={draft.envVars} onChange={(envVars) => set('envVars', envVars)} errors={errors} />
    </div>
  );
}

function EnvVarsEditor({ variables, onChange, errors }: { variables: EnvVarDraft[]; onChange: (variables: EnvVarDraft[]) => void; errors: FieldErrors }) {
  const update = (id: number, change: Partial<EnvVarDraft>) =>
    onChange(variables.map((variable) => (variable.id === id ? { ...variable, ...change } : variable)));
  const nextId = variables.reduce((highest, variable) => Math.max(highest, variable.id), 0) + 1;
  const listError = errors['service.envVars'];

  return (
    <fieldset className={styles.envVars}>
      <legend className="field-label">Environment variables</legend>
      <p className="field-hint">Given to the build and to the running service. Secret values are stored encrypted and never shown again.</p>
      {variables.length > 0 ? (
        <div className={styles.envRows}>
          {variables.map((variable, index) => {
            const rowError = errors[`service.envVars.${index}.key`] ?? errors[`service.envVars.${index}.value`];
            return (
              <div key={variable.id} className={styles.envRow}>
                <input
                  className="input mono"
                  aria-label={`Name of variable ${index + 1}`}
                  placeholder="NAME"
                  value={variable.key}
                  autoComplete="off"
                  spellCheck={false}
                  aria-invalid={rowError ? true : undefined}
                  onChange={(event) => update(variable.id, { key: event.target.value.toUpperCase() })}
                />
                <input
                  className="input mono"
                  aria-label={`Value of variable ${index + 1}`}
                  placeholder="value"
                  type={variable.secret ? 'password' : 'text'}
                  value={variable.value}
                  autoComplete="off"
                  spellCheck={false}
                  onChange={(event) => update(variable.id, { value: event.target.value })}
                />
                <label className={`checkbox ${styles.envSecret}`}>
                  <input type="checkbox" checked={variable.secret} onChange={(event) => update(variable.id, { secret: event.target.checked })} />
                  Secret
                </label>
                <Button
                  size="sm"
                  variant="ghost"
                  aria-label={`Remove variable ${variable.key || index + 1}`}
                  title="Remove"
                  onClick={() => onChange(variables.filter((other) => other.id !== variable.id))}
                >
                  <Icon name="trash" size={14} />
                </Button>
                {rowError ? (
                  <p className={`field-error ${styles.envError}`} role="alert">
                    {rowError}
                  </p>
                ) : null}
              </div>
            );
          })}
        </div>
      ) : null}
      {listError ? (
        <p className="field-error" role="alert">
          {listError}
        </p>
      ) : null}
      <div>
        <Button size="sm" onClick={() => onChange([...variables, { id: nextId, key: '', value: '', secret: false }])}>
          <Icon name="plus" size={14} /> Add variable
        </Button>
      </div>
    </fieldset>
  );
}
