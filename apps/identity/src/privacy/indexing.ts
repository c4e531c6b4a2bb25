// Files what identity stores for a person under their mailbox as it is
// stored, so the rights of access and erasure find it without a scan:
// credentials by their contact address, grants by the approving address
// (again at each refresh, which pushes on both lifetimes). The stores stay
// unaware of it; these wrappers are what the app hands out.
import type { OAuthStore } from '../oauth/store/oauth-store.js';
import type { CredentialStore } from '../store/credential-store.js';
import type { PrivacyStore } from './store/privacy-store.js';

export function indexCredentials<S extends CredentialStore>(store: S, privacy: PrivacyStore): S {
  return {
    ...store,
    async create(record) {
      await store.create(record);
      await privacy.addCredentials(record.email, record.client_id);
    },
  };
}

export function indexGrants(oauth: OAuthStore, privacy: PrivacyStore): OAuthStore {
  return {
    ...oauth,
    async createGrant(grant, refreshDigest) {
      await oauth.createGrant(grant, refreshDigest);
      // A sandbox approval without an address has no person to file it under.
      if (grant.approval.email) await privacy.addGrant(grant.approval.email, grant.grant_id);
    },
    async rotateRefresh(...args: Parameters<OAuthStore['rotateRefresh']>) {
      const outcome = await oauth.rotateRefresh(...args);
      if (outcome.kind === 'rotated') {
        const found = await oauth.findGrant(args[0]);
        if (found?.grant.approval.email) await privacy.addGrant(found.grant.approval.email, found.grant.grant_id);
      }
      return outcome;
    },
  };
}
