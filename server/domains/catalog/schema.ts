import { z } from 'zod';

const priceMonthly = z.number().int().describe('Price per month in minor units (cents) of `currency`');
const priceHourly = z
  .number()
  .describe('Price per hour in minor units, up to three decimals (0.893 = $0.00893); billing never exceeds priceMonthly in a month');
const currency = z.string().describe('Lower-case ISO 4217 code of the prices');

export const serverSizeSchema = z
  .object({
    slug: z.string().describe('What `slug` takes in server creation and preview'),
    description: z.string().describe('The size family: Basic, General Purpose, CPU-Optimized'),
    vcpus: z.number().int(),
    memoryMb: z.number().int(),
    diskGb: z.number().int().describe('SSD disk'),
    transferTb: z.number().describe('Outbound transfer included per month'),
    priceMonthly,
    priceHourly,
    currency,
    regions: z.array(z.string()).describe('Region slugs where the size is sold'),
    available: z.boolean().describe('False when it cannot be bought anywhere at the moment'),
  })
  .meta({ id: 'ServerSize' });

export const serverRegionSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    country: z.string().describe('ISO 3166-1 alpha-2 country of the data centre'),
    available: z.boolean().describe('False when new servers cannot be created there'),
    sizes: z.array(z.string()).describe('Slugs of the sizes sold in the region'),
  })
  .meta({ id: 'ServerRegion' });

export const oneClickSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    distribution: z.string().describe('The operating system it is built on'),
    minDiskGb: z.number().int().describe('Sizes with less disk cannot run it'),
    regions: z.array(z.string()),
  })
  .meta({ id: 'OneClickApplication' });

export const appSizeSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    cpus: z.number().int(),
    memoryMb: z.number().int(),
    priceMonthly,
    priceHourly,
    currency,
  })
  .meta({ id: 'AppSize' });

export const appRegionSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    country: z.string().describe('ISO 3166-1 alpha-2'),
    available: z.boolean(),
  })
  .meta({ id: 'AppRegion' });

export type ServerSize = z.infer<typeof serverSizeSchema>;
export type ServerRegion = z.infer<typeof serverRegionSchema>;
export type OneClick = z.infer<typeof oneClickSchema>;
export type AppSize = z.infer<typeof appSizeSchema>;
export type AppRegion = z.infer<typeof appRegionSchema>;
