// @module `requireScope(operationId, { anonymous?, unauthorized? })`: a service's own check of an operation's credentials and scope, read from the contracts operation table; `routePathOf(operationId)`, `operationOf(operationId)`
// A service's own check of what the gateway already checked, read from the
// operation table in contracts, so a scope or a path is written once: the
// service stays safe when another route reaches it, and cannot disagree with
// the gateway about what an operation needs.
import { OPERATIONS, type OperationDef, type RouteId } from '@msa/contracts';
import type { Request, RequestHandler } from 'express';
import { appError } from './errors.js';

export interface RequireScopeOptions {
  /** Lets a call without credentials through; by default those of `none` and `open` operations. */
  anonymous?: (req: Request) => boolean;
  /** The error a call without credentials gets, e.g. with a service's own challenge; by default a 401 that names POST /v1/keys. */
  unauthorized?: (req: Request) => Error;
}

/** The table's entry for an id; throws at start-up for an id the table does not know. */
export function operationOf(id: RouteId, table: readonly OperationDef[] = OPERATIONS): OperationDef {
  const op = table.find((o) => o.id === id);
  if (!op) throw new Error(`no operation '${id}' in the operation table`);
  return op;
}

/** The operation's path as express writes it: `/v1/quotes/{id}` → `/v1/quotes/:id`. */
export function routePathOf(id: RouteId, table?: readonly OperationDef[]): string {
  return operationOf(id, table).path.replace(/\{([^}]+)\}/g, ':$1');
}

/**
 * Refuses a call the operation's table entry does not allow: 401 without
 * credentials where they are required, 403 for credentials without its scope.
 */
export function requireScope(id: RouteId, options: RequireScopeOptions = {}, table?: readonly OperationDef[]): RequestHandler {
  const { auth, scope } = operationOf(id, table);
  const anonymous = options.anonymous ?? (() => auth !== 'required');
  const open = auth !== 'required';
  return (req, _res, next) => {
    const { principal } = req.ctx;
    if (!principal && !anonymous(req)) {
      if (options.unauthorized) throw options.unauthorized(req);
      throw appError('unauthorized', 'This operation needs credentials.', {
        hint: 'Send `Authorization: Bearer <API_KEY>`; create free credentials with POST /v1/keys.',
      });
    }
    if (scope && principal && !principal.scopes.includes(scope)) {
      throw appError('insufficient_scope', `This operation needs the scope ${scope}.`, {
        hint: `Create credentials that include ${scope} with POST /v1/keys${open ? ', or send none: this operation is open' : ', or ask for it in the token request'}.`,
      });
    }
    next();
  };
}
