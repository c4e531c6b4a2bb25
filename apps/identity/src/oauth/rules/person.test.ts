import { describe, expect, it } from 'vitest';
import { personId } from './person.js';

describe('personId', () => {
  it('gives every spelling of one mailbox the same principal', () => {
    const ids = ['x@example.org', 'X+1@Example.org', 'x+shop@example.org'].map((e) => personId(e, 'live'));

    expect(new Set(ids).size).toBe(1);
    expect(personId('e.r.ika@googlemail.com', 'live')).toBe(personId('erika@gmail.com', 'live'));
  });

  it('keeps two mailboxes and two modes apart', () => {
    expect(personId('x@example.org', 'live')).not.toBe(personId('y@example.org', 'live'));
    expect(personId('x@example.org', 'live')).not.toBe(personId('x@example.org', 'sandbox'));
    expect(personId('x.y@example.org', 'live')).not.toBe(personId('xy@example.org', 'live'));
  });
});
