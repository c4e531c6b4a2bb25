import { describe, expect, it } from 'vitest';
import { matchesIfNoneMatch, strongEtag } from './cacheable.js';

describe('strongEtag', () => {
  it('is a quoted hash that follows the bytes', () => {
    expect(strongEtag('{"a":1}')).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(strongEtag('{"a":1}')).toBe(strongEtag('{"a":1}'));
    expect(strongEtag('{"a":1}')).not.toBe(strongEtag('{"a":2}'));
  });
});

describe('matchesIfNoneMatch', () => {
  const etag = '"abc"';

  it('matches the same tag, one of a list, a weak form and *', () => {
    expect(matchesIfNoneMatch('"abc"', etag)).toBe(true);
    expect(matchesIfNoneMatch('"x", "abc"', etag)).toBe(true);
    expect(matchesIfNoneMatch('W/"abc"', etag)).toBe(true);
    expect(matchesIfNoneMatch('*', etag)).toBe(true);
  });

  it('does not match another tag or a missing header', () => {
    expect(matchesIfNoneMatch('"abd"', etag)).toBe(false);
    expect(matchesIfNoneMatch(undefined, etag)).toBe(false);
  });
});
