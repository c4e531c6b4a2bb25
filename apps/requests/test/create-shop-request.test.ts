import { ShopRequestResult, type ShopRequestInput } from '@msa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, buildPrincipal, buildShopRequest, sandboxWriter, startHarness, type Harness } from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('create');
});
afterAll(async () => {
  await h?.close();
});

/** Every call uses fresh sandbox credentials, so the daily quota never interferes. */
const postSandbox = (body: unknown) => h.post(body, { principal: sandboxWriter(), sandbox: true });

const fieldsOf = (res: { body: { error?: { fields?: { field: string }[] } } }) =>
  (res.body.error?.fields ?? []).map((f) => f.field);

const withProduct = (product: Record<string, unknown>): ShopRequestInput =>
  buildShopRequest({ products: [{ product: 'bio-t-shirt-unisex', ...product } as never] });
const withDesign = (design: Record<string, unknown>): ShopRequestInput => withProduct({ designs: [design] });

describe('POST /v1/shop-requests', () => {
  it('stores a valid request and answers 201 with a received ShopRequestResult', async () => {
    const principal = sandboxWriter();

    const res = await h.post(buildShopRequest(), { principal, sandbox: true });

    expect(res.status).toBe(201);
    const result = ShopRequestResult.parse(res.body);
    expect(result).toMatchObject({
      status: 'received',
      sandbox: true,
      organization: 'TSV Musterstadt 1899 e.V.',
      shop_name: 'TSV Musterstadt Fanshop',
      shop_type: 'b2c',
      products: [{ product: 'Bio T-Shirt Unisex', handle: 'bio-t-shirt-unisex', colors: ['Schwarz'], decoration: 'dtf', designs: 1 }],
      warnings: [],
      upstream: null,
    });
    expect(result.id).toMatch(/^req_[0-9a-f]{16}$/);
    expect(res.headers.location).toBe(`${TEST_BASE_URL}/sandbox/v1/shop-requests/${result.id}`);
    const stored = await h.store.get(result.id);
    expect(stored).toMatchObject({ ownerId: principal.id, intake: 'none', result });
  });

  describe('validation (rule 2): every bound of section 8 at its edge', () => {
    const accepted: [string, ShopRequestInput][] = [
      ['shop_name of 80 characters', buildShopRequest({ shop_name: 'x'.repeat(80) })],
      ['notes of 2000 characters', buildShopRequest({ notes: 'n'.repeat(2000) })],
      ['occasion of 120 characters', buildShopRequest({ occasion: 'o'.repeat(120) })],
      ['a product comment of 500 characters', withProduct({ comment: 'c'.repeat(500) })],
      ['a design comment of 500 characters', withDesign({ comment: 'c'.repeat(500) })],
      ['20 products', buildShopRequest({ products: Array.from({ length: 20 }, () => ({ product: 'bio-t-shirt-unisex' })) })],
      ['width_cm 1', withDesign({ width_cm: 1 })],
      ['width_cm 40', withDesign({ width_cm: 40 })],
      ['team_size 1', buildShopRequest({ team_size: 1 })],
    ];
    it.each(accepted)('accepts %s', async (_name, body) => {
      const res = await postSandbox(body);

      expect(res.status).toBe(201);
    });

    const rejected: [string, ShopRequestInput, string][] = [
      ['shop_name of 81 characters', buildShopRequest({ shop_name: 'x'.repeat(81) }), 'shop_name'],
      ['notes of 2001 characters', buildShopRequest({ notes: 'n'.repeat(2001) }), 'notes'],
      ['occasion of 121 characters', buildShopRequest({ occasion: 'o'.repeat(121) }), 'occasion'],
      ['a product comment of 501 characters', withProduct({ comment: 'c'.repeat(501) }), 'products.0.comment'],
      ['a design comment of 501 characters', withDesign({ comment: 'c'.repeat(501) }), 'products.0.designs.0.comment'],
      ['21 products', buildShopRequest({ products: Array.from({ length: 21 }, () => ({ product: 'bio-t-shirt-unisex' })) }), 'products'],
      ['width_cm 0.9', withDesign({ width_cm: 0.9 }), 'products.0.designs.0.width_cm'],
      ['width_cm 40.1', withDesign({ width_cm: 40.1 }), 'products.0.designs.0.width_cm'],
      ['team_size 0', buildShopRequest({ team_size: 0 }), 'team_size'],
      [
        'an invalid e-mail',
        buildShopRequest({ organization: { name: 'TSV', type: 'verein', contact_name: 'Eva', email: 'eva-at-tsv' } }),
        'organization.email',
      ],
      [
        'an unknown organization type',
        buildShopRequest({ organization: { name: 'TSV', type: 'kirche' as never, contact_name: 'Eva', email: 'eva@tsv.example' } }),
        'organization.type',
      ],
      ['a decoration other than dtf or stick', withProduct({ decoration: 'dtg' }), 'products.0.decoration'],
      ['a logo_url that is not http(s)', withDesign({ logo_url: 'ftp://example.com/logo.png' }), 'products.0.designs.0.logo_url'],
      ['a group_order_until that is not a date', buildShopRequest({ group_order_until: '31.12.2030' }), 'group_order_until'],
    ];
    it.each(rejected)('rejects %s with 422 on its field', async (_name, body, field) => {
      const res = await postSandbox(body);

      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', status: 422 });
      expect(fieldsOf(res)).toEqual([field]);
    });

    it('lists every problem of a body at once, with dotted paths', async () => {
      const body = buildShopRequest({
        shop_name: 'x'.repeat(81),
        organization: { name: 'TSV', type: 'verein', contact_name: 'Eva', email: 'not-an-email' },
        notes: 'n'.repeat(2001),
        products: [
          { product: 'bio-t-shirt-unisex' },
          { product: 'no-such-product' },
          { product: 'bio-t-shirt-unisex' },
          { product: 'bio-t-shirt-unisex', designs: [{ width_cm: 0.5 }] },
        ],
      });

      const res = await postSandbox(body);

      expect(res.status).toBe(422);
      expect(fieldsOf(res).sort()).toEqual(
        ['notes', 'organization.email', 'products.1.product', 'products.3.designs.0.width_cm', 'shop_name'].sort(),
      );
      expect(res.body.error.fields.every((f: { message: string }) => f.message.length > 0)).toBe(true);
    });

    it('names an unknown field instead of ignoring it', async () => {
      const res = await postSandbox({ ...buildShopRequest(), shop_colour: 'blue' });

      expect(res.status).toBe(422);
      expect(fieldsOf(res)).toEqual(['shop_colour']);
    });

    it('stores nothing for a rejected request', async () => {
      const before = await h.recordCount();

      await postSandbox(buildShopRequest({ shop_name: '' }));

      expect(await h.recordCount()).toBe(before);
    });
  });

  describe('products (rule 1)', () => {
    it('rejects a request without products when design_service is not true', async () => {
      const { products: _omit, ...body } = buildShopRequest();

      const res = await postSandbox(body);

      expect(res.status).toBe(422);
      expect(fieldsOf(res)).toEqual(['products']);
    });

    it('rejects an empty products list', async () => {
      const res = await postSandbox(buildShopRequest({ products: [] }));

      expect(res.status).toBe(422);
      expect(fieldsOf(res)).toEqual(['products']);
    });

    it('accepts a request without products when design_service is true', async () => {
      const { products: _omit, ...body } = buildShopRequest({ design_service: true });

      const res = await postSandbox(body);

      expect(res.status).toBe(201);
      expect(res.body.products).toEqual([]);
    });

    it('resolves a product by its title, ignoring case', async () => {
      const res = await postSandbox(buildShopRequest({ products: [{ product: 'BIO T-SHIRT unisex' }] }));

      expect(res.status).toBe(201);
      expect(res.body.products[0]).toMatchObject({ product: 'Bio T-Shirt Unisex', handle: 'bio-t-shirt-unisex' });
    });

    it('rejects an unknown product on its field and points at the product list', async () => {
      const res = await postSandbox(buildShopRequest({ products: [{ product: 'bio-t-shirt-unisex' }, { product: 'Einhorn-Pulli' }] }));

      expect(res.status).toBe(422);
      expect(res.body.error.fields).toEqual([
        { field: 'products.1.product', message: expect.stringContaining('GET /v1/products') },
      ]);
    });
  });

  describe('shop type (rule 3) and prices', () => {
    it.each([
      ['schule', 'b2c'],
      ['verein', 'b2c'],
      ['unternehmen', 'b2b'],
      ['handwerk', 'b2b'],
      ['gastro', 'b2b'],
    ] as const)('gives organization type %s the shop type %s', async (type, shopType) => {
      const res = await postSandbox(
        buildShopRequest({ organization: { name: 'Org', type, contact_name: 'Eva', email: 'eva@org.example' } }),
      );

      expect(res.status).toBe(201);
      expect(res.body.shop_type).toBe(shopType);
    });

    it('estimates a b2c price as the gross printed from-price', async () => {
      const res = await postSandbox(buildShopRequest({ team_size: 30 }));

      expect(res.body.products[0].estimated_price_from).toBe(19.9);
    });

    it('estimates a b2b price as the net price of the tier that fits the team size', async () => {
      const company = { name: 'Muster GmbH', type: 'unternehmen', contact_name: 'Max', email: 'max@muster.example' } as const;

      const small = await postSandbox(buildShopRequest({ organization: company, team_size: 9 }));
      const mid = await postSandbox(buildShopRequest({ organization: company, team_size: 30 }));
      const none = await postSandbox(buildShopRequest({ organization: company }));

      expect(small.body.products[0].estimated_price_from).toBe(16.72);
      expect(mid.body.products[0].estimated_price_from).toBe(13.36);
      expect(none.body.products[0].estimated_price_from).toBe(16.72);
    });
  });

  describe('warnings', () => {
    it('warns about a color the product does not list, about embroidery, a private logo host and private_shop on a b2c shop', async () => {
      const body = buildShopRequest({
        private_shop: true,
        products: [
          { product: 'bio-t-shirt-unisex', colors: ['schwarz', 'Pink'] },
          { product: 'bio-hoodie-unisex', decoration: 'stick', designs: [{ logo_url: 'http://localhost:9000/logo.png' }] },
        ],
      });

      const res = await postSandbox(body);

      expect(res.status).toBe(201);
      expect(res.body.products[0].colors).toEqual(['Schwarz', 'Pink']);
      expect(res.body.warnings).toEqual([
        expect.stringMatching(/^products\.0\.colors: 'Pink' is not listed/),
        expect.stringMatching(/^products\.1\.decoration: embroidery \(stick\) is paused/),
        expect.stringMatching(/^products\.1\.designs\.0\.logo_url: .*not publicly reachable/),
        expect.stringMatching(/^private_shop: private shops are for company shops only/),
      ]);
    });
  });

  describe('credentials', () => {
    it('answers 401 to a live call without a principal', async () => {
      const res = await h.post(buildShopRequest(), { principal: null, sandbox: false });

      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    });

    it('answers 403 insufficient_scope to a principal without requests:write', async () => {
      const principal = buildPrincipal({ scopes: ['catalog:read', 'requests:read'] });

      const res = await h.post(buildShopRequest(), { principal, sandbox: true });

      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('insufficient_scope');
    });

    it('accepts an anonymous sandbox call, owned by the caller IP, and explains how to get credentials', async () => {
      const res = await h.post(buildShopRequest(), { principal: null, sandbox: true, ip: '203.0.113.7' });

      expect(res.status).toBe(201);
      expect(res.body.sandbox).toBe(true);
      expect(res.body.next_steps).toContain('POST http://api.test.local/v1/keys');
      expect((await h.store.get(res.body.id))?.ownerId).toBe('anon:4:203.0.113.7');
    });
  });
});
