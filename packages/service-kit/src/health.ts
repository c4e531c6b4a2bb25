import { Router } from 'express';

export interface HealthOptions {
  /** Resolves when the service can do its work (Redis answers, upstreams ready); throws otherwise. */
  ready?: () => Promise<unknown>;
}

/** `/healthz`: the process is up (no I/O). `/readyz`: its dependencies answer. */
export function healthRoutes({ ready }: HealthOptions = {}): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (req, res) => {
    try {
      await ready?.();
      res.json({ status: 'ready' });
    } catch (err) {
      req.log?.warn({ err }, 'not ready');
      res.status(503).json({
        error: { code: 'service_unavailable', status: 503, message: 'Not ready.', hint: 'Retry in a moment.' },
      });
    }
  });
  return router;
}
