// What callers have been promised and may rely on: the name and input
// fields of every MCP tool, and the id, method, path and request fields of
// every public REST operation. `published-surface.json` beside this package
// records the surface as released (`pnpm surface` writes it); the
// compatibility test compares the tables against that record. Within v1 the
// surface only grows: a removed or renamed tool, operation or field, a
// narrower type or enumeration, or a field that became required breaks
// callers written against the record, so the test fails on each.
import type { ZodType } from 'zod';
import { MCP_TOOLS, type McpToolSpec } from './mcp-tools.js';
import { OPERATIONS, type OperationDef } from './operations.js';
import { z } from './zod.js';

/** One input field, by dotted path (`organization.email`, `products[].designs[].width_cm`). */
export interface SurfaceField {
  /** JSON types the field accepts, sorted. */
  type: string[];
  /** True when a caller must send it. */
  required: boolean;
  /** The values it accepts, when it is an enumeration. */
  enum?: Array<string | number | boolean | null>;
  /** The `x-mcp-header` name a 2026-07-28 client mirrors the value into. */
  header?: string;
}

export type SurfaceFields = Record<string, SurfaceField>;

export interface SurfaceTool {
  input: SurfaceFields;
}

export interface SurfaceOperation {
  method: string;
  path: string;
  request: {
    query?: SurfaceFields;
    params?: SurfaceFields;
    headers?: SurfaceFields;
    /** By media type. */
    body?: Record<string, SurfaceFields>;
  };
}

export interface PublishedSurface {
  mcp_tools: Record<string, SurfaceTool>;
  operations: Record<string, SurfaceOperation>;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The object and array branches of a schema: itself, or each branch of an anyOf/oneOf/allOf. */
function branchesOf(schema: Json): Json[] {
  const union = [schema.anyOf, schema.oneOf, schema.allOf].find(Array.isArray) as unknown[] | undefined;
  return union ? union.filter(isObject).flatMap(branchesOf) : [schema];
}

function typesOf(schema: Json): string[] {
  const types = new Set<string>();
  for (const branch of branchesOf(schema)) {
    if (typeof branch.type === 'string') types.add(branch.type);
    if (Array.isArray(branch.type)) for (const t of branch.type) types.add(String(t));
    if ('const' in branch) types.add(branch.const === null ? 'null' : typeof branch.const);
    if (branch.type === undefined && !('const' in branch) && !Array.isArray(branch.enum)) types.add('any');
  }
  return [...types].sort();
}

/** The accepted values, when every branch is an enumeration or a constant; else undefined (anything of the type). */
function enumOf(schema: Json): SurfaceField['enum'] {
  const values: NonNullable<SurfaceField['enum']> = [];
  for (const branch of branchesOf(schema)) {
    if (Array.isArray(branch.enum)) values.push(...(branch.enum as NonNullable<SurfaceField['enum']>));
    else if ('const' in branch) values.push(branch.const as string);
    else if (branch.type !== 'null') return undefined;
  }
  return [...new Set(values)].sort((a, b) => String(a).localeCompare(String(b)));
}

/**
 * Every field below `schema`, by dotted path. Fields of union branches are
 * merged; such a field counts as required only when every branch holds and
 * requires it, so a new branch with its own required fields stays additive.
 */
function fieldsOf(schema: Json, prefix = '', out: SurfaceFields = {}): SurfaceFields {
  const branches = branchesOf(schema);
  const objects = branches.filter((b) => isObject(b.properties));
  const names = new Set(objects.flatMap((b) => Object.keys(b.properties as Json)));
  for (const name of names) {
    const holders = objects.filter((b) => isObject((b.properties as Json)[name]));
    const required = holders.length === objects.length && holders.every((b) => Array.isArray(b.required) && b.required.includes(name));
    const path = prefix ? `${prefix}.${name}` : name;
    for (const holder of holders) addField((holder.properties as Json)[name] as Json, path, required, out);
  }
  for (const branch of branches) {
    if (isObject(branch.items)) addField(branch.items, `${prefix}[]`, false, out);
  }
  return out;
}

/** The same path in two union branches: what either accepts is accepted. */
function mergeFields(a: SurfaceField, b: SurfaceField): SurfaceField {
  const merged: SurfaceField = { type: [...new Set([...a.type, ...b.type])].sort(), required: a.required && b.required };
  if (a.enum && b.enum) merged.enum = [...new Set([...a.enum, ...b.enum])].sort((x, y) => String(x).localeCompare(String(y)));
  const header = a.header ?? b.header;
  if (header) merged.header = header;
  return merged;
}

function addField(schema: Json, path: string, required: boolean, out: SurfaceFields): void {
  const header = schema['x-mcp-header'];
  const values = enumOf(schema);
  const field: SurfaceField = {
    type: typesOf(schema),
    required,
    ...(values ? { enum: values } : {}),
    ...(typeof header === 'string' ? { header } : {}),
  };
  const seen = out[path];
  out[path] = seen ? mergeFields(seen, field) : field;
  fieldsOf(schema, path, out);
}

function inputFields(schema: ZodType): SurfaceFields {
  const json = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as Json;
  return sortKeys(fieldsOf(json));
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

/** The surface the tables describe now. */
export function publishedSurface(
  tools: readonly McpToolSpec[] = MCP_TOOLS,
  operations: readonly OperationDef[] = OPERATIONS,
): PublishedSurface {
  const mcpTools = Object.fromEntries(tools.map((t) => [t.name, { input: inputFields(t.args) }]));
  const ops = operations
    .filter((op) => op.kind === 'operation')
    .map((op): [string, SurfaceOperation] => {
      const { query, params, headers, body } = op.request ?? {};
      const request: SurfaceOperation['request'] = {
        ...(query ? { query: inputFields(query) } : {}),
        ...(params ? { params: inputFields(params) } : {}),
        ...(headers ? { headers: inputFields(headers) } : {}),
        ...(body ? { body: sortKeys(Object.fromEntries(Object.entries(body).map(([type, schema]) => [type, inputFields(schema)]))) } : {}),
      };
      return [op.id, { method: op.method, path: op.path, request }];
    });
  return { mcp_tools: sortKeys(mcpTools), operations: sortKeys(Object.fromEntries(ops)) };
}

/** How `current` refuses something `published` accepted, or null when it accepts all of it. */
function narrowing(published: SurfaceField, current: SurfaceField): string | null {
  const accepts = (type: string) => current.type.includes('any') || current.type.includes(type) || (type === 'integer' && current.type.includes('number'));
  const lost = published.type.filter((t) => !accepts(t));
  if (lost.length) return `no longer accepts ${lost.join(', ')}`;
  if (current.enum) {
    if (!published.enum) return `is now limited to ${current.enum.map((v) => JSON.stringify(v)).join(', ')}`;
    const gone = published.enum.filter((v) => !current.enum!.includes(v));
    if (gone.length) return `no longer accepts ${gone.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  if (!published.required && current.required) return 'is now required';
  // Clients mirror a published header name and proxies route on it; a field
  // may gain one, since 2026-07-28 clients refetch the tool list when told.
  if (published.header && published.header !== current.header) {
    return `is mirrored into ${current.header ? `Mcp-Param-${current.header}` : 'no header'} instead of Mcp-Param-${published.header}`;
  }
  return null;
}

/** The parent path of a field (`a.b[]` for `a.b[].c`), or '' for a top-level one. */
function parentOf(path: string): string {
  const at = Math.max(path.lastIndexOf('.'), path.endsWith('[]') ? path.length - 2 : -1);
  return at <= 0 ? '' : path.slice(0, at);
}

function fieldBreaks(where: string, published: SurfaceFields = {}, current: SurfaceFields = {}): string[] {
  const breaks: string[] = [];
  for (const [path, field] of Object.entries(published)) {
    const now = current[path];
    if (!now) breaks.push(`${where}: field ${path} was removed`);
    else {
      const problem = narrowing(field, now);
      if (problem) breaks.push(`${where}: field ${path} ${problem}`);
    }
  }
  // A new field may be required only inside a new optional parent: a caller
  // who never heard of it cannot send it.
  for (const [path, field] of Object.entries(current)) {
    if (published[path] || !field.required) continue;
    const parent = parentOf(path);
    if (parent === '' || published[parent]) breaks.push(`${where}: new field ${path} is required`);
  }
  return breaks;
}

/**
 * What `current` takes away from callers of `published`, one line each; empty
 * when `current` keeps every published promise (it may add to them).
 */
export function surfaceBreaks(published: PublishedSurface, current: PublishedSurface): string[] {
  const breaks: string[] = [];
  for (const [name, tool] of Object.entries(published.mcp_tools)) {
    const now = current.mcp_tools[name];
    if (!now) breaks.push(`MCP tool ${name} was removed or renamed`);
    else breaks.push(...fieldBreaks(`MCP tool ${name}`, tool.input, now.input));
  }
  for (const [id, op] of Object.entries(published.operations)) {
    const now = current.operations[id];
    if (!now) {
      breaks.push(`operation ${id} (${op.method} ${op.path}) was removed or renamed`);
      continue;
    }
    if (now.method !== op.method || now.path !== op.path) breaks.push(`operation ${id} moved from ${op.method} ${op.path} to ${now.method} ${now.path}`);
    for (const part of ['query', 'params', 'headers'] as const) {
      breaks.push(...fieldBreaks(`operation ${id} ${part}`, op.request[part], now.request[part]));
    }
    for (const [type, fields] of Object.entries(op.request.body ?? {})) {
      const nowFields = now.request.body?.[type];
      if (!nowFields) breaks.push(`operation ${id} no longer takes a ${type} body`);
      else breaks.push(...fieldBreaks(`operation ${id} body (${type})`, fields, nowFields));
    }
  }
  return breaks;
}

/** The record as written to `published-surface.json`: indented, one field per line, so a diff shows each change on its own line. */
export function formatSurface(surface: PublishedSurface): string {
  const isField = (value: unknown): boolean => isObject(value) && Array.isArray(value.type) && typeof value.required === 'boolean';
  const write = (value: unknown, indent: string): string => {
    if (!isObject(value) || isField(value)) return JSON.stringify(value);
    const inner = `${indent}  `;
    const entries = Object.entries(value).map(([key, child]) => `${inner}${JSON.stringify(key)}: ${write(child, inner)}`);
    return entries.length ? `{\n${entries.join(',\n')}\n${indent}}` : '{}';
  };
  return `${write(surface, '')}\n`;
}
