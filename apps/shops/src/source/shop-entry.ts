// The shape of one public shop as a source delivers it (the embedded data
// file or an HTTP feed). The service derives the shop URL from `slug` and the
// image URL from `image_path`, so a source names neither host.
import { ShopCategory } from '@msa/contracts';
import { z } from 'zod';

export const ShopEntry = z.object({
  name: z.string().min(1),
  category: z.union([ShopCategory, z.literal('')]),
  slug: z.string().regex(/^[a-z0-9-]+$/, 'must match ^[a-z0-9-]+$').max(120),
  password_protected: z.boolean().default(false),
  image_path: z
    .string()
    .regex(/^\/[A-Za-z0-9._~/-]+$/, 'must be an absolute path such as /images/shops/<slug>.svg')
    .refine((p) => !p.split('/').includes('..'), 'must not contain ..')
    .nullable()
    .default(null),
});
export type ShopEntry = z.infer<typeof ShopEntry>;

const EntryList = z.array(ShopEntry).superRefine((entries, ctx) => {
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    if (seen.has(entry.slug)) ctx.addIssue({ code: 'custom', path: [i, 'slug'], message: `duplicate slug '${entry.slug}'` });
    seen.add(entry.slug);
  });
});

/** What a shops source may answer: the array itself, or `{ shops: [...] }`. */
export const ShopFeed = z.union([EntryList, z.object({ shops: EntryList }).transform((feed) => feed.shops)]);
