// Answers of the read routes, serialized and hashed once per loaded copy of
// the catalog: agents repeat the same few searches, and serializing a page
// and hashing it for the ETag cost more than the search itself. Entries hang
// off the snapshot, so a reload (a new snapshot) starts an empty cache and
// the old one goes with the old copy.
import { getOrBuild, prepareBody, type PreparedBody, type Snapshot } from '@msa/service-kit';

/** Distinct answers kept per copy; the oldest goes first. */
const MAX_ENTRIES = 512;

export function createPageCache<V>() {
  const bySnapshot = new WeakMap<Snapshot<V>, Map<string, PreparedBody>>();
  return {
    /**
     * The prepared answer for `key` under `snapshot`, built with `build` when
     * missing. `key` must name everything the answer depends on besides the
     * snapshot; `build` may throw (bad input), and then nothing is kept.
     */
    get(snapshot: Snapshot<V>, key: string, build: () => unknown): PreparedBody {
      let pages = bySnapshot.get(snapshot);
      if (!pages) {
        pages = new Map();
        bySnapshot.set(snapshot, pages);
      }
      return getOrBuild(pages, key, MAX_ENTRIES, () => {
        const prepared = prepareBody(build());
        // Kept as bytes too: a page is sent many times, and express would encode the text for every send.
        return { ...prepared, bytes: Buffer.from(prepared.payload) };
      });
    },
  };
}
