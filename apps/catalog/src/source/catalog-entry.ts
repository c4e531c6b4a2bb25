// The shape of one product as a catalog source delivers it: the embedded data
// file and an HTTP feed alike. It is the Product of the specification without
// the fields the service derives (`url`, `currency`, and `image` unless the
// feed names one), so a feed cannot point product links elsewhere.
import { Decoration, Handle, QuantityPrices } from '@msa/contracts';
import { z } from 'zod';

export const CatalogEntry = z.object({
  handle: Handle,
  title: z.string().min(1),
  type: z.string().optional(),
  available: z.boolean().optional(),
  tags: z.array(z.string()).optional(),
  blank_price_from: z.number().nonnegative().nullable().optional(),
  printed_price_from: z.number().nonnegative().nullable().optional(),
  quantity_prices_dtf: QuantityPrices.nullable().optional(),
  decoration: z.array(Decoration).optional(),
  colors: z.array(z.string()).optional(),
  sizes: z.array(z.string()).optional(),
  image: z.url().nullable().optional(),
  description: z.string().optional(),
});
export type CatalogEntry = z.infer<typeof CatalogEntry>;

const EntryList = z.array(CatalogEntry).superRefine((entries, ctx) => {
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    if (seen.has(entry.handle)) {
      ctx.addIssue({ code: 'custom', path: [i, 'handle'], message: `duplicate handle '${entry.handle}'` });
    }
    seen.add(entry.handle);
  });
});

/** What a catalog source may answer: the array itself, or `{ products: [...] }`. */
export const CatalogFeed = z.union([EntryList, z.object({ products: EntryList }).transform((feed) => feed.products)]);
