import { methodNotAllowed } from '@msa/service-kit';
import { Router, type Response } from 'express';
import { authorizationServerMetadata, protectedResourceMetadata } from '../oauth/rules/server-metadata.js';
import type { RouteDeps } from './context.js';

const CACHE = 'public, max-age=300';

function sendCached(res: Response, body: unknown) {
  res.setHeader('Cache-Control', CACHE);
  res.json(body);
}

export function wellKnownRoutes(deps: RouteDeps): Router {
  const router = Router();
  const getOnly = methodNotAllowed({ publicBaseUrl: deps.publicBaseUrl }, ['GET']);

  router
    .route('/.well-known/oauth-authorization-server')
    .get((req, res) => sendCached(res, authorizationServerMetadata(deps.publicBaseUrl, req.ctx.sandbox)))
    .all(getOnly);
  router
    .route('/.well-known/oauth-protected-resource')
    .get((req, res) => sendCached(res, protectedResourceMetadata(deps.publicBaseUrl, req.ctx.sandbox)))
    .all(getOnly);
  // RFC 9728 §3.1 path insertion: the document of `{base}/mcp`. The gateway also maps
  // `/.well-known/oauth-protected-resource/sandbox/mcp` here, with the sandbox flag.
  router
    .route('/.well-known/oauth-protected-resource/mcp')
    .get((req, res) => sendCached(res, protectedResourceMetadata(deps.publicBaseUrl, req.ctx.sandbox, 'mcp')))
    .all(getOnly);
  router
    .route('/.well-known/jwks.json')
    .get((_req, res) => sendCached(res, deps.tokenKeys.jwks))
    .all(getOnly);
  return router;
}
