#!/usr/bin/env bash
# Prepares a PostgreSQL cluster to hold shared tenant databases (run once per cluster, as root on
# its host; running it again changes nothing):
#   - TLS: a self-signed certificate beside postgresql.conf and `ssl = on` (when ssl is off);
#   - the group role every tenant login role joins (`platform_tenants`);
#   - pg_hba rules, placed before every other rule, that let a tenant in only over TLS, with a
#     SCRAM password, to the database named like a role it belongs to, and refuse it everywhere else.
# The app checks all three at start and refuses to create tenants on a cluster without them.
# Usage: scripts/postgres-tenant-cluster.sh [admin-url]   (default: $DATABASES_ADMIN_URL or the local cluster)
set -euo pipefail

ADMIN_URL="${1:-${DATABASES_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}}"
GROUP=platform_tenants
BEGIN_MARK="# platform tenants: begin (scripts/postgres-tenant-cluster.sh)"
END_MARK="# platform tenants: end"

sql() { psql "$ADMIN_URL" -XAtq -v ON_ERROR_STOP=1 -c "$1"; }

hba_file=$(sql 'show hba_file')
conf_dir=$(dirname "$(sql 'show config_file')")
owner=$(stat -c %U "$(sql 'show data_directory')")

if [ "$(sql 'show ssl')" != on ]; then
  cert="$conf_dir/platform-tenants.crt"
  key="$conf_dir/platform-tenants.key"
  if [ ! -s "$cert" ] || [ ! -s "$key" ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=$(hostname)" \
      -addext "subjectAltName=DNS:localhost,DNS:$(hostname),IP:127.0.0.1" \
      -keyout "$key" -out "$cert" 2>/dev/null
    chown "$owner:" "$cert" "$key"
    chmod 600 "$key"
    chmod 644 "$cert"
  fi
  sql "alter system set ssl_cert_file = '$cert'"
  sql "alter system set ssl_key_file = '$key'"
  sql "alter system set ssl = on"
fi

sql "do \$\$ begin if not exists (select from pg_roles where rolname = '$GROUP') then create role $GROUP nologin; end if; end \$\$"

if ! grep -qF "$BEGIN_MARK" "$hba_file"; then
  rules=$(mktemp)
  cat >"$rules" <<RULES
$BEGIN_MARK
local     all       +$GROUP                  reject
hostnossl all       +$GROUP  all             reject
hostssl   samerole  +$GROUP  all             scram-sha-256
host      all       +$GROUP  all             reject
$END_MARK
RULES
  cat "$hba_file" >>"$rules"
  # Rewritten in place (not renamed over) so the file keeps its owner and mode.
  cat "$rules" >"$hba_file"
  rm -f "$rules"
fi

sql 'select pg_reload_conf()' >/dev/null
for _ in $(seq 1 20); do
  [ "$(sql 'show ssl')" = on ] && break
  sleep 0.5
done
[ "$(sql 'show ssl')" = on ] || { echo "PostgreSQL did not turn ssl on; see its log" >&2; exit 1; }
errors=$(sql "select count(*) from pg_hba_file_rules where error is not null")
[ "$errors" = 0 ] || { echo "pg_hba.conf has errors: $(sql 'select line_number, error from pg_hba_file_rules where error is not null')" >&2; exit 1; }
echo "PostgreSQL at ${ADMIN_URL%%\?*} is ready for shared tenant databases (ssl on, group $GROUP, pg_hba rules in place)"
