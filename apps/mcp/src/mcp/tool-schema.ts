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

type Json = Record<string, unknown>;

// Keywords that describe a value rather than constrain it; they stay on the
// outer schema when a type array is split into anyOf branches.
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Rewrites zod's JSON Schema into the portable subset strict MCP clients
 * (Inspector `--strict`, JSON Schema draft-07 era validators, model tool
 * converters) accept without warnings: a type array such as
 * `["number", "null"]` becomes `anyOf` of one-type branches, and
 * `additionalProperties: {}` (zod's "anything else is allowed", which some
 * clients read as "no property allowed") and the tautological
 * `propertyNames: {type: string}` are dropped, which means the same.
 */
export function portableJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portableJsonSchema);
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'additionalProperties' && isObject(value) && Object.keys(value).length === 0) continue;
    if (key === 'propertyNames' && isObject(value) && value.type === 'string' && Object.keys(value).length === 1) continue;
    out[key] = portableJsonSchema(value);
  }
  if (!Array.isArray(out.type)) return out;
  const types = out.type as string[];
  const outer: Json = {};
  const constraints: Json = {};
  for (const [key, value] of Object.entries(out)) {
    if (key === 'type') continue;
    (ANNOTATIONS.has(key) ? outer : constraints)[key] = value;
  }
  // A constraint such as `minimum` applies to its own type only, so it may
  // ride on every non-null branch without changing what validates.
  outer.anyOf = types.map((type) => (type === 'null' ? { type } : { type, ...constraints }));
  return outer;
}

/**
 * A tool's output schema: zod validates the `structuredContent` the handler
 * returns (the SDK checks it before answering), and clients see the portable
 * JSON Schema of the same zod schema.
 */
export function advertisedOutput(schema: z.ZodType): StandardSchemaWithJSON<unknown, unknown> {
  const raw = z.toJSONSchema(schema, { io: 'output', target: 'draft-2020-12' }) as Json;
  delete raw.$schema;
  const json = portableJsonSchema(raw) as Json;
  // The MCP 2025 revisions want an object root; `anyOf` of objects is one.
  if (json.type === undefined) json.type = 'object';
  return {
    '~standard': {
      version: 1,
      vendor: 'msa',
      validate: (value: unknown) => {
        const parsed = schema.safeParse(value);
        if (parsed.success) return { value: parsed.data };
        return { issues: parsed.error.issues.map((i) => ({ message: i.message, path: i.path as PropertyKey[] })) };
      },
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}
