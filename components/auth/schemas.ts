import { z } from 'zod';
import { accountNameInput, changePasswordInput, restoreInput, signUpInput } from '@/server/domains/accounts/schema';
import { emailSchema, passwordSchema } from '@/server/platform/schemas';

/** The server's own input schemas, plus the fields only a form has (confirmations). */
export const signUpForm = signUpInput;
export const signInForm = z.object({ email: emailSchema, password: z.string().min(1, 'Enter your password') });
export const restoreForm = restoreInput.pick({ email: true });
export const newPasswordForm = z
  .object({ password: passwordSchema, confirmPassword: z.string() })
  .refine((v) => v.password === v.confirmPassword, { path: ['confirmPassword'], message: 'The passwords do not match' });
export const changePasswordForm = changePasswordInput
  .extend({ confirmPassword: z.string() })
  .refine((v) => v.newPassword === v.confirmPassword, { path: ['confirmPassword'], message: 'The passwords do not match' });
export const accountNameForm = accountNameInput;
