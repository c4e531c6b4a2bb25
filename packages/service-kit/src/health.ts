// @module `healthRoutes({ ready })`: `/healthz` (no I/O) and `/readyz` (503 while `ready()` throws)
import { Router } from 'express';

export interface HealthOptions {
  /**
   * Resolves when this process can do its work; throws otherwise. Only what
   * every route needs belongs here (a service that cannot answer anything
   * without Redis may check Redis): a neighbour that is down for some routes
   * is dependency health (dependency-health.ts), not readiness, or an outage
   * there takes every replica out of rotation at once.
   */
  ready?: () => Promise<unknown>;
}

/** `/healthz`: the process is up (no I/O). `/readyz`: it can serve (see `ready`). */
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
