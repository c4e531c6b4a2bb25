import { describe, expect, it } from 'vitest';
import { portableJsonSchema } from './tool-schema.js';

describe('portableJsonSchema', () => {
  it('splits a nullable type array into anyOf branches, keeping the description outside', () => {
    const schema = { type: ['number', 'null'], minimum: 0, description: 'Price' };

    expect(portableJsonSchema(schema)).toEqual({ description: 'Price', anyOf: [{ type: 'number', minimum: 0 }, { type: 'null' }] });
  });

  it('drops additionalProperties {} and a string-only propertyNames, which allow the same', () => {
    const schema = { type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} };

    expect(portableJsonSchema(schema)).toEqual({ type: 'object' });
  });

  it('keeps additionalProperties false and nested schemas rewritten', () => {
    const schema = { type: 'object', properties: { a: { type: ['string', 'null'] } }, additionalProperties: false };

    expect(portableJsonSchema(schema)).toEqual({
      type: 'object',
      properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
      additionalProperties: false,
    });
  });
});
