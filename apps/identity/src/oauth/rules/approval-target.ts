// Where an approval goes, in words a person can check: the consent page and
// the code e-mail show it beside the client's name, because the name is
// whatever the client declared ("Claude") while the redirect URI decides who
// receives the authorization code.
import type { ApprovalTarget } from '@msa/contracts';
import { isLoopback } from './redirect-uris.js';

/** `https://evil.example/cb` → host `evil.example`; `http://127.0.0.1:4711/cb` → device; `com.example.app:/cb` → scheme. */
export function approvalTarget(redirectUri: string): ApprovalTarget {
  const url = new URL(redirectUri);
  if (isLoopback(url)) return { kind: 'device', value: url.hostname };
  if (url.protocol === 'https:') return { kind: 'host', value: url.hostname };
  return { kind: 'scheme', value: url.protocol.slice(0, -1) };
}
