// @module `jsonDepthExceeds(value, max)` (iterative, so it cannot overflow itself), `limitJsonDepth()` middleware after a JSON parser → 400
// JSON.parse copes with any nesting, but JSON.stringify, zod and the MCP SDK
// recurse and overflow the stack on a body nested a few thousand deep. The
// bodies we accept are shallow, so a parsed body is measured once, without
// recursion, before anything else walks it.
import { BOUNDS } from '@msa/contracts';
import type { RequestHandler } from 'express';

/** True when objects and arrays in `value` nest deeper than `max`. */
export function jsonDepthExceeds(value: unknown, max: number = BOUNDS.jsonMaxDepth): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child as object, depth + 1]);
    }
  }
  return false;
}

/** The error `limitJsonDepth` passes on; error handlers know it by its `type`. */
export class JsonTooDeepError extends Error {
  readonly type = 'entity.too.deep';
  readonly status = 400;
  readonly expose = true;
  constructor(readonly maxDepth: number) {
    super(`The JSON body is nested deeper than ${maxDepth} levels.`);
    this.name = 'JsonTooDeepError';
  }
}

/** After a JSON body parser: refuses a body nested deeper than `max`. */
export function limitJsonDepth(max: number = BOUNDS.jsonMaxDepth): RequestHandler {
  return (req, _res, next) => {
    next(jsonDepthExceeds(req.body, max) ? new JsonTooDeepError(max) : undefined);
  };
}
