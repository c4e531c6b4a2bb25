// The public shop list as loaded from its source, with the wire shapes built
// once per link base.
import type { Shop, ShopCategory } from '@msa/contracts';
import type { ShopEntry } from '../source/shop-entry.js';
import { toShop } from './shop-view.js';

export interface ShopDirectory {
  readonly entries: readonly ShopEntry[];
  /** Shops in source order, only those of `category` when given. */
  listShops(category: ShopCategory | undefined, base: string): Shop[];
  /** The shop whose `image_path` is exactly `path`. */
  findShopByImagePath(path: string): ShopEntry | undefined;
}

export function createShopDirectory(entries: readonly ShopEntry[]): ShopDirectory {
  const viewsByBase = new Map<string, Shop[]>();
  const byImagePath = new Map(entries.filter((e) => e.image_path !== null).map((e) => [e.image_path!, e]));

  function allShops(base: string): Shop[] {
    let views = viewsByBase.get(base);
    if (!views) {
      views = entries.map((e) => toShop(e, base));
      viewsByBase.set(base, views);
    }
    return views;
  }

  return {
    entries,
    listShops(category, base) {
      const all = allShops(base);
      return category === undefined ? all : all.filter((shop) => shop.category === category);
    },
    findShopByImagePath(path) {
      return byImagePath.get(path);
    },
  };
}
