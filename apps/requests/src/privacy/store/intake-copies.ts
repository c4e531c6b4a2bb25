// The intake worker's copies of a request's personal data: its entry in the
// internal request list and the logos downloaded until the operator e-mail
// is sent. Key names come from contracts (`intakeCopyKeys`), which the
// worker's store uses too.
//
// A stream entry cannot be changed in place: the script replaces it with a
// copy whose personal fields are erased and which records `erased_at` and
// the entry it replaced, and points the request's marker at the copy. The
// list and the marker share a hash tag, so the script stays in one slot.
import { intakeCopyKeys } from '@msa/contracts';
import type { RedisClient } from '@msa/service-kit';
import { ERASED_EMAIL, ERASED_NAME } from '../erased-request.js';

/** List fields that name or reach a person, or quote a logo URL, and what replaces them. */
export const PERSONAL_LIST_FIELDS: Record<string, string> = {
  contact_name: ERASED_NAME,
  contact_email: ERASED_EMAIL,
  submitter_confirmed_email: ERASED_EMAIL,
  logo_notes: '',
};

// KEYS: list, marker. ARGV: erased_at, then field/replacement pairs.
// Returns 1 when an entry was replaced, 0 when there was none or it was erased already.
const ERASE_ENTRY = `
local id = redis.call('GET', KEYS[2])
if not id then return 0 end
local found = redis.call('XRANGE', KEYS[1], id, id)
if #found == 0 then return 0 end
local replace = {}
for i = 2, #ARGV, 2 do replace[ARGV[i]] = ARGV[i + 1] end
local fields = found[1][2]
local out = {}
for i = 1, #fields, 2 do
  if fields[i] == 'erased_at' then return 0 end
  local value = fields[i + 1]
  if replace[fields[i]] then value = replace[fields[i]] end
  table.insert(out, fields[i])
  table.insert(out, value)
end
table.insert(out, 'erased_at')
table.insert(out, ARGV[1])
table.insert(out, 'replaces_entry')
table.insert(out, id)
local copy = redis.call('XADD', KEYS[1], '*', unpack(out))
redis.call('XDEL', KEYS[1], id)
redis.call('SET', KEYS[2], copy, 'KEEPTTL')
return 1`;

export interface IntakeCopies {
  /** Erases the list entry's personal fields and the stored logos of `id`; true when an entry was replaced. */
  erase(id: string, erasedAt: Date): Promise<boolean>;
}

export function createIntakeCopies(redis: RedisClient, prefix: string): IntakeCopies {
  const keys = intakeCopyKeys(prefix);
  return {
    async erase(id, erasedAt) {
      await redis.del(keys.logos(id));
      const pairs = Object.entries(PERSONAL_LIST_FIELDS).flat();
      return (await redis.eval(ERASE_ENTRY, 2, keys.list, keys.entry(id), erasedAt.toISOString(), ...pairs)) === 1;
    },
  };
}
