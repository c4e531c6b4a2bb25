import { describe, expect, it } from 'vitest';
import { grantIdOf, newRefreshToken, successorSeal } from './refresh-tokens.js';

const GRANT = 'gABCDEFGHIJKLMNOPQRSTUVWX';

describe('refresh tokens', () => {
  it('name the grant they belong to', () => {
    expect(grantIdOf(newRefreshToken(GRANT))).toBe(GRANT);
  });

  it('are different every time', () => {
    expect(newRefreshToken(GRANT)).not.toBe(newRefreshToken(GRANT));
  });

  it('are not read from anything else', () => {
    expect(grantIdOf('msa_rt_short_x')).toBeNull();
    expect(grantIdOf(`${newRefreshToken(GRANT)}x`)).toBeNull();
  });
});

describe('successorSeal', () => {
  it('opens a successor only with the token it was sealed under', () => {
    const token = newRefreshToken(GRANT);
    const sealed = successorSeal(token).seal('the-successor');

    expect(successorSeal(token).open(sealed)).toBe('the-successor');
    expect(successorSeal(newRefreshToken(GRANT)).open(sealed)).toBeNull();
  });
});
