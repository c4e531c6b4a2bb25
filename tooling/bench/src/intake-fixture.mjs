// Live shop requests as the requests service queues them: a valid body, its
// result, the owner. No logo URLs: downloads would measure the network, not
// the worker.
import { randomBytes } from 'node:crypto';
import { IntakeJob, shopTypeOf } from '@msa/contracts';

const ORGANIZATIONS = [
  { name: 'Gymnasium am Stadtpark', type: 'schule' },
  { name: 'TSV Musterstadt 1899 e.V.', type: 'verein' },
  { name: 'Bäckerei Müller GmbH', type: 'handwerk' },
  { name: 'Café Süß', type: 'gastro' },
  { name: 'Ingenieurbüro Weiß & Partner', type: 'unternehmen' },
];
const PRODUCTS = [
  { product: 'bio-hoodie-unisex', title: 'Bio Hoodie Unisex', price: 34.9, colors: ['Navy', 'Schwarz'] },
  { product: 'bio-t-shirt-unisex', title: 'Bio T-Shirt Unisex', price: 19.9, colors: ['Weiß'] },
  { product: 'latzschurze-bio', title: 'Bio Latzschürze', price: 24.9, colors: ['Schwarz'] },
  { product: 'baseball-cap-bio', title: 'Baseball Cap Bio-Baumwolle', price: 17.9, colors: ['Navy'] },
];

export function buildIntakeJob(i, ownerId) {
  const org = ORGANIZATIONS[i % ORGANIZATIONS.length];
  const id = `req_${randomBytes(8).toString('hex')}`;
  const chosen = [PRODUCTS[i % PRODUCTS.length], PRODUCTS[(i + 1) % PRODUCTS.length]];
  const body = {
    organization: {
      name: org.name,
      type: org.type,
      contact_name: 'Erika Mustermann',
      // One mailbox per request: a shared one would have its confirmations held back after the third.
      email: `kontakt-${i}@example.com`,
      phone: '+49 30 1234567',
    },
    shop_name: `${org.name} Fanshop ${i}`,
    products: chosen.map((p, n) => ({
      product: p.product,
      colors: p.colors,
      decoration: n === 0 ? 'dtf' : 'stick',
      designs: [{ position: 'Brust links', width_cm: 8, comment: 'Logo einfarbig' }],
    })),
    design_service: i % 3 === 0,
    group_order_until: '2026-09-30',
    password_protection: i % 2 === 0,
    private_shop: false,
    customer_account: true,
    occasion: 'Saisonstart',
    team_size: 25 + (i % 200),
    notes: 'Bitte mit Größentabelle für Kinder und Erwachsene.',
  };
  const result = {
    id,
    status: 'received',
    sandbox: false,
    created_at: new Date().toISOString(),
    organization: org.name,
    shop_name: body.shop_name,
    shop_type: shopTypeOf(org.type),
    products: chosen.map((p, n) => ({
      product: p.title,
      handle: p.product,
      colors: p.colors,
      decoration: n === 0 ? 'dtf' : 'stick',
      designs: 1,
      estimated_price_from: p.price,
    })),
    next_steps: 'Wir melden uns innerhalb von zwei Werktagen mit einem Shop-Entwurf.',
    warnings: [],
    upstream: null,
  };
  return IntakeJob.parse({ request_id: id, body, result, owner_id: ownerId, request_trace: { request_id: `bench-${i}` } });
}
