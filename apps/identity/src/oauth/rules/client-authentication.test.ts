import { BOUNDS } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { authenticateClientRequest, parseBasicCredentials } from './client-authentication.js';

const basic = (raw: string) => `Basic ${Buffer.from(raw, 'utf8').toString('base64')}`;

describe('parseBasicCredentials', () => {
  it('reads id and secret from a Basic header', () => {
    expect(parseBasicCredentials(basic('msa_client_abc:msa_secret_xyz'))).toEqual({
      clientId: 'msa_client_abc',
      clientSecret: 'msa_secret_xyz',
    });
  });

  it('decodes percent-encoded parts and + as a space (RFC 6749 §2.3.1)', () => {
    expect(parseBasicCredentials(basic('my%3Aclient%2Bid:s%C3%A9cret+with%25'))).toEqual({
      clientId: 'my:client+id',
      clientSecret: 'sécret with%',
    });
  });

  it('splits on the first colon only', () => {
    expect(parseBasicCredentials(basic('id:sec:ret'))).toEqual({ clientId: 'id', clientSecret: 'sec:ret' });
  });

  it('accepts the scheme in any case', () => {
    expect(parseBasicCredentials(`bAsIc ${Buffer.from('a:b').toString('base64')}`)).toEqual({ clientId: 'a', clientSecret: 'b' });
  });

  it('ignores other schemes', () => {
    expect(parseBasicCredentials('Bearer msa_test_abc')).toBeNull();
    expect(parseBasicCredentials(undefined)).toBeNull();
  });

  it('calls unreadable Basic headers malformed', () => {
    expect(parseBasicCredentials('Basic')).toBe('malformed');
    expect(parseBasicCredentials('Basic !!!')).toBe('malformed');
    expect(parseBasicCredentials(basic('no-colon'))).toBe('malformed');
    expect(parseBasicCredentials(basic(':secret'))).toBe('malformed');
    expect(parseBasicCredentials(basic('bad%zzid:secret'))).toBe('malformed');
  });

  it('calls a client id or secret past the contracts bounds malformed', () => {
    expect(parseBasicCredentials(basic(`${'i'.repeat(BOUNDS.clientIdMaxLength + 1)}:secret`))).toBe('malformed');
    expect(parseBasicCredentials(basic(`msa_client_a:${'s'.repeat(BOUNDS.clientSecretMaxLength + 1)}`))).toBe('malformed');
  });
});

describe('authenticateClientRequest', () => {
  it('takes client_secret_post credentials from the body', () => {
    const result = authenticateClientRequest(undefined, { client_id: 'msa_client_a', client_secret: 's' });

    expect(result).toEqual({ kind: 'ok', credentials: { clientId: 'msa_client_a', clientSecret: 's', method: 'client_secret_post' } });
  });

  it('takes client_secret_basic credentials from the header', () => {
    const result = authenticateClientRequest(basic('msa_client_a:s'), {});

    expect(result).toEqual({ kind: 'ok', credentials: { clientId: 'msa_client_a', clientSecret: 's', method: 'client_secret_basic' } });
  });

  it('tolerates the same client_id repeated in the body next to Basic', () => {
    expect(authenticateClientRequest(basic('msa_client_a:s'), { client_id: 'msa_client_a' }).kind).toBe('ok');
  });

  it('refuses Basic together with a client_secret in the body', () => {
    expect(authenticateClientRequest(basic('msa_client_a:s'), { client_id: 'msa_client_a', client_secret: 's' }).kind).toBe('conflict');
  });

  it('refuses a body client_id that contradicts the Basic one', () => {
    expect(authenticateClientRequest(basic('msa_client_a:s'), { client_id: 'msa_client_b' }).kind).toBe('conflict');
  });

  it('reports missing credentials when only a client_id is sent', () => {
    expect(authenticateClientRequest(undefined, { client_id: 'msa_client_a' }).kind).toBe('missing');
    expect(authenticateClientRequest('Bearer something', {}).kind).toBe('missing');
  });
});
