import { describe, expect, it } from 'vitest';
import { protectedResourceFor } from './protected-resource.js';

const BASE = 'https://api.example.test';

describe('protectedResourceFor', () => {
  it('describes the REST API by the base URL and the root metadata document', () => {
    expect(protectedResourceFor(BASE, false, false)).toEqual({
      uri: BASE,
      metadataUrl: `${BASE}/.well-known/oauth-protected-resource`,
      audiences: [BASE, `${BASE}/`],
    });
  });

  it('describes the MCP endpoint by its own URL and path-inserted document, and still takes base-URL tokens', () => {
    expect(protectedResourceFor(BASE, false, true)).toEqual({
      uri: `${BASE}/mcp`,
      metadataUrl: `${BASE}/.well-known/oauth-protected-resource/mcp`,
      audiences: [`${BASE}/mcp`, `${BASE}/mcp/`, BASE, `${BASE}/`],
    });
  });

  it('puts /sandbox into the resource and after the well-known prefix on the sandbox', () => {
    expect(protectedResourceFor(BASE, true, true)).toEqual({
      uri: `${BASE}/sandbox/mcp`,
      metadataUrl: `${BASE}/.well-known/oauth-protected-resource/sandbox/mcp`,
      audiences: [`${BASE}/sandbox/mcp`, `${BASE}/sandbox/mcp/`, BASE, `${BASE}/`],
    });
    expect(protectedResourceFor(BASE, true, false).metadataUrl).toBe(`${BASE}/.well-known/oauth-protected-resource/sandbox`);
  });
});
