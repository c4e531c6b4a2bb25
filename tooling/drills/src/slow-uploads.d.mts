export declare const SLOW_UPLOADS: {
  uploads: number;
  attackerKeys: number;
  attackerAddresses: number;
  trickleMs: number;
  attackMs: number;
  baselineMs: number;
  rampMs: number;
  pauseMs: number;
  teardownMarginMs: number;
  readIntervalMs: number;
  readDeadlineMs: number;
};

export interface Read {
  /** 0: no answer within SLOW_UPLOADS.readDeadlineMs. */
  status: number;
  ms: number;
}

export interface SlowUploadAttack {
  /** The reader's reads before the uploads. */
  baseline: Read[];
  /** Its reads while all the uploads run. */
  during: Read[];
  /** Statuses of the reader's token requests during the uploads (0: no answer in time). */
  tokens: number[];
  /** What the uploads got, by status (0: the connection closed without an answer). */
  tally: Map<number, number>;
}

export declare function slowUploadAttack(baseUrl: string): Promise<SlowUploadAttack>;
export declare function p99(reads: Read[]): number;
