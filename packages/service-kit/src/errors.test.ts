import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError, appError, parseOr, toFieldProblems } from './errors.js';

const Body = z.strictObject({
  organization: z.strictObject({ email: z.email('must be a valid e-mail address') }),
  products: z.array(z.strictObject({ designs: z.array(z.strictObject({ width_cm: z.number().max(40) })) })),
});

function problemsOf(value: unknown) {
  const parsed = Body.safeParse(value);
  if (parsed.success) throw new Error('expected the value to be invalid');
  return toFieldProblems(parsed.error);
}

describe('toFieldProblems', () => {
  it('names each problem with its dotted path', () => {
    const problems = problemsOf({
      organization: { email: 'nope' },
      products: [{ designs: [{ width_cm: 10 }, { width_cm: 41 }] }],
    });

    expect(problems).toEqual([
      { field: 'organization.email', message: 'must be a valid e-mail address' },
      { field: 'products.0.designs.1.width_cm', message: expect.any(String) },
    ]);
  });

  it('names an unknown key itself, one entry per key', () => {
    const problems = problemsOf({
      organization: { email: 'a@example.de', phone_number: '1', fax: '2' },
      products: [{ designs: [{ width_cm: 1, colour: 'red' }] }],
    });

    expect(problems).toEqual([
      { field: 'organization.phone_number', message: 'unknown field' },
      { field: 'organization.fax', message: 'unknown field' },
      { field: 'products.0.designs.0.colour', message: 'unknown field' },
    ]);
  });

  it('names an unknown top-level key without a leading dot', () => {
    const problems = problemsOf({ organization: { email: 'a@example.de' }, products: [], extra: true });

    expect(problems).toEqual([{ field: 'extra', message: 'unknown field' }]);
  });

  it('names a problem with the whole body (body)', () => {
    expect(problemsOf('a string')).toEqual([{ field: '(body)', message: expect.any(String) }]);
  });
});

describe('appError', () => {
  it('takes the status from the code registry', () => {
    const err = appError('product_not_found', "No product with handle 'x'.");

    expect(err).toBeInstanceOf(AppError);
    expect(err.status).toBe(404);
    expect(err.code).toBe('product_not_found');
  });
});

describe('parseOr', () => {
  it('returns the parsed value', () => {
    expect(parseOr(z.object({ n: z.coerce.number() }), { n: '3' })).toEqual({ n: 3 });
  });

  it('throws 400 invalid_request with one field per problem by default', () => {
    const run = () => parseOr(z.object({ limit: z.coerce.number().max(250) }), { limit: '251' });

    expect(run).toThrow(AppError);
    try {
      run();
    } catch (err) {
      expect(err).toMatchObject({ status: 400, code: 'invalid_request', extra: { fields: [{ field: 'limit' }] } });
    }
  });

  it('throws the code it is given', () => {
    expect(() => parseOr(z.string(), 1, 'validation_failed')).toThrow(expect.objectContaining({ status: 422 }));
  });
});
