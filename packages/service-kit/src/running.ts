/** What `startService(config)` of every app returns. */
export interface RunningService {
  url: string;
  port: number;
  close(): Promise<void>;
}
