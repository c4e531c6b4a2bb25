import { randomBytes } from 'node:crypto';

/** A new id of what this service creates: its prefix and 64 random bits in hex (`req_…`, `quo_…`), as the contracts' id patterns expect. */
export function newId(prefix: 'req' | 'quo'): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}
