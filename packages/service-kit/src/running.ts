// @module `RunningService`: what every app's `startService(config)` returns (`url`, `port`, `adminUrl`, `close()`)
/** What `startService(config)` of every app returns. */
export interface RunningService {
  url: string;
  port: number;
  /** The admin port's URL (`/metrics`, `/healthz`), for services that have one. */
  adminUrl?: string;
  close(): Promise<void>;
}
