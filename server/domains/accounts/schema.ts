import { z } from 'zod';
import { emailSchema, isoDateTime, passwordSchema, personNameSchema } from '../../platform/schemas';

export const signUpInput = z.object({ name: personNameSchema, email: emailSchema, password: passwordSchema });
export const restoreInput = z.object({
  email: emailSchema,
  locale: z
    .string()
    .min(2)
    .max(35)
    .regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/, 'locale must be a language tag such as en or en-GB')
    .default('en'),
});
export const completeResetInput = z.object({ token: z.string().min(20).max(200), password: passwordSchema });
export const changePasswordInput = z.object({ currentPassword: z.string().min(1, 'Enter your current password').max(200), newPassword: passwordSchema });
export const accountNameInput = z.object({ name: personNameSchema });
export const verifyEmailInput = z.object({ token: z.string().min(20).max(200) });

/** The account as the API answers it (no `.meta` id: it stays inline in the OpenAPI document). */
export const accountSchema = z.object({ id: z.string(), email: z.string(), name: z.string() });

/** The signed-in account, with whether its address has been verified. */
export const ownAccountSchema = accountSchema.extend({
  emailVerifiedAt: isoDateTime.nullable().describe('When the address was verified; null until the emailed link has been opened'),
});

export const verifiedEmailSchema = z.object({ email: z.string() });

export type Account = z.infer<typeof accountSchema>;
export type OwnAccount = z.infer<typeof ownAccountSchema>;

/**
 * The sign-in error (next-auth's `error`) when too many failed attempts hold the account or the
 * client address back, followed by `:<seconds>` until the next attempt is let through.
 */
export const SIGN_IN_THROTTLED = 'SignInThrottled';
