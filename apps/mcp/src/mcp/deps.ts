import type { CatalogClient, RequestsClient, ShopsClient } from '@msa/contracts';
import type { Logger, Metrics } from '@msa/service-kit';
import type { EnvelopeFactory } from './tool-result.js';

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
}
