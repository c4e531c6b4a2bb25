// @module `ShapedRequest`, `ShapedResponse` (the server's request and response classes, see `listen`), `declareRequestFields` / `declareResponseFields` for a module that keeps a value of its own on every request or response
import { createRequire } from 'node:module';
import { IncomingMessage, ServerResponse } from 'node:http';

/*
 * Express gives every request and response its app's prototype
 * (Object.setPrototypeOf), and V8 does not share the hidden class of an
 * object that gains a property after that: each property express, the
 * router or our own code adds to a request makes a new hidden class for
 * that one request (a copy of its ~40 property descriptors, about 1 KB),
 * and every property access on requests and responses sees a different
 * class each time, so it takes V8's slowest lookup. Declaring those
 * properties when the object is constructed keeps one class for all of
 * them; later writes only change values.
 */

type Field = readonly [key: string | symbol, initial: unknown];

/** What express and its router write on every request, with the value a request has before they do. */
const requestFields: Field[] = [
  ['res', undefined],
  ['next', undefined],
  ['baseUrl', undefined],
  ['originalUrl', undefined],
  ['_parsedUrl', undefined],
  ['params', undefined],
  ['route', undefined],
  ['body', undefined],
  // EventEmitter's count, inherited as 0 until the first listener.
  ['_eventsCount', 0],
  // The router's record of errors it has seen pass (a registered symbol, shared by its copies).
  [Symbol.for('router.tracing.publishedErrors'), undefined],
];
/** What express and Node write on every response; statusCode and statusMessage are inherited until then. */
const responseFields: Field[] = [
  ['locals', undefined],
  ['statusCode', 200],
  ['statusMessage', undefined],
];

// The router marks a request with the route it matched under a symbol of its
// own module; express's copy of it is the one requests meet.
try {
  const fromExpress = createRequire(createRequire(import.meta.url).resolve('express'));
  const { matchedRoute } = fromExpress('router/lib/symbols') as { matchedRoute?: unknown };
  if (typeof matchedRoute === 'symbol') requestFields.push([matchedRoute, undefined]);
} catch {
  // Another router layout: requests still work, one class fewer is shared.
}

/** Declares properties a module sets on every request (a symbol of its own); call at module load, before the server starts. */
export function declareRequestFields(...keys: (string | symbol)[]): void {
  for (const key of keys) if (!requestFields.some(([k]) => k === key)) requestFields.push([key, undefined]);
}

/** The same for responses. */
export function declareResponseFields(...keys: (string | symbol)[]): void {
  for (const key of keys) if (!responseFields.some(([k]) => k === key)) responseFields.push([key, undefined]);
}

/** The request class of every server `listen` starts: the declared fields exist from construction. */
export class ShapedRequest extends IncomingMessage {
  constructor(socket: ConstructorParameters<typeof IncomingMessage>[0]) {
    super(socket);
    const self = this as unknown as Record<string | symbol, unknown>;
    for (const [key, initial] of requestFields) self[key] = initial;
  }
}

/** The response class of every server `listen` starts. */
export class ShapedResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  constructor(req: Request) {
    super(req);
    const self = this as unknown as Record<string | symbol, unknown>;
    for (const [key, initial] of responseFields) self[key] = initial;
  }
}
