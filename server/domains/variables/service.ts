import { aliasedTable, and, asc, count, eq, inArray, type SQL } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import { isUniqueViolation } from '../../../db/errors';
import { users, variables } from '../../../db/schema';
import { newId } from '../../../db/schema/ids';
import { effectiveConfiguration, environmentSchema, type Environment } from '../../platform/configuration';
import { AppError, validationError } from '../../platform/errors';
import { lockProjectResource } from '../../platform/projectLocks';
import { emit } from '../../platform/events';
import { parseDotenv, type DotenvProblem } from './dotenv';
import {
  VARIABLE_VALUE_MAX,
  VARIABLES_PER_PROJECT,
  type CreateVariableInput,
  type EffectiveVariable,
  type ImportVariablesInput,
  type UpdateVariableInput,
  type Variable,
  type VariablesImport,
} from './schema';

/** A variable as deployments consume it. */
export interface AppliedVariable {
  name: string;
  value: string;
  /** Where the entry comes from: the environment asked for, or `default`. */
  environment: Environment;
}

const UNIQUE_NAME_INDEX = 'variables_project_environment_name_key';
/** At most this many problems of an imported file are reported; a file wrong everywhere needs no thousand lines of answer. */
const IMPORT_PROBLEMS_REPORTED = 50;

const creators = aliasedTable(users, 'variable_creator');
const updaters = aliasedTable(users, 'variable_updater');

/** The project's variables, by name then environment; only those of `environment` when given. */
export async function listVariables(projectId: string, environment?: Environment): Promise<Variable[]> {
  const db = await getDb();
  return selectVariables(db, and(eq(variables.projectId, projectId), environment ? eq(variables.environment, environment) : undefined));
}

export async function getVariable(projectId: string, variableId: string): Promise<Variable> {
  const db = await getDb();
  const [variable] = await selectVariables(db, and(eq(variables.projectId, projectId), eq(variables.id, variableId)));
  if (!variable) throw notFound();
  return variable;
}

/** The set that applies in `environment`: its own entries over the `default` ones of the same name, marked `inherited`. */
export async function listEffectiveVariables(projectId: string, environment: Environment): Promise<EffectiveVariable[]> {
  const db = await getDb();
  const candidates = await selectVariables(db, and(eq(variables.projectId, projectId), inArray(variables.environment, [...new Set(['default', environment])])));
  return effectiveConfiguration(candidates, environment).map((variable) => ({ ...variable, inherited: variable.environment !== environment }));
}

/** What a deployment in `environment` gets: name, value and where each entry comes from, sorted by name. */
export async function effectiveVariables(projectId: string, environment: Environment): Promise<AppliedVariable[]> {
  const db = await getDb();
  const rows = await db
    .select({ name: variables.name, value: variables.value, environment: variables.environment })
    .from(variables)
    .where(and(eq(variables.projectId, projectId), inArray(variables.environment, [...new Set(['default', environment])])));
  const entries = rows.map((row) => ({ ...row, environment: environmentSchema.parse(row.environment) }));
  return effectiveConfiguration(entries, environment);
}

export async function createVariable(projectId: string, actorUserId: string, input: CreateVariableInput): Promise<Variable> {
  const db = await getDb();
  const id = newId('var');
  try {
    await db.transaction(async (tx) => {
      await lockProjectResource(tx, projectId, 'variables');
      await refuseBeyondLimit(tx, projectId, 1);
      const now = new Date();
      await tx.insert(variables).values({
        id,
        projectId,
        name: input.name,
        value: input.value,
        environment: input.environment,
        description: input.description ?? null,
        createdByUserId: actorUserId,
        updatedByUserId: actorUserId,
        createdAt: now,
        updatedAt: now,
      });
      await emit(tx, projectId, 'variable.created', { variableId: id, name: input.name, environment: input.environment, by: actorUserId });
    });
  } catch (err) {
    if (isUniqueViolation(err, UNIQUE_NAME_INDEX)) throw nameTaken(input.name, input.environment);
    throw err;
  }
  return getVariable(projectId, id);
}

/** Changes what the patch names; renaming or moving onto a name the target environment has is a 409. */
export async function updateVariable(projectId: string, variableId: string, actorUserId: string, patch: UpdateVariableInput): Promise<Variable> {
  if (Object.values(patch).every((value) => value === undefined)) {
    throw new AppError('VALIDATION_ERROR', 'Send at least one of name, value, environment, description', { fields: {} });
  }
  const db = await getDb();
  let target = { name: '', environment: 'default' as Environment };
  try {
    await db.transaction(async (tx) => {
      const [current] = await tx
        .select()
        .from(variables)
        .where(and(eq(variables.projectId, projectId), eq(variables.id, variableId)))
        .for('update');
      if (!current) throw notFound();
      target = { name: patch.name ?? current.name, environment: patch.environment ?? environmentSchema.parse(current.environment) };
      const changed = (['name', 'value', 'environment', 'description'] as const).filter(
        (field) => patch[field] !== undefined && patch[field] !== current[field],
      );
      if (changed.length === 0) return;
      await tx
        .update(variables)
        .set({
          name: target.name,
          environment: target.environment,
          value: patch.value ?? current.value,
          description: patch.description === undefined ? current.description : patch.description,
          updatedByUserId: actorUserId,
          updatedAt: new Date(),
        })
        .where(eq(variables.id, variableId));
      await emit(tx, projectId, 'variable.updated', { variableId, name: target.name, environment: target.environment, changed, by: actorUserId });
    });
  } catch (err) {
    if (isUniqueViolation(err, UNIQUE_NAME_INDEX)) throw nameTaken(target.name, target.environment);
    throw err;
  }
  return getVariable(projectId, variableId);
}

export async function deleteVariable(projectId: string, variableId: string, actorUserId: string): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [deleted] = await tx
      .delete(variables)
      .where(and(eq(variables.projectId, projectId), eq(variables.id, variableId)))
      .returning({ name: variables.name, environment: variables.environment });
    if (!deleted) throw notFound();
    await emit(tx, projectId, 'variable.deleted', { variableId, name: deleted.name, environment: deleted.environment, by: actorUserId });
  });
}

/**
 * Imports a .env file into one environment, all or nothing: a file with any problem (a line that
 * cannot be read, a name outside the rule, a name set twice, a value too long) is refused whole with
 * every problem by line, and a file that would take the project past its limit is refused too.
 * Names the environment has are left alone unless `overwrite`; a dry run says the same and writes nothing.
 */
export async function importVariables(projectId: string, actorUserId: string, input: ImportVariablesInput): Promise<VariablesImport> {
  const { entries, problems } = parseDotenv(input.content);
  for (const entry of entries) {
    if (entry.value.length > VARIABLE_VALUE_MAX)
      problems.push({ line: entry.line, message: `The value of ${entry.name} is longer than ${VARIABLE_VALUE_MAX} characters` });
  }
  if (problems.length > 0) throw importProblems(problems);
  if (entries.length === 0)
    throw new AppError('VALIDATION_ERROR', 'content: The file sets no variables', { fields: { content: 'The file sets no variables' } });
  if (entries.length > VARIABLES_PER_PROJECT) {
    const message = `A project holds at most ${VARIABLES_PER_PROJECT} variables; the file sets ${entries.length}`;
    throw new AppError('VALIDATION_ERROR', `content: ${message}`, { fields: { content: message } });
  }

  const db = await getDb();
  return db.transaction(async (tx) => {
    await lockProjectResource(tx, projectId, 'variables');
    const existing = await tx
      .select({ id: variables.id, name: variables.name, value: variables.value })
      .from(variables)
      .where(and(eq(variables.projectId, projectId), eq(variables.environment, input.environment)));
    const byName = new Map(existing.map((row) => [row.name, row]));
    const report: VariablesImport = { environment: input.environment, dryRun: input.dryRun, created: [], updated: [], unchanged: [], skipped: [] };
    const toCreate: typeof entries = [];
    const toUpdate: Array<{ id: string; value: string }> = [];
    for (const entry of entries) {
      const current = byName.get(entry.name);
      if (!current) {
        report.created.push(entry.name);
        toCreate.push(entry);
      } else if (current.value === entry.value) {
        report.unchanged.push(entry.name);
      } else if (input.overwrite) {
        report.updated.push(entry.name);
        toUpdate.push({ id: current.id, value: entry.value });
      } else {
        report.skipped.push(entry.name);
      }
    }
    await refuseBeyondLimit(tx, projectId, toCreate.length);
    if (input.dryRun) return report;

    const now = new Date();
    if (toCreate.length > 0) {
      await tx.insert(variables).values(
        toCreate.map((entry) => ({
          id: newId('var'),
          projectId,
          name: entry.name,
          value: entry.value,
          environment: input.environment,
          createdByUserId: actorUserId,
          updatedByUserId: actorUserId,
          createdAt: now,
          updatedAt: now,
        })),
      );
    }
    for (const change of toUpdate) {
      await tx.update(variables).set({ value: change.value, updatedByUserId: actorUserId, updatedAt: now }).where(eq(variables.id, change.id));
    }
    await emit(tx, projectId, 'variables.imported', {
      environment: input.environment,
      created: report.created.length,
      updated: report.updated.length,
      unchanged: report.unchanged.length,
      skipped: report.skipped.length,
      by: actorUserId,
    });
    return report;
  });
}

async function refuseBeyondLimit(db: DbOrTx, projectId: string, adding: number): Promise<void> {
  if (adding === 0) return;
  const [row] = await db.select({ n: count() }).from(variables).where(eq(variables.projectId, projectId));
  const held = row?.n ?? 0;
  if (held + adding > VARIABLES_PER_PROJECT) {
    throw new AppError(
      'VARIABLE_LIMIT_REACHED',
      `A project holds at most ${VARIABLES_PER_PROJECT} variables (all environments together); it has ${held}${adding > 1 ? ` and this would add ${adding}` : ''}. Delete some first`,
    );
  }
}

async function selectVariables(db: DbOrTx, where: SQL | undefined): Promise<Variable[]> {
  const rows = await db
    .select({
      variable: variables,
      creator: { id: creators.id, name: creators.name, email: creators.email },
      updater: { id: updaters.id, name: updaters.name, email: updaters.email },
    })
    .from(variables)
    .innerJoin(creators, eq(creators.id, variables.createdByUserId))
    .innerJoin(updaters, eq(updaters.id, variables.updatedByUserId))
    .where(where)
    .orderBy(asc(variables.name), asc(variables.environment));
  return rows.map(({ variable, creator, updater }) => ({
    id: variable.id,
    name: variable.name,
    value: variable.value,
    environment: environmentSchema.parse(variable.environment),
    description: variable.description,
    createdBy: creator.id,
    updatedBy: updater.id,
    createdByUser: creator,
    updatedByUser: updater,
    createdAt: variable.createdAt.toISOString(),
    updatedAt: variable.updatedAt.toISOString(),
  }));
}

function importProblems(problems: DotenvProblem[]): AppError {
  const sorted = [...problems].sort((a, b) => a.line - b.line);
  const reported = sorted.slice(0, IMPORT_PROBLEMS_REPORTED).map((problem) => ({ path: ['content', problem.line], message: problem.message }));
  const error = validationError(reported);
  if (sorted.length <= IMPORT_PROBLEMS_REPORTED) return error;
  return new AppError('VALIDATION_ERROR', `${error.message}; and ${sorted.length - IMPORT_PROBLEMS_REPORTED} more problems`, { fields: error.fields });
}

function nameTaken(name: string, environment: Environment): AppError {
  const message = `A variable named ${name} already exists in ${environment}`;
  return new AppError('CONFLICT', message, { fields: { name: message } });
}

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'Variable not found');
}
