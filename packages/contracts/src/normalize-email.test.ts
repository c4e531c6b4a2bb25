import { describe, expect, it } from 'vitest';
import { normalizeEmail, sameEmail } from './normalize-email.js';

describe('normalizeEmail', () => {
  it('drops surrounding space and lowers the case of both parts', () => {
    expect(normalizeEmail('  Erika.Muster@Example.ORG \n')).toBe('erika.muster@example.org');
  });

  it('keeps tags and dots, which only the mailbox a provider delivers to ignores', () => {
    expect(normalizeEmail('E.rika+Shop@gmail.com')).toBe('e.rika+shop@gmail.com');
  });
});

describe('sameEmail', () => {
  it('treats spellings that differ in case and space as one address', () => {
    expect(sameEmail('Erika@Example.org', ' erika@example.ORG')).toBe(true);
  });

  it('tells different addresses apart', () => {
    expect(sameEmail('erika@example.org', 'erika+x@example.org')).toBe(false);
  });
});
