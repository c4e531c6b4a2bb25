import { describe, expect, it } from 'vitest';
import { LIMITS } from './common.js';
import {
  Design,
  ORGANIZATION_TYPES,
  Organization,
  RequestedProduct,
  ShopRequestBody,
  ShopRequestId,
  ShopRequestIdParams,
  shopTypeOf,
  type OrganizationType,
  type ShopRequestInput,
} from './shop-requests.js';

type OrganizationInput = ShopRequestInput['organization'];
type ProductInput = NonNullable<ShopRequestInput['products']>[number];
type DesignInput = NonNullable<ProductInput['designs']>[number];

function buildOrganization(overrides: Partial<OrganizationInput> = {}): OrganizationInput {
  return { name: 'TSV Musterstadt', type: 'verein', contact_name: 'Erika Muster', email: 'erika@example.de', ...overrides };
}

function buildProduct(overrides: Partial<ProductInput> = {}): ProductInput {
  return { product: 'bio-t-shirt-unisex', ...overrides };
}

function buildDesign(overrides: Partial<DesignInput> = {}): DesignInput {
  return { position: 'Brust links', width_cm: 10, logo_url: 'https://example.de/logo.png', ...overrides };
}

function buildShopRequest(overrides: Partial<ShopRequestInput> = {}): ShopRequestInput {
  return {
    organization: buildOrganization(),
    shop_name: 'TSV Musterstadt Fanshop',
    products: [buildProduct({ designs: [buildDesign()] })],
    ...overrides,
  };
}

/** The dotted paths of every issue, as the error envelope's `field` would name them. */
function issuePaths(value: unknown): string[] {
  const parsed = ShopRequestBody.safeParse(value);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => issue.path.map(String).join('.'));
}

describe('ShopRequestBody', () => {
  it('accepts a minimal valid request and fills the defaults', () => {
    const parsed = ShopRequestBody.parse(buildShopRequest());

    expect(parsed).toMatchObject({
      design_service: false,
      password_protection: false,
      private_shop: false,
      customer_account: false,
    });
    expect(parsed.products?.[0]?.decoration).toBe('dtf');
  });

  describe('shop_name', () => {
    it('accepts 80 characters', () => {
      expect(ShopRequestBody.safeParse(buildShopRequest({ shop_name: 'a'.repeat(80) })).success).toBe(true);
    });

    it('rejects 81 characters on shop_name', () => {
      expect(issuePaths(buildShopRequest({ shop_name: 'a'.repeat(81) }))).toEqual(['shop_name']);
    });

    it('rejects an empty or whitespace-only name', () => {
      expect(issuePaths(buildShopRequest({ shop_name: '   ' }))).toEqual(['shop_name']);
    });

    it('rejects a request without shop_name', () => {
      const { shop_name: _omitted, ...body } = buildShopRequest();

      expect(issuePaths(body)).toEqual(['shop_name']);
    });
  });

  describe('notes', () => {
    it('accepts 2000 characters', () => {
      expect(ShopRequestBody.safeParse(buildShopRequest({ notes: 'n'.repeat(2000) })).success).toBe(true);
    });

    it('rejects 2001 characters on notes', () => {
      expect(issuePaths(buildShopRequest({ notes: 'n'.repeat(2001) }))).toEqual(['notes']);
    });
  });

  describe('occasion', () => {
    it('accepts 120 characters', () => {
      expect(ShopRequestBody.safeParse(buildShopRequest({ occasion: 'o'.repeat(120) })).success).toBe(true);
    });

    it('rejects 121 characters on occasion', () => {
      expect(issuePaths(buildShopRequest({ occasion: 'o'.repeat(121) }))).toEqual(['occasion']);
    });
  });

  describe('comments', () => {
    it('accepts a product comment and a design comment of 500 characters', () => {
      const body = buildShopRequest({
        products: [buildProduct({ comment: 'c'.repeat(500), designs: [buildDesign({ comment: 'd'.repeat(500) })] })],
      });

      expect(ShopRequestBody.safeParse(body).success).toBe(true);
    });

    it('rejects a product comment of 501 characters at its dotted path', () => {
      const body = buildShopRequest({ products: [buildProduct(), buildProduct({ comment: 'c'.repeat(501) })] });

      expect(issuePaths(body)).toEqual(['products.1.comment']);
    });

    it('rejects a design comment of 501 characters at its dotted path', () => {
      const body = buildShopRequest({
        products: [buildProduct({ designs: [buildDesign(), buildDesign({ comment: 'd'.repeat(501) })] })],
      });

      expect(issuePaths(body)).toEqual(['products.0.designs.1.comment']);
    });
  });

  describe('products', () => {
    it('accepts 20 products', () => {
      const products = Array.from({ length: 20 }, () => buildProduct());

      expect(ShopRequestBody.safeParse(buildShopRequest({ products })).success).toBe(true);
    });

    it('rejects 21 products on products', () => {
      const products = Array.from({ length: 21 }, () => buildProduct());

      expect(issuePaths(buildShopRequest({ products }))).toEqual(['products']);
    });

    it('rejects a decoration other than dtf or stick', () => {
      const body = buildShopRequest({ products: [buildProduct({ decoration: 'dtg' as 'dtf' })] });

      expect(issuePaths(body)).toEqual(['products.0.decoration']);
    });
  });

  describe('width_cm', () => {
    it.each([1, 40, 12.5])('accepts %s cm', (width_cm) => {
      expect(Design.safeParse(buildDesign({ width_cm })).success).toBe(true);
    });

    it.each([0.9, 40.1, 0, -5])('rejects %s cm at its dotted path', (width_cm) => {
      const body = buildShopRequest({ products: [buildProduct({ designs: [buildDesign({ width_cm })] })] });

      expect(issuePaths(body)).toEqual(['products.0.designs.0.width_cm']);
    });
  });

  describe('team_size', () => {
    it('accepts 1', () => {
      expect(ShopRequestBody.safeParse(buildShopRequest({ team_size: 1 })).success).toBe(true);
    });

    it.each([0, -1, 2.5])('rejects %s', (team_size) => {
      expect(issuePaths(buildShopRequest({ team_size }))).toEqual(['team_size']);
    });
  });

  describe('group_order_until', () => {
    it('accepts a date YYYY-MM-DD', () => {
      expect(ShopRequestBody.safeParse(buildShopRequest({ group_order_until: '2026-09-30' })).success).toBe(true);
    });

    it.each(['30.09.2026', '2026-09-30T12:00:00Z', '2026-13-01'])('rejects %s', (group_order_until) => {
      expect(issuePaths(buildShopRequest({ group_order_until }))).toEqual(['group_order_until']);
    });
  });

  describe('organization.type', () => {
    it.each(ORGANIZATION_TYPES)('accepts %s', (type) => {
      expect(Organization.safeParse(buildOrganization({ type })).success).toBe(true);
    });

    it('rejects handwerker, the shop category spelling, for an organization', () => {
      const body = buildShopRequest({ organization: buildOrganization({ type: 'handwerker' as OrganizationType }) });

      expect(issuePaths(body)).toEqual(['organization.type']);
    });

    it('rejects a type outside the enumeration', () => {
      const body = buildShopRequest({ organization: buildOrganization({ type: 'kita' as OrganizationType }) });

      expect(issuePaths(body)).toEqual(['organization.type']);
    });
  });

  describe('organization.email', () => {
    it.each(['erika@example.de', 'e.muster+shop@verein.example.at'])('accepts %s', (email) => {
      expect(Organization.safeParse(buildOrganization({ email })).success).toBe(true);
    });

    it.each(['erika', 'erika@', '@example.de', 'erika@example', 'erika muster@example.de', ''])(
      'rejects %j at organization.email',
      (email) => {
        expect(issuePaths(buildShopRequest({ organization: buildOrganization({ email }) }))).toEqual(['organization.email']);
      },
    );
  });

  it('names each missing required organization field', () => {
    const body = buildShopRequest({ organization: { type: 'schule' } as OrganizationInput });

    expect(issuePaths(body).sort()).toEqual(['organization.contact_name', 'organization.email', 'organization.name']);
  });

  describe('rule 1: products or design service', () => {
    it('rejects a request without products at path products', () => {
      const { products: _omitted, ...body } = buildShopRequest();

      expect(issuePaths(body)).toEqual(['products']);
    });

    it('rejects an empty product list at path products', () => {
      expect(issuePaths(buildShopRequest({ products: [] }))).toEqual(['products']);
    });

    it('rejects an empty product list when design_service is false', () => {
      expect(issuePaths(buildShopRequest({ products: [], design_service: false }))).toEqual(['products']);
    });

    it('accepts design_service true without products', () => {
      const { products: _omitted, ...body } = buildShopRequest({ design_service: true });

      expect(ShopRequestBody.safeParse(body).success).toBe(true);
    });

    it('reports the missing products alongside other problems', () => {
      const body = buildShopRequest({ products: [], organization: buildOrganization({ email: 'nope' }) });

      expect(issuePaths(body).sort()).toEqual(['organization.email', 'products']);
    });
  });

  describe('logo_url', () => {
    it.each(['https://example.de/logo.png', 'http://example.de/logo.svg'])('accepts %s', (logo_url) => {
      expect(Design.safeParse(buildDesign({ logo_url })).success).toBe(true);
    });

    it.each(['ftp://example.de/logo.png', 'file:///etc/passwd', 'javascript:alert(1)', 'data:image/png;base64,AAAA', 'logo.png'])(
      'rejects %s',
      (logo_url) => {
        const body = buildShopRequest({ products: [buildProduct({ designs: [buildDesign({ logo_url })] })] });

        expect(issuePaths(body)).toEqual(['products.0.designs.0.logo_url']);
      },
    );
  });

  describe('distinct logo URLs', () => {
    const withLogos = (count: number, distinct = count) =>
      buildShopRequest({
        products: Array.from({ length: Math.ceil(count / 10) }, (_, p) =>
          buildProduct({
            designs: Array.from({ length: Math.min(10, count - p * 10) }, (_, d) => buildDesign({ logo_url: `https://example.de/logo-${(p * 10 + d) % distinct}.png` })),
          }),
        ),
      });

    it(`accepts ${LIMITS.logoUrlsPerShopRequest} distinct logo URLs`, () => {
      expect(ShopRequestBody.safeParse(withLogos(LIMITS.logoUrlsPerShopRequest)).success).toBe(true);
    });

    it('refuses a request naming more distinct logo URLs than one e-mail may carry', () => {
      expect(issuePaths(withLogos(LIMITS.logoUrlsPerShopRequest + 1))).toEqual(['products']);
    });

    it('counts a logo URL repeated in several designs once', () => {
      expect(ShopRequestBody.safeParse(withLogos(LIMITS.logoUrlsPerShopRequest + 5, 3)).success).toBe(true);
    });
  });

  describe('unknown fields', () => {
    it('rejects an unknown top-level field', () => {
      const parsed = ShopRequestBody.safeParse({ ...buildShopRequest(), shopname: 'typo' });

      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues).toEqual([
        expect.objectContaining({ code: 'unrecognized_keys', keys: ['shopname'], path: [] }),
      ]);
    });

    it('rejects an unknown field of a nested design with its dotted path', () => {
      const design = { ...buildDesign(), colour: 'red' };
      const parsed = ShopRequestBody.safeParse(buildShopRequest({ products: [buildProduct({ designs: [design] })] }));

      expect(parsed.error?.issues).toEqual([
        expect.objectContaining({ code: 'unrecognized_keys', keys: ['colour'], path: ['products', 0, 'designs', 0] }),
      ]);
    });

    it('rejects an unknown field of the organization and of a product', () => {
      const body = buildShopRequest({
        organization: { ...buildOrganization(), website: 'https://example.de' } as OrganizationInput,
        products: [{ ...buildProduct(), size: 'XL' } as ProductInput],
      });

      expect(issuePaths(body).sort()).toEqual(['organization', 'products.0']);
    });
  });
});

describe('RequestedProduct', () => {
  it('defaults decoration to dtf', () => {
    expect(RequestedProduct.parse({ product: 'cap' }).decoration).toBe('dtf');
  });
});

describe('shopTypeOf', () => {
  it.each([
    ['schule', 'b2c'],
    ['verein', 'b2c'],
    ['unternehmen', 'b2b'],
    ['handwerk', 'b2b'],
    ['gastro', 'b2b'],
  ] as const)('maps %s to %s', (type, expected) => {
    expect(shopTypeOf(type)).toBe(expected);
  });
});

describe('ShopRequestId', () => {
  it('accepts req_ followed by 16 lowercase hex digits', () => {
    expect(ShopRequestId.safeParse('req_0123456789abcdef').success).toBe(true);
    expect(ShopRequestIdParams.safeParse({ id: 'req_ffffffffffffffff' }).success).toBe(true);
  });

  it.each(['req_0123456789ABCDEF', 'req_0123456789abcde', 'req_0123456789abcdef0', 'REQ_0123456789abcdef', '0123456789abcdef', 'req_0123456789abcdeg'])(
    'rejects %s',
    (id) => {
      expect(ShopRequestId.safeParse(id).success).toBe(false);
    },
  );
});
