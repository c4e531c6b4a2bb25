import type { ShopRequestBody, ShopRequestResult } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { ERASED_EMAIL, erasedRequest, personalTextsOf } from './erased-request.js';

const body: ShopRequestBody = {
  organization: { name: 'Kita Sonnenschein', type: 'verein', contact_name: 'Erika Mustermann', email: 'erika@example.org', phone: '+49 30 1' },
  shop_name: 'Sonnenschein Shop',
  products: [{ product: 'bio-t-shirt-unisex', colors: ['Rot'], decoration: 'dtf', comment: 'für Erika', designs: [{ position: 'Rücken', width_cm: 20, logo_url: 'https://logo.example/a.png', comment: 'groß' }] }],
  design_service: false,
  password_protection: false,
  private_shop: false,
  customer_account: false,
  notes: 'Ruf Erika an',
  occasion: 'Sommerfest',
  team_size: 12,
};
const result = { id: 'req_0123456789abcdef', warnings: ['logo https://logo.example/a.png is small'] } as unknown as ShopRequestResult;

describe('erasedRequest', () => {
  it('leaves no name, address, phone, free text or logo URL', () => {
    const erased = erasedRequest({ body, result, submitter: { email: 'erika@example.org', client_id: 'c', client_name: 'Host' } });

    expect(personalTextsOf(erased)).toEqual([]);
    expect(JSON.stringify(erased)).not.toMatch(/Erika|erika@|logo\.example|\+49|Sommerfest/);
    expect(erased.submitter).toEqual({ email: ERASED_EMAIL, client_id: 'c', client_name: 'Host' });
  });

  it('keeps the organization, shop, products, colours, positions and sizes', () => {
    const erased = erasedRequest({ body, result });

    expect(erased.body).toMatchObject({
      organization: { name: 'Kita Sonnenschein', type: 'verein' },
      shop_name: 'Sonnenschein Shop',
      team_size: 12,
      products: [{ product: 'bio-t-shirt-unisex', colors: ['Rot'], designs: [{ position: 'Rücken', width_cm: 20 }] }],
    });
    expect(erased.result.id).toBe('req_0123456789abcdef');
  });

  it('lists the personal texts of a request that has them', () => {
    expect(personalTextsOf({ body, result })).toEqual(expect.arrayContaining(['Erika Mustermann', 'erika@example.org', 'Ruf Erika an', 'https://logo.example/a.png']));
  });
});
