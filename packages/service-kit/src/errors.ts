// @module `AppError(status, code, message, { hint, fields, headers })`, `appError(code, message)` (status from the contracts registry), `parseOr(schema, value, code)`, `toFieldProblems(zodError)` (dotted paths)
import { ERROR_CODES, type ErrorCode, type FieldProblem } from '@msa/contracts';
import type { z } from 'zod';

export interface AppErrorExtra {
  hint?: string;
  fields?: FieldProblem[];
  /** Response headers the error needs (Retry-After, WWW-Authenticate, Allow). */
  headers?: Record<string, string>;
}

/** An error the API answers with on purpose: a status, a code and the envelope's optional fields. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extra: AppErrorExtra = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** An AppError whose status comes from the code registry. */
export function appError(code: ErrorCode, message: string, extra: AppErrorExtra = {}): AppError {
  return new AppError(ERROR_CODES[code].status, code, message, extra);
}

export const notFound = (code: ErrorCode, message: string, hint?: string) =>
  appError(code, message, hint ? { hint } : {});
export const forbidden = (message: string) => appError('forbidden', message);

/** One `{field, message}` per zod issue, with dotted paths (`products.0.designs.1.width_cm`). */
export function toFieldProblems(error: z.ZodError): FieldProblem[] {
  return error.issues.flatMap((issue) => {
    const base = issue.path.map(String).join('.');
    // An unknown key is reported on the object; name the key itself instead.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: base ? `${base}.${key}` : key, message: 'unknown field' }));
    }
    return [{ field: base || '(body)', message: issue.message }];
  });
}

/** Parses with `schema`; a failure becomes `code` (default 400 invalid_request) with one field per problem. */
export function parseOr<S extends z.ZodType>(
  schema: S,
  value: unknown,
  code: ErrorCode = 'invalid_request',
  message = 'The request has invalid parameters.',
): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw appError(code, message, { fields: toFieldProblems(parsed.error) });
}
