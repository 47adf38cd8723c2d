'use client';

import { useId } from 'react';
import { corsRulesSchema } from '@/server/domains/objectStorage/schema';
import { Button } from '../ui/Button';
import { Icon } from '../ui/Icon';
import { Input } from '../ui/Input';
import type { CorsRule } from './storage';
import styles from './objectStorage.module.css';

const CORS_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'] as const;
type CorsMethod = (typeof CORS_METHODS)[number];

/** A rule as typed: lists are comma-separated text until they are saved. */
export interface CorsDraft {
  key: number;
  origins: string;
  methods: readonly CorsMethod[];
  headers: string;
  exposeHeaders: string;
  maxAge: string;
}

let nextKey = 0;

function newDraft(): CorsDraft {
  nextKey += 1;
  return { key: nextKey, origins: '', methods: ['GET'], headers: '', exposeHeaders: '', maxAge: '' };
}

export function draftsOf(rules: readonly CorsRule[]): CorsDraft[] {
  return rules.map((rule) => {
    nextKey += 1;
    return {
      key: nextKey,
      origins: rule.allowedOrigins.join(', '),
      methods: rule.allowedMethods,
      headers: (rule.allowedHeaders ?? []).join(', '),
      exposeHeaders: (rule.exposeHeaders ?? []).join(', '),
      maxAge: rule.maxAgeSeconds === undefined ? '' : String(rule.maxAgeSeconds),
    };
  });
}

function list(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((part) => part.trim())
    .filter(Boolean);
}

/** Field errors are keyed `<rule index>.<field>`, the path the API's schema reports them under. */
export type CorsErrors = Record<string, string>;

/** The rules the drafts make, checked with the API's own schema so a refusal is seen before saving. */
export function rulesOf(drafts: readonly CorsDraft[]): { rules: CorsRule[]; errors: null } | { rules: null; errors: CorsErrors } {
  const candidate = drafts.map((draft) => {
    const headers = list(draft.headers);
    const exposeHeaders = list(draft.exposeHeaders);
    const maxAge = draft.maxAge.trim();
    return {
      allowedOrigins: list(draft.origins),
      allowedMethods: [...draft.methods],
      ...(headers.length > 0 ? { allowedHeaders: headers } : {}),
      ...(exposeHeaders.length > 0 ? { exposeHeaders } : {}),
      ...(maxAge === '' ? {} : { maxAgeSeconds: Number(maxAge) }),
    };
  });
  const parsed = corsRulesSchema.safeParse(candidate);
  if (parsed.success) return { rules: parsed.data, errors: null };
  const errors: CorsErrors = {};
  for (const issue of parsed.error.issues) {
    const [index, field] = issue.path;
    const key = `${String(index)}.${String(field)}`;
    errors[key] ??= issue.message;
  }
  return { rules: null, errors };
}

export function CorsRulesEditor({
  drafts,
  onChange,
  errors = {},
  disabled = false,
}: {
  drafts: readonly CorsDraft[];
  onChange: (next: CorsDraft[]) => void;
  errors?: CorsErrors;
  disabled?: boolean;
}) {
  function update(key: number, patch: Partial<CorsDraft>) {
    onChange(drafts.map((draft) => (draft.key === key ? { ...draft, ...patch } : draft)));
  }
  return (
    <div className={styles.rules}>
      {drafts.length === 0 ? <p className="muted">No CORS rules: browsers on other origins cannot call the bucket.</p> : null}
      {drafts.map((draft, index) => (
        <RuleEditor
          key={draft.key}
          index={index}
          draft={draft}
          errors={errors}
          disabled={disabled}
          onChange={(patch) => update(draft.key, patch)}
          onRemove={() => onChange(drafts.filter((other) => other.key !== draft.key))}
        />
      ))}
      <div>
        <Button size="sm" onClick={() => onChange([...drafts, newDraft()])} disabled={disabled}>
          <Icon name="plus" size={14} /> Add CORS rule
        </Button>
      </div>
    </div>
  );
}

function RuleEditor({
  index,
  draft,
  errors,
  disabled,
  onChange,
  onRemove,
}: {
  index: number;
  draft: CorsDraft;
  errors: CorsErrors;
  disabled: boolean;
  onChange: (patch: Partial<CorsDraft>) => void;
  onRemove: () => void;
}) {
  const methodsErrorId = useId();
  const number = index + 1;
  const error = (field: string) => errors[`${index}.${field}`];
  return (
    <div className={styles.rule} role="group" aria-label={`CORS rule ${number}`}>
      <div className={styles.ruleHeader}>
        <span>Rule {number}</span>
        <Button size="sm" variant="danger-ghost" onClick={onRemove} disabled={disabled} aria-label={`Remove CORS rule ${number}`}>
          <Icon name="trash" size={14} /> Remove
        </Button>
      </div>
      <Input
        label="Allowed origins"
        value={draft.origins}
        onChange={(event) => onChange({ origins: event.target.value })}
        placeholder="https://app.example.com, https://*.example.com"
        hint="Comma-separated; * allows any origin."
        error={error('allowedOrigins')}
        disabled={disabled}
        spellCheck={false}
        autoComplete="off"
      />
      <fieldset className={styles.methods} aria-describedby={error('allowedMethods') ? methodsErrorId : undefined} disabled={disabled}>
        <legend className="field-label">Allowed methods</legend>
        {CORS_METHODS.map((method) => (
          <label key={method} className={styles.check}>
            <input
              type="checkbox"
              checked={draft.methods.includes(method)}
              onChange={(event) =>
                onChange({
                  methods: event.target.checked
                    ? CORS_METHODS.filter((m) => m === method || draft.methods.includes(m))
                    : draft.methods.filter((m) => m !== method),
                })
              }
            />
            {method}
          </label>
        ))}
      </fieldset>
      {error('allowedMethods') ? (
        <p id={methodsErrorId} className="field-error" role="alert">
          {error('allowedMethods')}
        </p>
      ) : null}
      <div className={styles.ruleGrid}>
        <Input
          label="Allowed headers"
          optional
          value={draft.headers}
          onChange={(event) => onChange({ headers: event.target.value })}
          placeholder="Content-Type, *"
          error={error('allowedHeaders')}
          disabled={disabled}
          spellCheck={false}
          autoComplete="off"
        />
        <Input
          label="Expose headers"
          optional
          value={draft.exposeHeaders}
          onChange={(event) => onChange({ exposeHeaders: event.target.value })}
          placeholder="ETag"
          error={error('exposeHeaders')}
          disabled={disabled}
          spellCheck={false}
          autoComplete="off"
        />
      </div>
      <Input
        label="Max age (seconds)"
        optional
        inputMode="numeric"
        value={draft.maxAge}
        onChange={(event) => onChange({ maxAge: event.target.value })}
        placeholder="3600"
        hint="How long browsers may cache the preflight answer, up to 86400."
        error={error('maxAgeSeconds')}
        disabled={disabled}
        style={{ maxWidth: 200 }}
      />
    </div>
  );
}
