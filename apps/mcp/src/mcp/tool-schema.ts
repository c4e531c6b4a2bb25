import { z } from '@msa/contracts';
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';

/**
 * Advertises `schema` as a tool's input JSON Schema but hands every argument
 * object to the handler unchanged; the handler parses it with the same zod
 * schema. A bad argument then comes back as the API's `validation_failed`
 * envelope with one `fields` entry per problem, as on the REST API, rather
 * than as the SDK's one-line message.
 */
export function advertisedInput(schema: z.ZodType): StandardSchemaWithJSON<unknown, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete json.$schema;
  return {
    '~standard': {
      version: 1,
      vendor: 'msa',
      validate: (value: unknown) => ({ value: value ?? {} }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}
