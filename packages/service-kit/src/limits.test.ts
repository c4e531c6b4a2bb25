import type { Response } from 'express';
import { describe, expect, it } from 'vitest';
import { nextUtcMidnight, rateLimitedError, secondsUntilUtcMidnight, setRateLimitHeaders, utcDay, type LimitState } from './limits.js';

/** Just the header surface setRateLimitHeaders touches. */
function fakeResponse(): Response & { headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  return {
    headers,
    getHeader: (name: string) => headers[name.toLowerCase()],
    setHeader(name: string, value: string) {
      headers[name.toLowerCase()] = value;
      return this;
    },
  } as unknown as Response & { headers: Record<string, string> };
}

const minute: LimitState = { policy: 'default', limit: 300, windowSeconds: 60, remaining: 299, resetSeconds: 41.2 };

describe('setRateLimitHeaders', () => {
  it('writes RateLimit-Policy as "name";q=..;w=.. and RateLimit as "name";r=..;t=..', () => {
    const res = fakeResponse();

    setRateLimitHeaders(res, minute);

    expect(res.headers['ratelimit-policy']).toBe('"default";q=300;w=60');
    expect(res.headers['ratelimit']).toBe('"default";r=299;t=42');
  });

  it('lists several policies, appending to what an earlier hop set', () => {
    const res = fakeResponse();
    const day: LimitState = { policy: 'live-requests', limit: 5, windowSeconds: 86_400, remaining: 4, resetSeconds: 3600 };

    setRateLimitHeaders(res, minute);
    setRateLimitHeaders(res, day);

    expect(res.headers['ratelimit-policy']).toBe('"default";q=300;w=60, "live-requests";q=5;w=86400');
    expect(res.headers['ratelimit']).toBe('"default";r=299;t=42, "live-requests";r=4;t=3600');
  });

  it('never reports negative remaining or reset', () => {
    const res = fakeResponse();

    setRateLimitHeaders(res, { ...minute, remaining: -3, resetSeconds: -1 });

    expect(res.headers['ratelimit']).toBe('"default";r=0;t=0');
  });
});

describe('rateLimitedError', () => {
  it('is a 429 rate_limited with Retry-After rounded up to whole seconds', () => {
    const err = rateLimitedError(minute, 'Too many requests.');

    expect(err).toMatchObject({ status: 429, code: 'rate_limited', extra: { headers: { 'Retry-After': '42' } } });
  });

  it('asks to wait at least one second', () => {
    expect(rateLimitedError({ ...minute, resetSeconds: 0.01 }, 'x').extra.headers?.['Retry-After']).toBe('1');
  });

  it('carries the refusing policy\'s RateLimit headers when asked to show the quota', () => {
    const err = rateLimitedError({ ...minute, remaining: 0 }, 'Too many requests.', undefined, { showQuota: true });

    expect(err.extra.headers).toEqual({ 'RateLimit-Policy': '"default";q=300;w=60', RateLimit: '"default";r=0;t=42', 'Retry-After': '42' });
  });

  it('carries no RateLimit headers unless asked', () => {
    expect(Object.keys(rateLimitedError(minute, 'x').extra.headers ?? {})).toEqual(['Retry-After']);
  });
});

describe('nextUtcMidnight', () => {
  it('names the start of the next UTC day', () => {
    expect(nextUtcMidnight(new Date('2026-03-14T12:34:56.789Z')).toISOString()).toBe('2026-03-15T00:00:00.000Z');
  });

  it('answers the following midnight at midnight itself', () => {
    expect(nextUtcMidnight(new Date('2026-03-15T00:00:00Z')).toISOString()).toBe('2026-03-16T00:00:00.000Z');
  });

  it('reads the day in UTC whatever the offset of the input', () => {
    expect(nextUtcMidnight(new Date('2026-03-14T23:30:00-02:00')).toISOString()).toBe('2026-03-16T00:00:00.000Z');
  });

  it('crosses month, year and leap-day ends', () => {
    expect(nextUtcMidnight(new Date('2026-12-31T23:00:00Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(nextUtcMidnight(new Date('2028-02-28T23:00:00Z')).toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });
});

describe('secondsUntilUtcMidnight', () => {
  it('counts to the next 00:00 UTC', () => {
    expect(secondsUntilUtcMidnight(new Date('2026-03-14T23:59:00Z'))).toBe(60);
    expect(secondsUntilUtcMidnight(new Date('2026-03-14T12:00:00Z'))).toBe(12 * 3600);
  });

  it('counts a whole day at midnight itself', () => {
    expect(secondsUntilUtcMidnight(new Date('2026-03-15T00:00:00Z'))).toBe(86_400);
  });

  it('ignores the local time zone offset of the input', () => {
    expect(secondsUntilUtcMidnight(new Date('2026-03-14T23:30:00+01:00'))).toBe(1.5 * 3600);
  });

  it('rounds a fraction up and never answers zero', () => {
    expect(secondsUntilUtcMidnight(new Date('2026-03-14T23:59:59.500Z'))).toBe(1);
  });

  it('crosses month and year ends', () => {
    expect(secondsUntilUtcMidnight(new Date('2026-12-31T23:00:00Z'))).toBe(3600);
    expect(secondsUntilUtcMidnight(new Date('2028-02-28T23:00:00Z'))).toBe(3600);
  });
});

describe('utcDay', () => {
  it('names the UTC calendar day', () => {
    expect(utcDay(new Date('2026-03-14T23:30:00-02:00'))).toBe('2026-03-15');
  });
});
