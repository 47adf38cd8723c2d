import { z } from 'zod';
import { COMPLETE_RESTORE, CREATE_ACCOUNT, RESEND_VERIFICATION, RESTORE_ACCOUNT, VERIFY_EMAIL } from './docs';
import { resendVerificationEmail, verifyEmail } from './emailVerification';
import {
  accountNameInput,
  accountSchema,
  changePasswordInput,
  completeResetInput,
  ownAccountSchema,
  restoreInput,
  signUpInput,
  verifiedEmailSchema,
  verifyEmailInput,
} from './schema';
import * as accounts from './service';
import { authedProcedure, publicProcedure, router } from '../../platform/trpc';

const TAGS = ['Accounts'];

export const accountsRouter = router({
  create: publicProcedure
    .meta({
      openapi: { method: 'POST', path: '/accounts', tags: TAGS, summary: 'Create an account', description: CREATE_ACCOUNT, protect: false },
      successStatus: 201,
      errors: ['CONFLICT', 'UPSTREAM_ERROR'],
    })
    .input(signUpInput)
    .output(z.object({ user: accountSchema }))
    .mutation(async ({ input }) => ({ user: await accounts.createAccount(input) })),

  restore: publicProcedure
    .meta({
      openapi: { method: 'POST', path: '/accounts/restore', tags: TAGS, summary: 'Request a password reset', description: RESTORE_ACCOUNT, protect: false },
    })
    .input(restoreInput)
    .output(z.null())
    .mutation(async ({ ctx, input }) => {
      await accounts.requestPasswordReset({ ...input, ip: ctx.ip });
      return null;
    }),

  completeRestore: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/accounts/restore/complete',
        tags: TAGS,
        summary: 'Choose a new password with a reset token',
        description: COMPLETE_RESTORE,
        protect: false,
      },
      errors: ['BAD_REQUEST'],
    })
    .input(completeResetInput)
    .output(z.null())
    .mutation(async ({ input }) => {
      await accounts.completePasswordReset(input.token, input.password);
      return null;
    }),

  verifyEmail: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/accounts/verify-email',
        tags: TAGS,
        summary: 'Verify an email address with the emailed token',
        description: VERIFY_EMAIL,
        protect: false,
      },
      errors: ['BAD_REQUEST', 'LINK_EXPIRED'],
    })
    .input(verifyEmailInput)
    .output(verifiedEmailSchema)
    .mutation(({ input }) => verifyEmail(input.token)),

  resendVerification: authedProcedure
    .meta({
      openapi: { method: 'POST', path: '/account/verification-email', tags: TAGS, summary: 'Send a new verification email', description: RESEND_VERIFICATION },
      sessionOnly: true,
      errors: ['CONFLICT'],
    })
    .input(z.object({}))
    .output(z.null())
    .mutation(async ({ ctx }) => {
      await resendVerificationEmail(ctx.actor.userId);
      return null;
    }),

  me: authedProcedure
    .meta({
      openapi: { method: 'GET', path: '/account', tags: TAGS, summary: 'The signed-in account' },
      sessionOnly: true,
    })
    .input(z.object({}))
    .output(ownAccountSchema)
    .query(({ ctx }) => accounts.getAccount(ctx.actor.userId)),

  updateName: authedProcedure
    .meta({
      openapi: { method: 'PATCH', path: '/account', tags: TAGS, summary: 'Change the account name' },
      sessionOnly: true,
    })
    .input(accountNameInput)
    .output(ownAccountSchema)
    .mutation(({ ctx, input }) => accounts.updateAccountName(ctx.actor.userId, input.name)),

  changePassword: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/account/password',
        tags: TAGS,
        summary: 'Change the password',
        description: 'Ends every session of the account; the panel signs in again.',
      },
      sessionOnly: true,
    })
    .input(changePasswordInput)
    .output(z.null())
    .mutation(async ({ ctx, input }) => {
      await accounts.changePassword(ctx.actor.userId, input.currentPassword, input.newPassword);
      return null;
    }),
});
