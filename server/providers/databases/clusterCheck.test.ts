import { describe, expect, it } from 'vitest';
import { clusterProblem, hbaProblem, type ClusterFacts, type HbaRule } from './clusterCheck';

/** pg_hba_file_rules of this machine's cluster after scripts/postgres-tenant-cluster.sh. */
const PREPARED: HbaRule[] = [
  row(2, 'local', ['all'], ['+platform_tenants'], null, 'reject'),
  row(3, 'hostnossl', ['all'], ['+platform_tenants'], 'all', 'reject'),
  row(4, 'hostssl', ['samerole'], ['+platform_tenants'], 'all', 'scram-sha-256'),
  row(5, 'host', ['all'], ['+platform_tenants'], 'all', 'reject'),
  row(7, 'local', ['all'], ['all'], null, 'trust'),
  { ...row(8, 'host', ['all'], ['all'], '127.0.0.1', 'trust'), netmask: '255.255.255.255' },
];

function row(line: number, type: string, database: string[], users: string[], address: string | null, method: string): HbaRule {
  return { line_number: line, type, database, user_name: users, address, netmask: null, auth_method: method, options: null, error: null };
}

const FACTS: ClusterFacts = {
  where: '127.0.0.1:5432',
  user: 'postgres',
  superuser: true,
  serverVersionNum: 150020,
  ssl: true,
  groupExists: true,
  hbaRules: PREPARED,
};

describe('tenant cluster check', () => {
  it('accepts a prepared cluster', () => {
    expect(clusterProblem(FACTS)).toBeNull();
  });

  it('names the setting when the admin URL is not a superuser', () => {
    expect(clusterProblem({ ...FACTS, superuser: false, user: 'app' })).toBe(
      'DATABASES_ADMIN_URL must name a superuser of the tenant cluster at 127.0.0.1:5432 (app is not one)',
    );
  });

  it('says ssl is off, and the script that turns it on', () => {
    expect(clusterProblem({ ...FACTS, ssl: false })).toBe(
      'ssl is off on the tenant cluster at 127.0.0.1:5432: run scripts/postgres-tenant-cluster.sh on it (it turns ssl on with a self-signed certificate)',
    );
  });

  it('asks for the script when the group role is missing', () => {
    expect(clusterProblem({ ...FACTS, groupExists: false })).toBe(
      'The tenant cluster at 127.0.0.1:5432 has no role platform_tenants: run scripts/postgres-tenant-cluster.sh on it',
    );
  });

  it('refuses PostgreSQL before 13', () => {
    expect(clusterProblem({ ...FACTS, serverVersionNum: 120015 })).toMatch(/runs PostgreSQL 12; shared tenant databases need PostgreSQL 13 or later/);
  });

  it('asks for the script when the tenant rules are missing', () => {
    const unprepared = PREPARED.slice(4);
    expect(hbaProblem(unprepared, 'platform_tenants', 'h:1')).toBe(
      'pg_hba.conf of the tenant cluster at h:1 must start, for tenant logins, with the rules of scripts/postgres-tenant-cluster.sh ' +
        '(rule 1 should be "local all +platform_tenants reject", but line 7 is "local all all trust"): run scripts/postgres-tenant-cluster.sh on it',
    );
  });

  it('refuses a rule for everyone placed before the tenant rules', () => {
    const trustFirst = [row(1, 'host', ['all'], ['all'], 'all', 'trust'), ...PREPARED];
    expect(hbaProblem(trustFirst, 'platform_tenants', 'h:1')).toMatch(
      /rule 1 should be "local all \+platform_tenants reject", but line 1 is "host all all all trust"/,
    );
  });

  it('ignores rules for other named roles, wherever they are', () => {
    const withOthers = [row(1, 'host', ['all'], ['replicator'], 'all', 'trust'), ...PREPARED];
    expect(hbaProblem(withOthers, 'platform_tenants', 'h:1')).toBeNull();
  });

  it('refuses a tenant rule that was weakened', () => {
    const weakened = PREPARED.map((rule) => (rule.line_number === 4 ? { ...rule, auth_method: 'trust' } : rule));
    expect(hbaProblem(weakened, 'platform_tenants', 'h:1')).toMatch(
      /rule 3 should be "hostssl samerole \+platform_tenants all scram-sha-256", but line 4 is "hostssl samerole \+platform_tenants all trust"/,
    );
    const widened = PREPARED.map((rule) => (rule.line_number === 4 ? { ...rule, database: ['all'] } : rule));
    expect(hbaProblem(widened, 'platform_tenants', 'h:1')).toMatch(/rule 3 should be/);
  });

  it('reports lines pg_hba.conf cannot parse', () => {
    const broken = [...PREPARED, { ...row(9, 'host', [], [], null, ''), error: 'invalid authentication method "bogus"' }];
    expect(hbaProblem(broken, 'platform_tenants', 'h:1')).toBe(
      'pg_hba.conf of the tenant cluster at h:1 has errors (line 9: invalid authentication method "bogus"): fix them, then run scripts/postgres-tenant-cluster.sh',
    );
  });

  it('takes PostgreSQL 13.0 and refuses anything older', () => {
    expect(clusterProblem({ ...FACTS, serverVersionNum: 130000 })).toBeNull();
    expect(clusterProblem({ ...FACTS, serverVersionNum: 129999 })).toMatch(/runs PostgreSQL 12;/);
  });

  it('lists every line with an error, in its order', () => {
    const broken = [...PREPARED, { ...row(9, 'host', [], [], null, ''), error: 'first' }, { ...row(11, 'host', [], [], null, ''), error: 'second' }];
    expect(hbaProblem(broken, 'platform_tenants', 'h:1')).toContain('(line 9: first; line 11: second)');
  });

  it('reads the rules in line order, whatever order the rows come in', () => {
    expect(hbaProblem([...PREPARED].reverse(), 'platform_tenants', 'h:1')).toBeNull();
    const swapped = PREPARED.map((rule) => (rule.line_number === 2 ? { ...rule, line_number: 6 } : rule));
    expect(hbaProblem(swapped, 'platform_tenants', 'h:1')).toMatch(
      /rule 1 should be "local all \+platform_tenants reject", but line 3 is "hostnossl all \+platform_tenants all reject"/,
    );
  });

  it('checks the rules of the group it is given', () => {
    const renamed = PREPARED.map((rule) => ({ ...rule, user_name: (rule.user_name ?? []).map((user) => user.replace('platform_tenants', 'other_group')) }));
    expect(hbaProblem(renamed, 'other_group', 'h:1')).toBeNull();
    expect(hbaProblem(renamed, 'platform_tenants', 'h:1')).toMatch(
      /rule 1 should be "local all \+platform_tenants reject", but line 7 is "local all all trust"/,
    );
    expect(clusterProblem({ ...FACTS, groupExists: false }, 'other_group')).toContain('has no role other_group');
  });

  it('refuses every way a tenant rule can differ from the script’s', () => {
    const line4 = (change: Partial<HbaRule>) => PREPARED.map((rule) => (rule.line_number === 4 ? { ...rule, ...change } : rule));
    const variants: Array<[Partial<HbaRule>, string]> = [
      [{ type: 'host' }, 'host samerole +platform_tenants all scram-sha-256'],
      [{ database: ['samerole', 'postgres'] }, 'hostssl samerole,postgres +platform_tenants all scram-sha-256'],
      [{ database: null }, 'hostssl +platform_tenants all scram-sha-256'],
      [{ database: [] }, 'hostssl +platform_tenants all scram-sha-256'],
      [{ user_name: ['+platform_tenants', 'admin'] }, 'hostssl samerole +platform_tenants,admin all scram-sha-256'],
      [{ address: '10.0.0.0' }, 'hostssl samerole +platform_tenants 10.0.0.0 scram-sha-256'],
      [{ netmask: '255.0.0.0' }, 'hostssl samerole +platform_tenants all 255.0.0.0 scram-sha-256'],
      [{ options: ['clientcert=verify-ca'] }, 'hostssl samerole +platform_tenants all scram-sha-256 clientcert=verify-ca'],
      [{ auth_method: null }, 'hostssl samerole +platform_tenants all'],
    ];
    for (const [change, described] of variants) {
      expect(hbaProblem(line4(change), 'platform_tenants', 'h:1'), JSON.stringify(change)).toBe(
        'pg_hba.conf of the tenant cluster at h:1 must start, for tenant logins, with the rules of scripts/postgres-tenant-cluster.sh ' +
          `(rule 3 should be "hostssl samerole +platform_tenants all scram-sha-256", but line 4 is "${described}"): run scripts/postgres-tenant-cluster.sh on it`,
      );
    }
    expect(hbaProblem(line4({ options: [] }), 'platform_tenants', 'h:1')).toBeNull();
  });

  it('ignores rules with no users and says which rule is missing at the end', () => {
    const noUsers = [row(1, 'host', ['all'], [], 'all', 'trust'), { ...row(1, 'host', ['all'], [], 'all', 'trust'), user_name: null }, ...PREPARED];
    expect(hbaProblem(noUsers, 'platform_tenants', 'h:1')).toBeNull();
    expect(hbaProblem(PREPARED.slice(0, 3), 'platform_tenants', 'h:1')).toContain(
      '(rule 4 should be "host all +platform_tenants all reject", but it is missing)',
    );
  });
});
