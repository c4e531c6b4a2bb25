// The 422 of a body that shop requests and quotes share: every problem at
// once, the schema's and the unknown products too, when the catalog answers.
// A catalog that is down only costs the product problems, never the answer.
import type { CallContext, FieldProblem } from '@msa/contracts';
import { appError, toFieldProblems, type AppError } from '@msa/service-kit';
import type { z } from 'zod';
import type { ProductCatalog } from '../catalog/product-catalog.js';
import { unknownProductsInRawBody } from './requested-line.js';

/** A `validation_failed` naming how many problems the body has (`what`: shop request, quote). */
export function invalidBody(what: string, fields: FieldProblem[]): AppError {
  const problems = fields.length === 1 ? 'one problem' : `${fields.length} problems`;
  return appError('validation_failed', `The ${what} has ${problems}; see error.fields.`, { fields });
}

/** The schema's problems of a raw body, and the unknown products of its list (`products`, `lines`) that the schema did not report already. */
export async function schemaProblems(
  catalog: ProductCatalog,
  ctx: CallContext,
  raw: unknown,
  error: z.ZodError,
  list: 'products' | 'lines',
): Promise<FieldProblem[]> {
  const fields = toFieldProblems(error);
  const entries = raw && typeof raw === 'object' ? (raw as Record<string, unknown>)[list] : undefined;
  const index = Array.isArray(entries) && entries.length > 0 ? await catalog.index(ctx).catch(() => undefined) : undefined;
  if (index) {
    const reported = new Set(fields.map((f) => f.field));
    fields.push(...unknownProductsInRawBody(raw, index, list).filter((p) => !reported.has(p.field)));
  }
  return fields;
}
