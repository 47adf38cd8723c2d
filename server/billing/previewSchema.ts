import { z } from 'zod';
import { isoDateTime } from '../platform/schemas';

/** What every paid domain's preview endpoint answers, and the engine's previews are typed by. */
export const previewSchema = z
  .object({
    subtotal: z.number().int(),
    tax: z.number().int().nullable().describe('Null when the tax location is unknown'),
    creditApplied: z.number().int(),
    dueToday: z.number().int(),
    monthly: z.number().int(),
    currency: z.string(),
    nextBillingDate: isoDateTime,
  })
  .meta({ id: 'ChargePreview', description: 'Amounts in minor units' });

export const tierChangePreviewSchema = previewSchema
  .extend({
    direction: z.enum(['upgrade', 'downgrade']),
    creditBack: z.number().int(),
    currentMonthly: z.number().int(),
  })
  .meta({ id: 'TierChangePreview' });

export type Preview = z.infer<typeof previewSchema>;
export type TierChangePreview = z.infer<typeof tierChangePreviewSchema>;
