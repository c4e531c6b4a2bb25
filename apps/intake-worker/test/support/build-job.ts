import { randomBytes } from 'node:crypto';
import { IntakeJob, type IntakeJobInput, type ShopRequestInput } from '@msa/contracts';

export function buildRequestId(): string {
  return `req_${randomBytes(8).toString('hex')}`;
}

export interface JobOverrides {
  id?: string;
  body?: Partial<ShopRequestInput>;
  organization?: Partial<ShopRequestInput['organization']>;
  /** Logo URLs, one design each on the first product. */
  logoUrls?: string[];
  warnings?: string[];
  trace?: IntakeJobInput['request_trace'];
  /** The confirmed submitter of a request made through the consent page. */
  submitter?: IntakeJobInput['submitter'];
  /** The quote the request named (`buildQuote()` gives one). */
  quote?: IntakeJobInput['quote'];
}

/** A company's quote for 40 polo shirts and 10 embroidered caps, as the requests service stores it. */
export function buildQuote(): NonNullable<IntakeJobInput['quote']> {
  return {
    quote_id: 'quo_5e0c2a9b7d1f4e38',
    organization_type: 'unternehmen',
    shop_type: 'b2b',
    currency: 'EUR',
    lines: [
      {
        product: 'Bio Poloshirt Herren',
        handle: 'bio-polo-herren',
        quantity: 40,
        decoration: 'dtf',
        tier_from: 25,
        unit_net: 21.76,
        unit_gross: 25.9,
        total_net: 870.4,
        total_gross: 1035.78,
      },
      {
        product: 'Baseball Cap Bio-Baumwolle',
        handle: 'baseball-cap-bio',
        quantity: 10,
        decoration: 'stick',
        tier_from: 10,
        unit_net: 14.2,
        unit_gross: 16.9,
        total_net: 142,
        total_gross: 168.98,
      },
    ],
    total_net: 1012.4,
    vat: 192.36,
    total_gross: 1204.76,
    created_at: '2030-01-14T16:00:00.000Z',
    expires_at: '2030-02-13T16:00:00.000Z',
    warnings: ['lines.1.decoration: embroidery (stick) is paused; the operator will suggest print (dtf) instead.'],
  };
}

/** A live shop request as the requests service queues it. */
export function buildIntakeJob(overrides: JobOverrides = {}): IntakeJob {
  const id = overrides.id ?? buildRequestId();
  const organization = {
    name: 'TSV Musterstadt 1890 e.V.',
    type: 'verein' as const,
    contact_name: 'Erika Mustermann',
    email: 'erika.mustermann@example.org',
    phone: '+49 30 1234567',
    ...overrides.organization,
  };
  const designs = (overrides.logoUrls ?? []).map((logo_url, i) => ({
    position: i === 0 ? 'Brust links' : 'Rücken',
    width_cm: 8 + i,
    logo_url,
    comment: `Logo ${i + 1}`,
  }));
  const body: ShopRequestInput = {
    organization,
    shop_name: 'TSV Fanshop',
    products: [
      { product: 'hoodie-classic', colors: ['Schwarz', 'Navy'], decoration: 'dtf', designs, comment: 'Bitte mit Vereinsfarben' },
      { product: 'T-Shirt Basic', colors: ['Weiß'] },
    ],
    group_order_until: '2030-03-01',
    occasion: 'Saisonstart',
    team_size: 40,
    notes: 'Wir brauchen auch Kindergrößen.',
    ...overrides.body,
  };
  const products = body.products ?? [];
  return IntakeJob.parse({
    request_id: id,
    body,
    result: {
      id,
      status: 'received',
      sandbox: false,
      created_at: new Date('2030-01-15T09:30:00.000Z').toISOString(),
      organization: organization.name,
      shop_name: body.shop_name,
      shop_type: ['schule', 'verein'].includes(organization.type) ? 'b2c' : 'b2b',
      products: products.map((p, i) => ({
        product: i === 0 ? 'Hoodie Classic' : 'T-Shirt Basic',
        handle: i === 0 ? 'hoodie-classic' : 'tshirt-basic',
        colors: p.colors ?? [],
        decoration: p.decoration ?? 'dtf',
        designs: p.designs?.length ?? 0,
        estimated_price_from: i === 0 ? 34.9 : 14.5,
      })),
      next_steps: 'Wir melden uns innerhalb von 48 Stunden.',
      warnings: overrides.warnings ?? [],
      upstream: null,
    },
    owner_id: 'msa_client_0123456789abcdef',
    ...(overrides.submitter ? { submitter: overrides.submitter } : {}),
    ...(overrides.quote ? { quote: overrides.quote } : {}),
    request_trace: overrides.trace ?? {
      request_id: `api-${id}`,
      traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`,
    },
  });
}
