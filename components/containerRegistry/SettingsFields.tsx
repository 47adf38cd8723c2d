'use client';

import type { ReactNode } from 'react';
import { createRegistryInput, ENCRYPTION_TYPES, KEEP_LAST_N, TAG_MUTABILITIES, UNTAGGED_DAYS } from '@/server/domains/containerRegistry/schema';
import { Input } from '../ui/Input';
import { OptionCards } from '../ui/OptionCards';
import { checkWhole, ENCRYPTION_LABELS, MUTABILITY_LABELS, type RegistryView } from './registry';
import wizard from '../ui/Wizard.module.css';
import styles from './containerRegistry.module.css';

type Mutability = (typeof TAG_MUTABILITIES)[number];
type Encryption = (typeof ENCRYPTION_TYPES)[number];

/** A registry's changeable settings as the forms hold them: numbers as typed, checked on the way out. */
export interface SettingsDraft {
  imageTagMutability: Mutability;
  scanOnPush: boolean;
  encryptionType: Encryption;
  kmsKeyArn: string;
  lifecycleEnabled: boolean;
  lifecycleKeepLastN: string;
  lifecycleUntaggedAfterDays: string;
}

export interface SettingsValues {
  imageTagMutability: Mutability;
  scanOnPush: boolean;
  encryptionType: Encryption;
  kmsKeyArn: string | null;
  lifecycleEnabled: boolean;
  lifecycleKeepLastN: number;
  lifecycleUntaggedAfterDays: number;
}

export type SettingsField = 'kmsKeyArn' | 'lifecycleKeepLastN' | 'lifecycleUntaggedAfterDays';
export type SettingsErrors = Partial<Record<SettingsField, string>>;

/** The API's defaults for a new registry. */
export const DEFAULT_SETTINGS: SettingsDraft = {
  imageTagMutability: 'MUTABLE',
  scanOnPush: true,
  encryptionType: 'AES256',
  kmsKeyArn: '',
  lifecycleEnabled: true,
  lifecycleKeepLastN: '10',
  lifecycleUntaggedAfterDays: '7',
};

export function draftOf(registry: RegistryView): SettingsDraft {
  return {
    imageTagMutability: registry.imageTagMutability,
    scanOnPush: registry.scanOnPush,
    encryptionType: registry.encryptionType,
    kmsKeyArn: registry.kmsKeyArn ?? '',
    lifecycleEnabled: registry.lifecycleEnabled,
    lifecycleKeepLastN: String(registry.lifecycleKeepLastN),
    lifecycleUntaggedAfterDays: String(registry.lifecycleUntaggedAfterDays),
  };
}

function kmsError(draft: SettingsDraft): string | undefined {
  if (draft.encryptionType !== 'KMS') return undefined;
  if (draft.kmsKeyArn.trim() === '') return 'A KMS key ARN is required for KMS encryption';
  const parsed = createRegistryInput.shape.kmsKeyArn.safeParse(draft.kmsKeyArn.trim());
  return parsed.success ? undefined : parsed.error.issues[0]?.message.replace(/^kmsKeyArn/, 'The key');
}

/** What is wrong with a draft, field by field; the KMS key is checked only for KMS. */
export function settingsErrors(draft: SettingsDraft): SettingsErrors {
  const errors: SettingsErrors = {
    kmsKeyArn: kmsError(draft),
    lifecycleKeepLastN: checkWhole(draft.lifecycleKeepLastN, KEEP_LAST_N, 'images'),
    lifecycleUntaggedAfterDays: checkWhole(draft.lifecycleUntaggedAfterDays, UNTAGGED_DAYS, 'days'),
  };
  return Object.fromEntries(Object.entries(errors).filter(([, message]) => message !== undefined));
}

/** The error to show while a field is typed in: an empty key ARN waits for the submit to be called missing. */
export function liveSettingsErrors(previous: SettingsErrors, next: SettingsDraft, field: SettingsField | undefined): SettingsErrors {
  if (!field) return previous;
  const message = field === 'kmsKeyArn' && next.kmsKeyArn.trim() === '' ? undefined : settingsErrors(next)[field];
  const { [field]: _old, ...rest } = previous;
  return message ? { ...rest, [field]: message } : rest;
}

export function settingsValues(draft: SettingsDraft): SettingsValues {
  return {
    imageTagMutability: draft.imageTagMutability,
    scanOnPush: draft.scanOnPush,
    encryptionType: draft.encryptionType,
    kmsKeyArn: draft.encryptionType === 'KMS' ? draft.kmsKeyArn.trim() : null,
    lifecycleEnabled: draft.lifecycleEnabled,
    lifecycleKeepLastN: Number(draft.lifecycleKeepLastN),
    lifecycleUntaggedAfterDays: Number(draft.lifecycleUntaggedAfterDays),
  };
}

export function Switch({
  name,
  title,
  meta,
  checked,
  disabled = false,
  onChange,
}: {
  name: string;
  title: string;
  meta: ReactNode;
  checked: boolean;
  disabled?: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <label className={`${wizard.option} ${wizard.toggle}`}>
      <input type="checkbox" role="switch" name={name} checked={checked} disabled={disabled} onChange={(event) => onChange(event.target.checked)} />
      <span className={wizard.optionBody}>
        <span className={wizard.optionTitle}>{title}</span>
        <span className={wizard.optionMeta}>{meta}</span>
      </span>
    </label>
  );
}

interface FieldsProps {
  draft: SettingsDraft;
  errors: SettingsErrors;
  disabled?: boolean;
  onChange: (next: SettingsDraft, field?: SettingsField) => void;
}

export function MutabilityChoice({ draft, disabled, onChange }: FieldsProps) {
  return (
    <OptionCards
      label="Tag mutability"
      name="imageTagMutability"
      layout="wider"
      value={draft.imageTagMutability}
      disabled={disabled}
      onChange={(imageTagMutability) => onChange({ ...draft, imageTagMutability })}
      options={TAG_MUTABILITIES.map((value) => ({
        value,
        title: MUTABILITY_LABELS[value].label,
        body: <span className={wizard.optionMeta}>{MUTABILITY_LABELS[value].explained}</span>,
      }))}
    />
  );
}

export function ScanSwitch({ draft, disabled, onChange }: FieldsProps) {
  return (
    <Switch
      name="scanOnPush"
      title="Scan on push"
      checked={draft.scanOnPush}
      disabled={disabled}
      onChange={(scanOnPush) => onChange({ ...draft, scanOnPush })}
      meta="Every pushed image is scanned for known vulnerabilities; the findings are listed with the image."
    />
  );
}

export function EncryptionChoice({ draft, errors, disabled, onChange }: FieldsProps) {
  return (
    <div className="stack">
      <OptionCards
        label="Encryption"
        name="encryptionType"
        layout="wider"
        value={draft.encryptionType}
        disabled={disabled}
        onChange={(encryptionType) => onChange({ ...draft, encryptionType }, 'kmsKeyArn')}
        options={ENCRYPTION_TYPES.map((value) => ({
          value,
          title: ENCRYPTION_LABELS[value].label,
          body: <span className={wizard.optionMeta}>{ENCRYPTION_LABELS[value].explained}</span>,
        }))}
      />
      {draft.encryptionType === 'KMS' ? (
        <Input
          label="KMS key ARN"
          name="kmsKeyArn"
          value={draft.kmsKeyArn}
          disabled={disabled}
          onChange={(event) => onChange({ ...draft, kmsKeyArn: event.target.value }, 'kmsKeyArn')}
          placeholder="arn:aws:kms:eu-central-1:123456789012:key/…"
          autoComplete="off"
          spellCheck={false}
          maxLength={2048}
          required
          className="mono"
          hint="A key or alias ARN: arn:aws:kms:<region>:<account>:key/<id> or …:alias/<name>."
          error={errors.kmsKeyArn}
        />
      ) : null}
    </div>
  );
}

export function LifecycleFields({ draft, errors, disabled, onChange }: FieldsProps) {
  return (
    <div className="stack">
      <Switch
        name="lifecycleEnabled"
        title="Retention policy"
        checked={draft.lifecycleEnabled}
        disabled={disabled}
        onChange={(lifecycleEnabled) => onChange({ ...draft, lifecycleEnabled })}
        meta="Old images are deleted every hour by the rules below, so storage does not grow with every build."
      />
      <div className={styles.numberRow}>
        <Input
          label="Keep the last"
          name="lifecycleKeepLastN"
          type="number"
          inputMode="numeric"
          min={KEEP_LAST_N.min}
          max={KEEP_LAST_N.max}
          step={1}
          value={draft.lifecycleKeepLastN}
          disabled={disabled || !draft.lifecycleEnabled}
          onChange={(event) => onChange({ ...draft, lifecycleKeepLastN: event.target.value }, 'lifecycleKeepLastN')}
          hint={`tagged images (${KEEP_LAST_N.min}–${KEEP_LAST_N.max})`}
          error={errors.lifecycleKeepLastN}
        />
        <Input
          label="Delete untagged images after"
          name="lifecycleUntaggedAfterDays"
          type="number"
          inputMode="numeric"
          min={UNTAGGED_DAYS.min}
          max={UNTAGGED_DAYS.max}
          step={1}
          value={draft.lifecycleUntaggedAfterDays}
          disabled={disabled || !draft.lifecycleEnabled}
          onChange={(event) => onChange({ ...draft, lifecycleUntaggedAfterDays: event.target.value }, 'lifecycleUntaggedAfterDays')}
          hint={`days (${UNTAGGED_DAYS.min}–${UNTAGGED_DAYS.max})`}
          error={errors.lifecycleUntaggedAfterDays}
        />
      </div>
    </div>
  );
}
