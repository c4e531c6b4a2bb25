import { describe, expect, it } from 'vitest';
import { INTAKE_JOB_VERSION, IntakeJob } from './intake.js';

// A payload as release 1.0.0's requests service wrote it: no version.
const releaseOnePayload = {
  request_id: 'req_0123456789abcdef',
  body: {
    organization: { name: 'TSV Musterstadt', type: 'verein', contact_name: 'Erika Muster', email: 'erika@example.de' },
    shop_name: 'TSV Fanshop',
    products: [{ product: 'Bio T-Shirt Kinder' }],
  },
  result: {
    id: 'req_0123456789abcdef',
    status: 'received',
    sandbox: false,
    created_at: '2030-01-15T09:30:00.000Z',
    organization: 'TSV Musterstadt',
    shop_name: 'TSV Fanshop',
    shop_type: 'b2c',
    products: [],
    next_steps: '',
    warnings: [],
    upstream: null,
  },
  owner_id: 'msa_client_0123456789abcdef',
};

describe('IntakeJob versions', () => {
  it('takes a payload of the previous release, which has no version', () => {
    const parsed = IntakeJob.safeParse(releaseOnePayload);

    expect(parsed.success).toBe(true);
    expect(parsed.data?.version).toBeUndefined();
  });

  it('takes a later version and drops the fields it does not know', () => {
    const parsed = IntakeJob.safeParse({ ...releaseOnePayload, version: INTAKE_JOB_VERSION + 1, priority: 'high' });

    expect(parsed.success).toBe(true);
    expect(parsed.data).not.toHaveProperty('priority');
    expect(parsed.data?.version).toBe(INTAKE_JOB_VERSION + 1);
  });

  it('refuses a version that is not a positive whole number', () => {
    expect(IntakeJob.safeParse({ ...releaseOnePayload, version: '2' }).success).toBe(false);
    expect(IntakeJob.safeParse({ ...releaseOnePayload, version: 0 }).success).toBe(false);
  });
});
