import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { securityHeaders } from './security-headers.js';

const options = {
  contentSecurityPolicy: { directives: { 'default-src': ["'self'"], 'img-src': ["'self'", 'data:'] } },
  crossOriginResourcePolicy: { policy: 'cross-origin' as const },
};

async function headersWith(middleware: RequestHandler) {
  const app = express();
  app.use(middleware);
  app.get('/', (_req, res) => {
    res.json({ ok: true });
  });
  const res = await request(app).get('/');
  const { date: _date, etag: _etag, ...headers } = res.headers;
  return headers;
}

describe('securityHeaders', () => {
  it('sets exactly the headers and values helmet sets for the same options', async () => {
    const replayed = await headersWith(securityHeaders(options));

    expect(replayed).toEqual(await headersWith(helmet(options)));
    expect(replayed).toMatchObject({
      'content-security-policy': expect.stringContaining("img-src 'self' data:"),
      'cross-origin-resource-policy': 'cross-origin',
      'x-content-type-options': 'nosniff',
      'strict-transport-security': 'max-age=31536000; includeSubDomains',
    });
    expect(replayed).not.toHaveProperty('x-powered-by');
  });
});
