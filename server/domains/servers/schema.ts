import { z } from 'zod';
import { INFRA_PROVIDER_NAME, POWER_ACTIONS, SERVER_STATUSES, type PowerAction, type ServerStatus } from '../../../db/schema/servers';
import { isoDateTime } from '../../platform/schemas';

export { INFRA_PROVIDER_NAME, SERVER_STATUSES, type ServerStatus };

/** Which settled statuses each power action fits; the panel disables the buttons that do not fit. */
export const POWER_ACTION_FITS: Record<PowerAction, readonly ServerStatus[]> = {
  power_on: ['OFF'],
  power_off: ['RUNNING'],
  shutdown: ['RUNNING'],
  reboot: ['RUNNING'],
  power_cycle: ['RUNNING', 'OFF'],
};

/** Where each power action leaves a server once the provider has applied it. */
export const POWER_ACTION_RESULT: Record<PowerAction, ServerStatus> = {
  power_on: 'RUNNING',
  power_off: 'OFF',
  shutdown: 'OFF',
  reboot: 'RUNNING',
  power_cycle: 'RUNNING',
};

export const serverNameSchema = z
  .string()
  .min(1, 'Name is required')
  .max(63, 'Name must be at most 63 characters')
  .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, 'Name must be a hostname: lower-case letters, digits and hyphens, starting and ending with a letter or digit');

export const sizeSlugSchema = z
  .string()
  .min(1, 'Size slug is required')
  .max(64, 'Size slug must be at most 64 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'Size slug may contain letters, digits, dots, underscores and hyphens, and starts with a letter or digit');

export const providerSchema = z.enum([INFRA_PROVIDER_NAME], { error: `provider must be "${INFRA_PROVIDER_NAME}"` });

export const createServerInput = z.object({
  name: serverNameSchema.describe('Hostname-safe, unique among the live servers of the project'),
  slug: sizeSlugSchema.describe('The size slug, from GET /catalog/servers/sizes'),
  provider: providerSchema,
  region: z.string().min(1, 'Region is required').max(64, 'Region must be at most 64 characters').describe('A region slug where the size is sold'),
  sshKeyIds: z
    .array(z.string().min(1).max(100))
    .max(50, 'At most 50 SSH keys per server')
    .default([])
    .describe('Keys written to the server at first boot; decided at creation only. A server created without any cannot be reached over SSH'),
});

export const renameServerInput = z.object({ name: serverNameSchema });

export const serverActionInput = z.object({
  action: z.enum(POWER_ACTIONS, { error: `action must be one of ${POWER_ACTIONS.join(', ')}` }),
});

export const serverPreviewQuery = z.object({ provider: providerSchema, slug: sizeSlugSchema });

export const serverSchema = z
  .object({
    id: z.string(),
    organizationId: z.string().describe('The project the server belongs to'),
    name: z.string(),
    type: z.literal('LAMP'),
    region: z.string(),
    instanceType: z.string().describe('The size slug'),
    status: z.enum(SERVER_STATUSES).describe('PROVISIONING while first boot or a power action is applied, RUNNING when powered on, OFF when powered off'),
    ipAddress: z.string().nullable().describe('Public IPv4 address; null until the server has started for the first time'),
    hostname: z.string().describe('Set at first boot from the name; renaming the server does not change it'),
    sshUser: z.string(),
    phpVersion: z.string(),
    pgVersion: z.string(),
    pgDatabase: z.string().describe('The PostgreSQL database created at first boot'),
    pgUsername: z.string().describe('The PostgreSQL role that owns it'),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
    suspendedAt: isoDateTime
      .nullable()
      .describe(
        'Set while a billing suspension (an invoice unpaid past its grace period) keeps the server powered off; it is powered back on once the invoice is paid',
      ),
  })
  .meta({ id: 'Server' });

export const serverWithKeysSchema = serverSchema
  .extend({
    sshKeys: z
      .array(z.object({ id: z.string(), name: z.string(), fingerprint: z.string() }))
      .describe('The keys the server was created with, as they were then; a key deleted since still appears'),
  })
  .meta({ id: 'ServerWithKeys' });

export type Server = z.infer<typeof serverSchema>;
export type ServerWithKeys = z.infer<typeof serverWithKeysSchema>;
