/*
 * The bull-board UI of the `intake` queue. Loaded only when the operator
 * configured credentials for it, so a worker without a UI does not carry
 * its code.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import type { Router } from 'express';

export function createQueueUi(queue: Queue, basePath: string): Router {
  const serverAdapter = new ExpressAdapter().setBasePath(basePath);
  createBullBoard({ queues: [new BullMQAdapter(queue, { allowRetries: true })], serverAdapter });
  return serverAdapter.getRouter() as Router;
}
