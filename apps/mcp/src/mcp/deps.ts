import type { CatalogClient, RequestsClient, ShopsClient } from '@msa/contracts';
import type { Logger, Metrics } from '@msa/service-kit';
import type { EnvelopeFactory } from './tool-result.js';

/**
 * Hosts give a tool call about a minute (ChatGPT 60 s) before they drop it
 * and show the person nothing; 50 s leaves room for the way there and back.
 */
export const DEFAULT_TOOL_DEADLINE_MS = 50_000;

/** What the tools and resources need; built once per process, shared by every request. */
export interface McpDeps {
  catalog: CatalogClient;
  shops: ShopsClient;
  requests: RequestsClient;
  envelope: EnvelopeFactory;
  urls: { root: string };
  publicBaseUrl: string;
  logger: Logger;
  toolCalls?: ReturnType<Metrics['counter']>;
  /** TOOL_DEADLINE_MS: a tool call answers within this, with a tool error if a service is slow (default 50 s). */
  toolDeadlineMs?: number;
}
