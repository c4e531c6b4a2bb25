import { describe, expect, it } from 'vitest';
import { buildIntakeJob } from '../test/support/build-job.js';
import { maskContacts, maskEmail } from './queue-ui.js';

describe('maskContacts', () => {
  it('hides the contact name, e-mail address and phone number of a shop request', () => {
    const job = buildIntakeJob({ submitter: { email: 'erika@example.org', client_id: 'msa_client_x', client_name: 'Agent' } });

    const shown = JSON.stringify(maskContacts(job));

    for (const secret of ['Erika Mustermann', 'erika.mustermann@example.org', '+49 30 1234567', '30 1234567', 'erika@example.org']) {
      expect(shown).not.toContain(secret);
    }
    const masked = maskContacts(job) as typeof job;
    expect(masked.body.organization).toMatchObject({ contact_name: 'E. M.', email: 'e…@example.org', phone: '…67' });
    expect(masked.submitter?.email).toBe('e…@example.org');
    expect(masked.request_id).toBe(job.request_id);
    expect(masked.body.organization.name).toBe(job.body.organization.name);
  });

  it('hides e-mail addresses written into free text', () => {
    expect(maskEmail('Bitte an max.muster@verein.example schicken')).toBe('Bitte an m…@verein.example schicken');
  });

  it('keeps numbers, booleans and null as they are', () => {
    expect(maskContacts({ team_size: 40, sandbox: false, upstream: null })).toEqual({ team_size: 40, sandbox: false, upstream: null });
  });
});
