import { describe, expect, it } from 'vitest';
import { mailboxDomain, mailboxKey } from './mailbox-key.js';

describe('mailboxKey', () => {
  it('counts a +tag variant as the mailbox it reaches', () => {
    expect(mailboxKey('erika+shop1@example.org')).toBe('erika@example.org');
    expect(mailboxKey('erika+a+b@example.org')).toBe('erika@example.org');
  });

  it('ignores case and surrounding space', () => {
    expect(mailboxKey('  Erika@Example.ORG ')).toBe('erika@example.org');
  });

  it('ignores dots only where the provider does', () => {
    expect(mailboxKey('e.ri.ka@gmail.com')).toBe('erika@gmail.com');
    expect(mailboxKey('E.rika+x@googlemail.com')).toBe('erika@gmail.com');
    expect(mailboxKey('x.y@example.org')).not.toBe(mailboxKey('xy@example.org'));
  });

  it('keeps an address without a local part as it is', () => {
    expect(mailboxKey('+x@example.org')).toBe('+x@example.org');
    expect(mailboxKey('not-an-address')).toBe('not-an-address');
  });
});

describe('mailboxDomain', () => {
  it('is the receiving domain, with Gmail aliases as one', () => {
    expect(mailboxDomain('a+b@Sub.Example.org')).toBe('sub.example.org');
    expect(mailboxDomain('a@googlemail.com')).toBe('gmail.com');
  });
});
