import { OPERATIONS, type OperationDef } from '@msa/contracts';

const WELL_KNOWN = /^(\/\.well-known\/[^/]+)(\/.*)?$/;

/**
 * The RFC 8414 / RFC 9728 path-insertion form of each `path-insertion` entry
 * of the operation table, mapped to the path it serves on the sandbox:
 * `/.well-known/<name>/sandbox<rest>` → `/.well-known/<name><rest>`.
 */
export function sandboxInsertions(table: readonly OperationDef[] = OPERATIONS): Map<string, string> {
  const insertions = new Map<string, string>();
  for (const op of table) {
    if (op.sandbox !== 'path-insertion') continue;
    const match = WELL_KNOWN.exec(op.path);
    if (!match) throw new Error(`${op.id}: path-insertion needs a /.well-known/ path, not ${op.path}`);
    insertions.set(`${match[1]}/sandbox${match[2] ?? ''}`, op.path);
  }
  return insertions;
}

const INSERTIONS = sandboxInsertions();

/**
 * `/sandbox/<path>` serves `<path>` on the sandbox. The OAuth metadata is also
 * reachable in the RFC 8414 / RFC 9728 path-insertion form
 * (`/.well-known/oauth-authorization-server/sandbox`,
 * `/.well-known/oauth-protected-resource/sandbox/mcp`), which is where a
 * client looks for the metadata of the issuer `<base>/sandbox` and of the
 * resources `<base>/sandbox` and `<base>/sandbox/mcp`.
 */
export function splitSandbox(path: string): { sandbox: boolean; path: string } {
  if (path === '/sandbox' || path === '/sandbox/') return { sandbox: true, path: '/' };
  if (path.startsWith('/sandbox/')) return { sandbox: true, path: path.slice('/sandbox'.length) };
  const inserted = INSERTIONS.get(path);
  if (inserted !== undefined) return { sandbox: true, path: inserted };
  return { sandbox: false, path };
}
