// The key names of the OAuth store, `prefix` first; every record sits under
// one hash tag (its id or digest), so the keys a step touches share a slot.
export function oauthKeys(prefix: string) {
  return {
    client: (id: string) => `${prefix}oauth-client:{${id}}`,
    interaction: (id: string) => `${prefix}consent:{${id}}`,
    codeTries: (codeDigest: string) => `${prefix}consent-code:{${codeDigest}}:tries`,
    wrongCodes: (mailbox: string, day: string) => `${prefix}consent-wrong:{${mailbox}}:${day}`,
    code: (codeDigest: string) => `${prefix}oauth-code:{${codeDigest}}`,
    grant: (id: string) => `${prefix}grant:{${id}}`,
    usedRefresh: (id: string) => `${prefix}grant:{${id}}:used`,
    /** The SCAN pattern of every grant. */
    allGrants: `${prefix}grant:{*}`,
  };
}
export type OAuthKeys = ReturnType<typeof oauthKeys>;
