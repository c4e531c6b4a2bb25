import { describe, expect, it } from 'vitest';
import type { CredentialRecord, CredentialStore } from '../store/credential-store.js';
import { createCredentials } from './create-credentials.js';
import { matchesHash } from './credentials.js';

function createMemoryStore(): CredentialStore & { records: CredentialRecord[] } {
  const records: CredentialRecord[] = [];
  return {
    records,
    async create(record) {
      records.push(record);
    },
    async findByClientId(id) {
      return records.find((r) => r.client_id === id) ?? null;
    },
    async findByApiKeyHash(hash) {
      return records.find((r) => r.api_key_hash === hash) ?? null;
    },
    async completeIndex() {},
    async ping() {},
  };
}

describe('createCredentials', () => {
  it('stores one principal holding only hashes of the key and the secret', async () => {
    const store = createMemoryStore();

    const created = await createCredentials(store, {
      name: 'Agent',
      email: 'dev@example.org',
      scopes: ['requests:read', 'catalog:read', 'catalog:read'],
      mode: 'live',
      origin: 'api_key',
    });

    expect(store.records).toHaveLength(1);
    const record = store.records[0]!;
    expect(JSON.stringify(record)).not.toContain(created.apiKey);
    expect(JSON.stringify(record)).not.toContain(created.clientSecret);
    expect(matchesHash(created.apiKey, record.api_key_hash)).toBe(true);
    expect(matchesHash(created.clientSecret, record.client_secret_hash)).toBe(true);
    expect(record).toMatchObject({
      client_id: created.clientId,
      scopes: ['catalog:read', 'requests:read'],
      mode: 'live',
      tier: 'free',
      token_endpoint_auth_method: 'client_secret_basic',
    });
    expect(created.apiKey.startsWith('msa_live_')).toBe(true);
  });

  it('records the creation time in whole seconds', async () => {
    const created = await createCredentials(
      createMemoryStore(),
      { name: 'Agent', email: 'dev@example.org', scopes: ['catalog:read'], mode: 'sandbox', origin: 'registration' },
      new Date('2030-01-02T03:04:05.678Z'),
    );

    expect(created.record.created_at).toBe('2030-01-02T03:04:05.000Z');
  });
});
