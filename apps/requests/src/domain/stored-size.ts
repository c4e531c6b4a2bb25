// How large a stored shop request may be. The gateway bounds the body; this
// bounds what is kept of it (body, result with its warnings, quote, trace),
// so one accepted request costs Redis at most a known number of bytes.
import type { FieldProblem } from '@msa/contracts';

/**
 * The default bound. An ordinary request stores a few kB; 96 KiB still takes
 * every list of the schema well filled, and keeps what one address can store
 * in a day within the storage budget (docs/operations.md, "Storage per caller").
 */
export const DEFAULT_MAX_STORED_BYTES = 96 * 1024;

/** The store refused to write a record larger than its bound; nothing was written. */
export class StoredRecordTooLarge extends Error {
  constructor(
    readonly id: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`${id}: the record would take ${bytes} bytes, more than the ${limit} allowed`);
    this.name = 'StoredRecordTooLarge';
  }
}

/** The 422 entry for a request whose stored form is over the bound. */
export function tooLargeProblem({ bytes, limit }: StoredRecordTooLarge): FieldProblem {
  return {
    field: '(body)',
    message:
      `the request would be stored as ${bytes} bytes, more than the ${limit} a shop request may take; ` +
      'shorten notes and comments, or name fewer colors and designs',
  };
}
