interface PgErrorLike {
  code?: string;
  constraint?: string;
  constraint_name?: string;
}

function pgError(err: unknown): PgErrorLike | undefined {
  let current: unknown = err;
  for (let depth = 0; current && depth < 4; depth += 1) {
    const candidate = current as PgErrorLike & { cause?: unknown };
    if (typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code)) return candidate;
    current = candidate.cause;
  }
  return undefined;
}

/** True for a PostgreSQL unique violation, optionally of one named constraint or index (both drivers). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const pg = pgError(err);
  if (pg?.code !== '23505') return false;
  if (!constraint) return true;
  const name = pg.constraint_name ?? pg.constraint;
  return name === constraint;
}
