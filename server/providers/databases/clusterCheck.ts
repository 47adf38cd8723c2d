/** The group role every tenant login joins; pg_hba's rules name it (`+platform_tenants`). */
export const TENANT_GROUP = 'platform_tenants';

export const SETUP_SCRIPT = 'scripts/postgres-tenant-cluster.sh';

/** A row of `pg_hba_file_rules` (PostgreSQL 10+); arrays as the view has them. */
export interface HbaRule {
  line_number: number;
  type: string;
  database: string[] | null;
  user_name: string[] | null;
  address: string | null;
  netmask: string | null;
  auth_method: string | null;
  options: string[] | null;
  error: string | null;
}

/** What the cluster check reads from the cluster, so the rules can be tested without one. */
export interface ClusterFacts {
  /** `host:port` of the admin URL, for messages. */
  where: string;
  user: string;
  superuser: boolean;
  serverVersionNum: number;
  ssl: boolean;
  groupExists: boolean;
  hbaRules: readonly HbaRule[];
}

interface ExpectedRule {
  type: string;
  database: string;
  address: string | null;
  auth_method: string;
}

/**
 * The first rules a tenant login can meet, as scripts/postgres-tenant-cluster.sh writes them: no
 * unix socket, no plain TCP, and over TLS with a SCRAM password only the database named like a
 * role the login belongs to (its owner role), so one tenant never reaches another's database nor
 * `postgres`.
 */
export function tenantHbaRules(group = TENANT_GROUP): ReadonlyArray<ExpectedRule & { user: string }> {
  const user = `+${group}`;
  return [
    { type: 'local', database: 'all', user, address: null, auth_method: 'reject' },
    { type: 'hostnossl', database: 'all', user, address: 'all', auth_method: 'reject' },
    { type: 'hostssl', database: 'samerole', user, address: 'all', auth_method: 'scram-sha-256' },
    { type: 'host', database: 'all', user, address: 'all', auth_method: 'reject' },
  ];
}

/** The oldest PostgreSQL with `DROP DATABASE ... WITH (FORCE)`. */
export const MIN_SERVER_VERSION_NUM = 130000;

/**
 * Why the cluster cannot take tenants, as a sentence that says what to do; null when it can.
 * The pg_hba rules checked are the first (by line) whose users could hold a tenant login: `all`
 * or `+<group>`. Rules naming other roles cannot match a tenant role, whose name the platform picks.
 */
export function clusterProblem(facts: ClusterFacts, group = TENANT_GROUP): string | null {
  const fix = `run ${SETUP_SCRIPT} on it`;
  if (!facts.superuser) return `DATABASES_ADMIN_URL must name a superuser of the tenant cluster at ${facts.where} (${facts.user} is not one)`;
  if (facts.serverVersionNum < MIN_SERVER_VERSION_NUM) {
    return `The tenant cluster at ${facts.where} runs PostgreSQL ${Math.floor(facts.serverVersionNum / 10000)}; shared tenant databases need PostgreSQL 13 or later`;
  }
  if (!facts.ssl) return `ssl is off on the tenant cluster at ${facts.where}: ${fix} (it turns ssl on with a self-signed certificate)`;
  if (!facts.groupExists) return `The tenant cluster at ${facts.where} has no role ${group}: ${fix}`;
  return hbaProblem(facts.hbaRules, group, facts.where);
}

/** The pg_hba part of `clusterProblem`, on its own for tests. */
export function hbaProblem(rows: readonly HbaRule[], group: string, where: string): string | null {
  const broken = rows.filter((row) => row.error !== null);
  if (broken.length > 0) {
    const list = broken.map((row) => `line ${row.line_number}: ${row.error}`).join('; ');
    return `pg_hba.conf of the tenant cluster at ${where} has errors (${list}): fix them, then run ${SETUP_SCRIPT}`;
  }
  const member = `+${group}`;
  const reachingTenants = [...rows]
    .filter((row) => (row.user_name ?? []).some((user) => user === 'all' || user === member))
    .sort((a, b) => a.line_number - b.line_number);
  const expected = tenantHbaRules(group);
  for (const [index, rule] of expected.entries()) {
    const row = reachingTenants[index];
    if (row && matches(row, rule)) continue;
    const found = row ? `line ${row.line_number} is "${describeRow(row)}"` : 'it is missing';
    return (
      `pg_hba.conf of the tenant cluster at ${where} must start, for tenant logins, with the rules of ${SETUP_SCRIPT} ` +
      `(rule ${index + 1} should be "${describeExpected(rule)}", but ${found}): run ${SETUP_SCRIPT} on it`
    );
  }
  return null;
}

function matches(row: HbaRule, rule: ExpectedRule & { user: string }): boolean {
  return (
    row.type === rule.type &&
    sameList(row.database, [rule.database]) &&
    sameList(row.user_name, [rule.user]) &&
    row.address === rule.address &&
    row.netmask === null &&
    row.auth_method === rule.auth_method &&
    (row.options ?? []).length === 0
  );
}

function sameList(list: string[] | null, expected: string[]): boolean {
  return list !== null && list.length === expected.length && list.every((item, index) => item === expected[index]);
}

function describeRow(row: HbaRule): string {
  return [row.type, (row.database ?? []).join(','), (row.user_name ?? []).join(','), row.address, row.netmask, row.auth_method, ...(row.options ?? [])]
    .filter((part) => part !== null && part !== '')
    .join(' ');
}

function describeExpected(rule: ExpectedRule & { user: string }): string {
  return [rule.type, rule.database, rule.user, rule.address, rule.auth_method].filter((part) => part !== null).join(' ');
}
