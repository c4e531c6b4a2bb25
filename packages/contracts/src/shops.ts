import { DateTime } from './common.js';
import { z } from './zod.js';

export const SHOP_CATEGORIES = ['schule', 'verein', 'unternehmen', 'handwerker', 'gastro'] as const;
export const ShopCategory = z.enum(SHOP_CATEGORIES);
export type ShopCategory = z.infer<typeof ShopCategory>;

export const Shop = z
  .object({
    name: z.string(),
    category: z.union([ShopCategory, z.literal('')]),
    url: z.url(),
    password_protected: z.boolean().optional(),
    image: z.url().nullable().optional(),
  })
  .openapi('Shop');
export type Shop = z.infer<typeof Shop>;

export const ShopList = z
  .object({
    generated_at: DateTime,
    count: z.number().int(),
    shops: z.array(Shop),
  })
  .openapi('ShopList');
export type ShopList = z.infer<typeof ShopList>;

export const ShopListQuery = z.object({
  category: ShopCategory.optional(),
});
export type ShopListQuery = z.infer<typeof ShopListQuery>;
