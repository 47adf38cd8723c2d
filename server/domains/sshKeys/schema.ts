import { z } from 'zod';
import { SSH_KEY_TYPES } from '../../../db/schema/sshKeys';
import { isoDateTime } from '../../platform/schemas';

export { SSH_KEY_TYPES, type SshKeyType } from '../../../db/schema/sshKeys';

export const sshKeyNameSchema = z
  .string()
  .trim()
  .min(1, 'Name is required')
  .max(100, 'Name must be at most 100 characters')
  // The C0 and C1 control characters (Unicode's Cc) as explicit ranges: the pattern goes into the
  // OpenAPI document, and many clients' regex engines refuse `\p{…}` classes.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  .regex(/^[^\x00-\x1F\x7F-\x9F]*$/, 'Name cannot contain control characters or line breaks');

export const publicKeyInputSchema = z
  .string()
  .min(1, 'Paste a public key')
  .max(16_384, 'A public key is at most 16384 characters; paste a single key')
  .describe('One OpenSSH public key line: `<type> <base64> [comment]`. Types: ssh-ed25519, ssh-rsa (2048 bits or more), ecdsa-sha2-nistp256/384/521');

export const createSshKeyInput = z.object({ name: sshKeyNameSchema, publicKey: publicKeyInputSchema });
export const generateSshKeyInput = z.object({ name: sshKeyNameSchema.describe('Also written as the comment of both halves of the key') });

export const sshKeySchema = z
  .object({
    id: z.string(),
    organizationId: z.string().describe('The project the key belongs to'),
    name: z.string(),
    publicKey: z.string().describe('Normalised to `<type> <base64>[ <comment>]`'),
    fingerprint: z.string().describe('`SHA256:` and the unpadded base64 SHA-256 of the key, as `ssh-keygen -lf` prints it'),
    keyType: z.enum(SSH_KEY_TYPES),
    bits: z.number().int().describe('Key size: 256 for ed25519, the modulus size for RSA, the curve size for ECDSA'),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  })
  .meta({ id: 'SshKey' });

export const generatedSshKeySchema = sshKeySchema
  .extend({
    privateKey: z
      .string()
      .describe('The ed25519 private key in OpenSSH format (unencrypted). Returned only in this response and never stored: save it now, with mode 0600'),
  })
  .meta({ id: 'GeneratedSshKey' });

export const deletedSshKeySchema = z.object({
  stillAuthorisedOn: z
    .number()
    .int()
    .min(0)
    .describe('Live servers created with the key. Deleting a key does not remove it from servers that already trust it'),
});

export type SshKey = z.infer<typeof sshKeySchema>;
export type GeneratedSshKey = z.infer<typeof generatedSshKeySchema>;
export type DeletedSshKey = z.infer<typeof deletedSshKeySchema>;
