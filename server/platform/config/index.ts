import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { configureDatabase } from '../../../db';

const booleanFlag = z.enum(['true', 'false', '1', '0', '']).transform((v) => v === 'true' || v === '1');

/** Simulator operations that INFRA_SIM_FAIL can make fail, to rehearse upstream outages. */
export const INFRA_SIM_OPERATIONS = ['create', 'get', 'rename', 'delete', 'action', 'catalog'] as const;

/** Redis simulator operations that REDIS_SIM_FAIL can make fail; `start` makes new databases end `failed`. */
export const REDIS_SIM_OPERATIONS = ['provision', 'status', 'usage', 'deprovision', 'start'] as const;

/** Registrar simulator operations that REGISTRAR_SIM_FAIL can make fail. */
export const REGISTRAR_SIM_OPERATIONS = ['search'] as const;

/** DNS simulator operations that DNS_SIM_FAIL can make fail, to rehearse a provider outage. */
export const DNS_SIM_OPERATIONS = ['verify', 'zones', 'records', 'create', 'update', 'delete'] as const;

const taxRatesSchema = z.record(z.string().regex(/^[A-Z]{2}$/), z.number().int().min(0).max(10_000));

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    APP_URL: z.url({ message: 'APP_URL must be an absolute URL such as https://panel.example.com' }).optional(),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must start with postgres:// or postgresql://')
      .optional()
      .or(z.literal('').transform(() => undefined)),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
    /** Where rate-limit budgets live when set; otherwise PostgreSQL (or memory on the embedded database). */
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'REDIS_URL must start with redis:// or rediss://')
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** Requests per minute of each API key and each signed-in user on /v1. */
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
    /** Requests per minute of each client address calling /v1 without valid credentials. */
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(60),
    /** Deliveries per minute from each address to the inbound webhooks (the payment processor's). */
    RATE_LIMIT_WEBHOOK_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
    /** How often the worker hands newly recorded events to the domains' handlers (webhooks, notifications). */
    EVENT_DISPATCH_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
    DATA_DIR: z.string().min(1).default('.data'),
    PGLITE_DIR: z.string().min(1).optional(),
    AUTH_SECRET: z.string().min(32, 'AUTH_SECRET must be at least 32 characters').optional(),
    /**
     * The master keys that wrap the data keys of sealed values (secrets, signing secrets), as
     * `<id>:<32 bytes in base64>` separated by commas, the current one first; the others only open
     * what they wrapped until a rotation re-wraps it. Unset: `$DATA_DIR/encryption-keys`, generated once.
     */
    ENCRYPTION_KEYS: z
      .string()
      .regex(
        /^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/]{43}=)*$/,
        'ENCRYPTION_KEYS must be <id>:<base64 of 32 bytes>, comma-separated, the current key first',
      )
      .optional()
      .or(z.literal('').transform(() => undefined)),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, 'SMTP_URL must start with smtp:// or smtps://')
      .optional(),
    MAIL_FROM: z.string().min(3).default('Cloud Panel <no-reply@localhost>'),
    PAYMENTS_PROVIDER: z.enum(['local', 'stripe']).default('local'),
    STRIPE_SECRET_KEY: z
      .string()
      .regex(/^(sk|rk)_(test|live)_/, 'STRIPE_SECRET_KEY must be a secret key (sk_…) or a restricted key (rk_…)')
      .optional()
      .or(z.literal('').transform(() => undefined)),
    STRIPE_PUBLISHABLE_KEY: z
      .string()
      .regex(/^pk_(test|live)_/, 'STRIPE_PUBLISHABLE_KEY must be a publishable key (pk_…)')
      .optional()
      .or(z.literal('').transform(() => undefined)),
    STRIPE_WEBHOOK_SECRET: z
      .string()
      .regex(/^whsec_/, 'STRIPE_WEBHOOK_SECRET must be the signing secret of a webhook endpoint (whsec_…)')
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** Where the SDK sends API calls instead of Stripe's own host: a loopback fake in tests. */
    STRIPE_API_URL: z
      .url({ protocol: /^https?$/, message: 'STRIPE_API_URL must be an http:// or https:// URL' })
      .optional()
      .or(z.literal('').transform(() => undefined)),
    BILLING_CURRENCY: z
      .string()
      .regex(/^[a-z]{3}$/, 'BILLING_CURRENCY must be a lower-case ISO 4217 code such as usd')
      .default('usd'),
    TAX_RATES: z
      .string()
      .default('{}')
      .transform((raw, ctx) => {
        try {
          return taxRatesSchema.parse(JSON.parse(raw));
        } catch {
          ctx.addIssue({ code: 'custom', message: 'TAX_RATES must be JSON mapping country codes to basis points, e.g. {"DE":1900,"US":0}' });
          return z.NEVER;
        }
      }),
    DUNNING_RETRY_DAYS: z
      .string()
      .default('1,3,5')
      .transform((raw, ctx) => {
        const days = raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
          .map(Number);
        const ascending = days.every((d, i) => Number.isInteger(d) && d >= 1 && d <= 90 && (i === 0 || d > days[i - 1]!));
        if (!ascending) {
          ctx.addIssue({ code: 'custom', message: 'DUNNING_RETRY_DAYS must be whole days from 1 to 90 in ascending order, comma-separated, e.g. 1,3,5' });
          return z.NEVER;
        }
        return days;
      }),
    DUNNING_GRACE_DAYS: z.coerce.number().int().min(0).max(90).default(7),
    BILLER_TRANSFER_TTL_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 30)
      .default(24 * 7),
    DEV_MAILBOX: booleanFlag.default(false),
    TRUST_PROXY: booleanFlag.default(false),
    TRUSTED_PROXY_HOPS: z.coerce.number().int().min(1).max(10).default(1),
    JOBS_IN_PROCESS: booleanFlag.default(true),
    /** Lets requests to customers' URLs (webhooks) reach loopback and private addresses: local development and tests only. */
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: booleanFlag.default(false),
    INVITATION_TTL_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 30)
      .default(24 * 7),
    PASSWORD_RESET_TTL_MINUTES: z.coerce
      .number()
      .int()
      .min(5)
      .max(24 * 60)
      .default(60),
    IDEMPOTENCY_TTL_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 30)
      .default(24),
    AUDIT_RETENTION_DAYS: z.coerce
      .number()
      .int()
      .min(1)
      .max(10 * 365)
      .default(400),
    /** Secrets a project holds without buying packs. */
    SECRETS_FREE_LIMIT: z.coerce.number().int().min(0).max(10_000).default(5),
    /** Monthly price of a pack of five secrets in minor units; unset, packs are not sold. */
    SECRETS_PACK_PRICE_MONTHLY: z.coerce
      .number()
      .int()
      .min(1)
      .max(10_000_000)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    INFRA_PROVIDER: z.enum(['simulator', 'droplets']).default('simulator'),
    INFRA_API_URL: z
      .url({ protocol: /^https?$/, message: 'INFRA_API_URL must be an http:// or https:// URL' })
      .optional()
      .or(z.literal('').transform(() => undefined)),
    INFRA_API_TOKEN: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    INFRA_SIM_PROVISION_SECONDS: z.coerce.number().min(0).max(3600).default(20),
    INFRA_SIM_ACTION_SECONDS: z.coerce.number().min(0).max(3600).default(5),
    INFRA_SIM_FAIL: z
      .string()
      .default('')
      .transform((raw) =>
        raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .pipe(
        z.array(
          z.enum(INFRA_SIM_OPERATIONS, {
            error: (issue) => `INFRA_SIM_FAIL: unknown operation ${JSON.stringify(issue.input)}; allowed: ${INFRA_SIM_OPERATIONS.join(', ')}`,
          }),
        ),
      ),
    /**
     * `embedded` runs one redis-server per database on this host; without the binary the simulator
     * stands in. `managed-api` has an Upstash-style managed-Redis API run them.
     */
    REDIS_PROVIDER: z.enum(['embedded', 'simulator', 'managed-api']).default('embedded'),
    REDIS_API_URL: z
      .url({ protocol: /^https?$/, message: 'REDIS_API_URL must be an http:// or https:// URL' })
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** The account email: the user name of the API's basic auth. */
    REDIS_API_EMAIL: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    REDIS_API_KEY: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** Where databases' primaries run, and where the replica of a database sold with replication runs. */
    REDIS_API_REGION: z.string().min(1).default('us-east-1'),
    REDIS_API_READ_REGION: z.string().min(1).default('us-east-2'),
    REDIS_API_TIMEOUT_SECONDS: z.coerce.number().min(1).max(300).default(30),
    /** A path, or a name looked up in PATH. */
    REDIS_SERVER_BINARY: z.string().min(1).default('redis-server'),
    REDIS_PORT_RANGE: z
      .string()
      .default('16379-16999')
      .transform((raw, ctx) => {
        const match = /^(\d{1,5})-(\d{1,5})$/.exec(raw.trim());
        const first = Number(match?.[1]);
        const last = Number(match?.[2]);
        if (!match || first < 1024 || last > 65535 || first > last) {
          ctx.addIssue({ code: 'custom', message: 'REDIS_PORT_RANGE must be <first>-<last> within 1024-65535, e.g. 16379-16999' });
          return z.NEVER;
        }
        return { first, last };
      }),
    REDIS_START_TIMEOUT_SECONDS: z.coerce.number().min(1).max(600).default(20),
    REDIS_SIM_PROVISION_SECONDS: z.coerce.number().min(0).max(3600).default(5),
    REDIS_SIM_FAIL: z
      .string()
      .default('')
      .transform((raw) =>
        raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .pipe(
        z.array(
          z.enum(REDIS_SIM_OPERATIONS, {
            error: (issue) => `REDIS_SIM_FAIL: unknown operation ${JSON.stringify(issue.input)}; allowed: ${REDIS_SIM_OPERATIONS.join(', ')}`,
          }),
        ),
      ),
    /**
     * The nameservers domain-ownership lookups ask, as `host` or `host:port` (IPv6 as `[addr]:port`),
     * comma-separated; empty: the system's. Tests and e2e point it at the simulator's nameserver.
     */
    DNS_RESOLVERS: z
      .string()
      .default('')
      .transform((raw, ctx) => {
        const entries = raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const servers = entries.map(resolverAddress);
        const bad = entries.filter((_, i) => servers[i] === null);
        if (bad.length) {
          ctx.addIssue({
            code: 'custom',
            message: `DNS_RESOLVERS: ${bad.map((b) => JSON.stringify(b)).join(', ')} is not an IP address with an optional port, e.g. 1.1.1.1,127.0.0.1:5353,[::1]:53`,
          });
          return z.NEVER;
        }
        return servers.filter((s): s is string => s !== null);
      }),
    /** How long one try of a DNS lookup waits for an answer; two tries are made. */
    DNS_LOOKUP_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(3000),
    /** `host:port` where the DNS simulator's own authoritative nameserver listens (UDP and TCP); empty: not started. */
    DNS_SIM_NAMESERVER: z
      .string()
      .default('')
      .transform((raw, ctx) => {
        if (!raw.trim()) return null;
        const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(raw.trim());
        const host = match?.[1]?.replace(/^\[(.*)\]$/, '$1');
        const port = Number(match?.[2]);
        if (!host || port < 1 || port > 65535 || (match?.[1]?.startsWith('[') && isIP(host) !== 6)) {
          ctx.addIssue({ code: 'custom', message: 'DNS_SIM_NAMESERVER must be host:port, e.g. 127.0.0.1:5353 or [::1]:5353' });
          return z.NEVER;
        }
        return { host, port };
      }),
    REGISTRAR_PROVIDER: z.enum(['simulator']).default('simulator'),
    REGISTRAR_SIM_FAIL: z
      .string()
      .default('')
      .transform((raw) =>
        raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .pipe(
        z.array(
          z.enum(REGISTRAR_SIM_OPERATIONS, {
            error: (issue) => `REGISTRAR_SIM_FAIL: unknown operation ${JSON.stringify(issue.input)}; allowed: ${REGISTRAR_SIM_OPERATIONS.join(', ')}`,
          }),
        ),
      ),
    /**
     * `embedded` serves buckets from this host: s3rver on a loopback port behind our gateway, which
     * checks signatures, key scopes, public access and suspension, and meters traffic. `s3` drives a
     * production S3-compatible endpoint with an IAM API (Ceph RGW, AWS) as its administrator.
     */
    OBJECT_STORAGE_PROVIDER: z.enum(['embedded', 's3']).default('embedded'),
    OBJECT_STORAGE_S3_ENDPOINT: z
      .url({ protocol: /^https?$/, message: 'OBJECT_STORAGE_S3_ENDPOINT must be an http:// or https:// URL' })
      .optional()
      .or(z.literal('').transform(() => undefined)),
    OBJECT_STORAGE_S3_REGION: z.string().min(1).default('us-east-1'),
    OBJECT_STORAGE_S3_PATH_STYLE: z
      .enum(['true', 'false'], { error: 'OBJECT_STORAGE_S3_PATH_STYLE must be true or false' })
      .default('true')
      .transform((v) => v === 'true'),
    OBJECT_STORAGE_S3_ACCESS_KEY_ID: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    OBJECT_STORAGE_S3_SECRET_ACCESS_KEY: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    OBJECT_STORAGE_S3_IAM_ENDPOINT: z
      .url({ protocol: /^https?$/, message: 'OBJECT_STORAGE_S3_IAM_ENDPOINT must be an http:// or https:// URL' })
      .optional()
      .or(z.literal('').transform(() => undefined)),
    OBJECT_STORAGE_S3_IAM_REGION: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    OBJECT_STORAGE_S3_ADMIN_ARN: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    OBJECT_STORAGE_S3_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
    /** Where the embedded endpoint keeps objects; unset: `$DATA_DIR/object-storage`. */
    OBJECT_STORAGE_DATA_DIR: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    OBJECT_STORAGE_ENDPOINT_HOST: z.string().min(1).default('127.0.0.1'),
    /** The embedded endpoint's port; 0 takes any free one (tests). */
    OBJECT_STORAGE_ENDPOINT_PORT: z.coerce.number().int().min(0).max(65535).default(4569),
    /** What S3 clients are told to use; unset: `http://<host>:<port>` of the embedded endpoint. */
    OBJECT_STORAGE_PUBLIC_URL: z
      .url({ protocol: /^https?$/, message: 'OBJECT_STORAGE_PUBLIC_URL must be an http:// or https:// URL' })
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /**
     * `embedded` runs Docker Distribution (`docker-registry`) on loopback behind the registry front
     * door; without the binary, and with `simulator`, an in-process model of the registry API serves instead.
     */
    REGISTRY_PROVIDER: z.enum(['embedded', 'simulator']).default('embedded'),
    REGISTRY_BINARY: z.string().min(1).default('docker-registry'),
    /** Where registry blobs and keys live; unset: `$DATA_DIR/registry`. */
    REGISTRY_DATA_DIR: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** The host customers `docker login` to and the front door's port; 0 takes any free one (tests). */
    REGISTRY_ENDPOINT_HOST: z.string().min(1).default('127.0.0.1'),
    REGISTRY_ENDPOINT_PORT: z.coerce.number().int().min(0).max(65535).default(5050),
    /** The token realm registry clients are sent to; unset: `$APP_URL/v1/registry/token`. */
    REGISTRY_TOKEN_REALM: z
      .url({ protocol: /^https?$/, message: 'REGISTRY_TOKEN_REALM must be an http:// or https:// URL' })
      .optional()
      .or(z.literal('').transform(() => undefined)),
    REGISTRY_START_TIMEOUT_SECONDS: z.coerce.number().min(1).max(300).default(20),
    /** Site homes (`sites/<siteName>`), the SFTP host key and the web server's configuration; unset: `$DATA_DIR/hosting`. */
    HOSTING_DATA_DIR: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** Each site's own address is `<siteName>.<HOSTING_PLATFORM_DOMAIN>`; hostnames under it cannot be attached. */
    HOSTING_PLATFORM_DOMAIN: z
      .string()
      .min(3)
      .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/, 'HOSTING_PLATFORM_DOMAIN must be a lower-case domain name')
      .default('sites.localhost'),
    /** Where nginx serves the sites; 0 takes any free port (tests). */
    HOSTING_HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOSTING_SFTP_HOST: z.string().min(1).default('127.0.0.1'),
    /** SFTP for every site; never 22 (the machine's own SSH). 0 takes any free port (tests). */
    HOSTING_SFTP_PORT: z.coerce
      .number()
      .int()
      .min(0)
      .max(65535)
      .refine((port) => port !== 22, 'HOSTING_SFTP_PORT must not be 22')
      .default(2222),
    /** A MariaDB/MySQL administrator, e.g. mysql://root@127.0.0.1:3306; unset: hosting databases are simulated. */
    HOSTING_MYSQL_ADMIN_URL: z
      .url({ protocol: /^mysql$/, message: 'HOSTING_MYSQL_ADMIN_URL must be a mysql:// URL' })
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** The address an apex hostname's A record must point at for it to route to the sites. */
    HOSTING_PUBLIC_IPV4: z.ipv4({ message: 'HOSTING_PUBLIC_IPV4 must be an IPv4 address' }).default('127.0.0.1'),
    HOSTING_NGINX_BINARY: z.string().min(1).default('nginx'),
    HOSTING_PHP_FPM_BINARY: z.string().min(1).default('php-fpm8.2'),
    /**
     * A superuser of the PostgreSQL cluster that holds shared tenant databases, e.g.
     * postgres://postgres@127.0.0.1:5432/postgres, prepared once with scripts/postgres-tenant-cluster.sh;
     * unset: tenant databases cannot be created, and the API and the panel say so.
     */
    DATABASES_ADMIN_URL: z
      .url({ protocol: /^postgres(ql)?$/, message: 'DATABASES_ADMIN_URL must be a postgres:// URL' })
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** The host name in tenants' connection strings; unset: the admin URL's host. */
    DATABASES_PUBLIC_HOST: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** The pooler's configuration, auth file and TLS key; unset: `$DATA_DIR/databases`. */
    DATABASES_DATA_DIR: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** Where PgBouncer listens for tenants; 0 takes any free port (tests). */
    DATABASES_POOL_PORT: z.coerce.number().int().min(0).max(65535).default(6432),
    DATABASES_POOL_LISTEN_ADDR: z.string().min(1).default('127.0.0.1'),
    DATABASES_PGBOUNCER_BINARY: z.string().min(1).default('pgbouncer'),
    /** How long a deleted tenant's database is kept for recovery before it is dropped. */
    DATABASES_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(14),
    /** `simulator` keeps zones and records in this database; `cloudflare` calls Cloudflare's API v4 with each project's own token. */
    DNS_PROVIDER: z.enum(['simulator', 'cloudflare']).default('simulator'),
    DNS_API_URL: z.url({ protocol: /^https?$/, message: 'DNS_API_URL must be an http:// or https:// URL' }).default('https://api.cloudflare.com/client/v4'),
    DNS_API_TIMEOUT_SECONDS: z.coerce.number().min(1).max(300).default(30),
    /** The OAuth app customers may connect with instead of pasting a token; enabled only with both id and secret. */
    DNS_OAUTH_CLIENT_ID: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    DNS_OAUTH_CLIENT_SECRET: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    DNS_OAUTH_AUTHORIZE_URL: z
      .url({ protocol: /^https?$/, message: 'DNS_OAUTH_AUTHORIZE_URL must be an http:// or https:// URL' })
      .default('https://dash.cloudflare.com/oauth2/auth'),
    DNS_OAUTH_TOKEN_URL: z
      .url({ protocol: /^https?$/, message: 'DNS_OAUTH_TOKEN_URL must be an http:// or https:// URL' })
      .default('https://dash.cloudflare.com/oauth2/token'),
    DNS_SIM_ZONES: z
      .string()
      .default('example.com,example.net')
      .transform((raw) =>
        raw
          .split(',')
          .map((s) => s.trim().toLowerCase().replace(/\.$/, ''))
          .filter(Boolean),
      )
      .pipe(
        z.array(
          z
            .string()
            .max(253)
            .regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/, {
              error: (issue) => `DNS_SIM_ZONES: ${JSON.stringify(issue.input)} is not a domain name such as example.com`,
            }),
        ),
      ),
    DNS_SIM_FAIL: z
      .string()
      .default('')
      .transform((raw) =>
        raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .pipe(
        z.array(
          z.enum(DNS_SIM_OPERATIONS, {
            error: (issue) => `DNS_SIM_FAIL: unknown operation ${JSON.stringify(issue.input)}; allowed: ${DNS_SIM_OPERATIONS.join(', ')}`,
          }),
        ),
      ),
    /** `simulator` holds seeded accounts and repositories in this process and database; `github` calls GitHub's REST API as the platform's GitHub App. */
    GIT_HOST_1_PROVIDER: z.enum(['simulator', 'github']).default('simulator'),
    GIT_HOST_1_API_URL: z.url({ protocol: /^https?$/, message: 'GIT_HOST_1_API_URL must be an http:// or https:// URL' }).default('https://api.github.com'),
    /** Where users install the app and grant OAuth (`/apps/<slug>/installations/new`, `/login/oauth/…`). */
    GIT_HOST_1_WEB_URL: z.url({ protocol: /^https?$/, message: 'GIT_HOST_1_WEB_URL must be an http:// or https:// URL' }).default('https://github.com'),
    GIT_HOST_1_APP_ID: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    GIT_HOST_1_APP_SLUG: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** The app's private key (PEM; `\\n` for line breaks is accepted) that signs its JWTs. */
    GIT_HOST_1_PRIVATE_KEY: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    GIT_HOST_1_CLIENT_ID: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    GIT_HOST_1_CLIENT_SECRET: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** The app's webhook secret; the simulator derives one from AUTH_SECRET when unset. */
    GIT_HOST_1_WEBHOOK_SECRET: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** The container registry host of the app's packages. */
    GIT_HOST_1_PACKAGES_REGISTRY: z.string().min(1).default('ghcr.io'),
    /** `simulator` or `bitbucket` (Bitbucket Cloud's API 2.0 with an OAuth consumer). */
    GIT_HOST_2_PROVIDER: z.enum(['simulator', 'bitbucket']).default('simulator'),
    GIT_HOST_2_API_URL: z
      .url({ protocol: /^https?$/, message: 'GIT_HOST_2_API_URL must be an http:// or https:// URL' })
      .default('https://api.bitbucket.org/2.0'),
    GIT_HOST_2_WEB_URL: z.url({ protocol: /^https?$/, message: 'GIT_HOST_2_WEB_URL must be an http:// or https:// URL' }).default('https://bitbucket.org'),
    GIT_HOST_2_CLIENT_ID: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    GIT_HOST_2_CLIENT_SECRET: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** The platform's private workspace that deployment copies are made in. */
    GIT_HOST_2_DEPLOY_WORKSPACE: z.string().min(1).default('platform-deployments'),
    /** The platform's access token for that workspace: it makes, writes and reads the copies. */
    GIT_HOST_2_DEPLOY_TOKEN: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** `simulator` or `gitlab` (GitLab's API v4 with an OAuth application). */
    GIT_HOST_3_PROVIDER: z.enum(['simulator', 'gitlab']).default('simulator'),
    /** The instance's base URL; the API is below `/api/v4`. */
    GIT_HOST_3_URL: z.url({ protocol: /^https?$/, message: 'GIT_HOST_3_URL must be an http:// or https:// URL' }).default('https://gitlab.com'),
    GIT_HOST_3_CLIENT_ID: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    GIT_HOST_3_CLIENT_SECRET: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** The platform's private group that deployment copies are made in. */
    GIT_HOST_3_DEPLOY_GROUP: z.string().min(1).default('platform-deployments'),
    /** The platform's access token for that group: it makes, writes and reads the copies. */
    GIT_HOST_3_DEPLOY_TOKEN: z
      .string()
      .min(1)
      .optional()
      .or(z.literal('').transform(() => undefined)),
    GIT_API_TIMEOUT_SECONDS: z.coerce.number().min(1).max(300).default(30),
    /** `simulator` or `dockerhub` (Docker Hub's API v2). */
    IMAGE_HUB_PROVIDER: z.enum(['simulator', 'dockerhub']).default('simulator'),
    IMAGE_HUB_API_URL: z.url({ protocol: /^https?$/, message: 'IMAGE_HUB_API_URL must be an http:// or https:// URL' }).default('https://hub.docker.com'),
    /** How long each step of a simulated build takes. */
    BUILD_SIM_STEP_MS: z.coerce.number().int().min(0).max(60_000).default(800),
  })
  .superRefine((env, ctx) => {
    if (env.PAYMENTS_PROVIDER === 'stripe') {
      for (const name of ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'] as const) {
        if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: `${name} is required when PAYMENTS_PROVIDER=stripe` });
      }
    }
    const required = (condition: boolean, names: readonly (keyof typeof env)[], because: string) => {
      if (!condition) return;
      for (const name of names) if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: `${String(name)} is required when ${because}` });
    };
    required(
      env.GIT_HOST_1_PROVIDER === 'github',
      ['GIT_HOST_1_APP_ID', 'GIT_HOST_1_APP_SLUG', 'GIT_HOST_1_PRIVATE_KEY', 'GIT_HOST_1_CLIENT_ID', 'GIT_HOST_1_CLIENT_SECRET', 'GIT_HOST_1_WEBHOOK_SECRET'],
      'GIT_HOST_1_PROVIDER=github',
    );
    required(
      env.GIT_HOST_2_PROVIDER === 'bitbucket',
      ['GIT_HOST_2_CLIENT_ID', 'GIT_HOST_2_CLIENT_SECRET', 'GIT_HOST_2_DEPLOY_TOKEN'],
      'GIT_HOST_2_PROVIDER=bitbucket',
    );
    required(
      env.GIT_HOST_3_PROVIDER === 'gitlab',
      ['GIT_HOST_3_CLIENT_ID', 'GIT_HOST_3_CLIENT_SECRET', 'GIT_HOST_3_DEPLOY_TOKEN'],
      'GIT_HOST_3_PROVIDER=gitlab',
    );
    if (env.INFRA_PROVIDER === 'droplets') {
      for (const name of ['INFRA_API_URL', 'INFRA_API_TOKEN'] as const) {
        if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: `${name} is required when INFRA_PROVIDER=droplets` });
      }
    }
    if (env.OBJECT_STORAGE_PROVIDER === 's3') {
      for (const name of ['OBJECT_STORAGE_S3_ENDPOINT', 'OBJECT_STORAGE_S3_ACCESS_KEY_ID', 'OBJECT_STORAGE_S3_SECRET_ACCESS_KEY'] as const) {
        if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: `${name} is required when OBJECT_STORAGE_PROVIDER=s3` });
      }
    }
    if (env.REDIS_PROVIDER === 'managed-api') {
      for (const name of ['REDIS_API_URL', 'REDIS_API_EMAIL', 'REDIS_API_KEY'] as const) {
        if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: `${name} is required when REDIS_PROVIDER=managed-api` });
      }
      if (env.REDIS_API_READ_REGION === env.REDIS_API_REGION) {
        ctx.addIssue({ code: 'custom', path: ['REDIS_API_READ_REGION'], message: 'REDIS_API_READ_REGION must differ from REDIS_API_REGION' });
      }
    }
  });

export type AppConfig = Omit<z.infer<typeof envSchema>, 'AUTH_SECRET' | 'APP_URL'> & {
  AUTH_SECRET: string;
  APP_URL: string;
  /** True when the embedded PGlite database is used instead of a PostgreSQL server. */
  embeddedDatabase: boolean;
};

let cached: AppConfig | undefined;

/** Reads and validates the environment once; a bad value stops the process with a message naming it. */
export function getConfig(): AppConfig {
  if (cached) return cached;
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${problems}`);
  }
  const env = parsed.data;
  cached = {
    ...env,
    APP_URL: (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, ''),
    AUTH_SECRET: env.AUTH_SECRET ?? persistentSecret(env.DATA_DIR, 'auth-secret'),
    embeddedDatabase: !env.DATABASE_URL,
  };
  return cached;
}

/** Test hook: forget the parsed configuration so a changed environment is read again. */
export function resetConfigForTests(): void {
  cached = undefined;
}

/**
 * A DNS_RESOLVERS entry in the form the resolver accepts (`1.1.1.1`, `1.1.1.1:53`, `::1`,
 * `[::1]:53`), or null. Only addresses: the resolver cannot look up its own servers' names.
 */
function resolverAddress(entry: string): string | null {
  if (isIP(entry)) return entry;
  const match = /^(\[([0-9A-Fa-f:.]+)\]|([0-9.]+)):(\d{1,5})$/.exec(entry);
  if (!match) return null;
  const address = match[2] ?? match[3] ?? '';
  const port = Number(match[4]);
  const family = isIP(address);
  if (port < 1 || port > 65535 || family === 0 || (family === 6) !== Boolean(match[2])) return null;
  return family === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

/**
 * The embedded default needs no setup, so a missing secret is generated once and kept in the data
 * folder; every process sharing that folder then signs and verifies sessions with the same key.
 */
function persistentSecret(dataDir: string, name: string): string {
  const file = path.resolve(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  return secret;
}

configureDatabase(() => {
  const config = getConfig();
  return {
    url: config.DATABASE_URL,
    poolSize: config.DATABASE_POOL_SIZE,
    pgliteDir: config.PGLITE_DIR ?? path.resolve(config.DATA_DIR, 'pglite'),
  };
});
