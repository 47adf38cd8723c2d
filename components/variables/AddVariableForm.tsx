'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { createVariableInput, VARIABLE_VALUE_MAX, type Environment } from '@/server/domains/variables/schema';
import { useZodForm } from '../forms/useZodForm';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Card } from '../ui/Card';
import { Input } from '../ui/Input';
import { Select } from '../ui/Select';
import { SubmitButton } from '../ui/SubmitButton';
import { useToast } from '../ui/Toast';
import { ENVIRONMENT_LABELS, ENVIRONMENT_OPTIONS } from '../configuration/environments';
import styles from './variables.module.css';

export function AddVariableForm({ projectId, environment: initialEnvironment }: { projectId: string; environment: Environment }) {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const form = useZodForm(createVariableInput);
  const create = useMutation(trpc.variables.create.mutationOptions());
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [description, setDescription] = useState('');
  const [environment, setEnvironment] = useState<Environment>(initialEnvironment);
  const valueId = useId();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = form.parse({ name, value, environment, description });
    if (!input) return;
    try {
      const created = await create.mutateAsync({ projectId, ...input });
      await queryClient.invalidateQueries({ queryKey: trpc.variables.pathKey() });
      setName('');
      setValue('');
      setDescription('');
      toast.success(`${created.name} was added to ${ENVIRONMENT_LABELS[created.environment]}`);
    } catch (error) {
      form.fail(error);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Add a variable">
      <Card
        title="Add a variable"
        description="Names are upper-case letters, digits and underscores, starting with a letter, as environment variables are named."
        footer={
          <>
            <span className="muted">Values are stored and shown in plain text.</span>
            <SubmitButton variant="primary" loading={create.isPending}>
              Add variable
            </SubmitButton>
          </>
        }
      >
        <div className="form">
          {form.formError ? <Alert tone="danger">{form.formError}</Alert> : null}
          <div className={styles.addGrid}>
            <Input
              label="Name"
              name="name"
              placeholder="API_URL"
              className={styles.mono}
              maxLength={100}
              autoComplete="off"
              spellCheck={false}
              value={name}
              onChange={(event) => setName(event.target.value.toUpperCase())}
              error={form.errors.name}
            />
            <Select
              label="Environment"
              value={environment}
              onChange={(event) => setEnvironment(event.target.value as Environment)}
              options={ENVIRONMENT_OPTIONS}
              error={form.errors.environment}
            />
            <div className={`field ${styles.wide}`}>
              <label className="field-label" htmlFor={valueId}>
                Value
              </label>
              <textarea
                id={valueId}
                name="value"
                className={styles.textarea}
                rows={2}
                placeholder="https://api.example.com"
                spellCheck={false}
                maxLength={VARIABLE_VALUE_MAX}
                value={value}
                onChange={(event) => setValue(event.target.value)}
                aria-invalid={form.errors.value ? true : undefined}
              />
              {form.errors.value ? (
                <p className="field-error" role="alert">
                  {form.errors.value}
                </p>
              ) : null}
            </div>
            <div className={styles.wide}>
              <Input
                label="Description"
                optional
                name="description"
                placeholder="What it configures"
                maxLength={500}
                value={description}
                onChange={(event) => setDescription(event.target.value)}
                error={form.errors.description}
              />
            </div>
          </div>
        </div>
      </Card>
    </form>
  );
}
