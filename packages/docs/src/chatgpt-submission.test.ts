// The ChatGPT app submission file: generated from the MCP tool table, kept
// current in the repository, and valid against OpenAI's import schema
// (vendored in test/schemas/, reconstructed as its README says), read by a
// draft 2020-12 validator.
import { readFileSync } from 'node:fs';
import { MCP_TOOLS, MCP_TOOL_NAMES } from '@msa/contracts';
import { Validator, type Schema } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import { CHATGPT_SUBMISSION_SCHEMA, buildChatGptSubmission } from './chatgpt-submission.js';

const readJson = (url: URL) => JSON.parse(readFileSync(url, 'utf8')) as Record<string, unknown>;
const schema = readJson(new URL('../test/schemas/chatgpt-app-submission.v1.json', import.meta.url));
const validator = new Validator(schema as Schema, '2020-12', false);
/** The schema's errors for `value`, empty when it validates. */
const problems = (value: unknown) => validator.validate(value).errors.map((e) => `${e.instanceLocation}: ${e.error}`);
const submission = buildChatGptSubmission();

describe('chatgpt-app-submission.json', () => {
  it('validates against the import schema', () => {
    expect(problems(submission)).toEqual([]);
    expect(schema.$id).toBe(CHATGPT_SUBMISSION_SCHEMA);
  });

  it('is what the repository holds (pnpm submission writes it)', () => {
    const committed = readJson(new URL('../../../chatgpt-app-submission.json', import.meta.url));

    expect(problems(committed)).toEqual([]);
    expect(committed).toEqual(JSON.parse(JSON.stringify(submission)));
  });

  it('lists every tool of the table with the hints the mcp service announces, each justified', () => {
    expect(Object.keys(submission.tools)).toEqual([...MCP_TOOL_NAMES]);
    for (const tool of MCP_TOOLS) {
      const entry = submission.tools[tool.name]!;
      expect(entry.annotations, tool.name).toEqual({
        readOnlyHint: tool.hints.readOnlyHint,
        openWorldHint: tool.hints.openWorldHint,
        destructiveHint: tool.hints.destructiveHint,
      });
      for (const sentence of Object.values(entry.justifications)) expect(sentence, tool.name).toMatch(/^[A-Z].{20,}\.$/);
    }
  });

  it('says why the one tool that sends e-mail is open world and destructive', () => {
    const { justifications } = submission.tools.create_shop_request!;

    expect(justifications.open_world_justification).toContain('e-mails the operator team');
    expect(justifications.destructive_justification).toContain('cannot be taken back');
  });

  it('has at least 5 prompts that each name the tool they trigger, and 3 that trigger none', () => {
    expect(submission.test_cases.length).toBeGreaterThanOrEqual(5);
    for (const c of submission.test_cases) expect(MCP_TOOL_NAMES, c.user_prompt).toContain(c.tools_triggered);
    expect(submission.negative_test_cases.length).toBeGreaterThanOrEqual(3);
    for (const c of submission.negative_test_cases) expect(c.tools_triggered, c.user_prompt).toBeNull();
  });

  it('refuses a file whose tool lacks a hint, so the schema check can fail', () => {
    const broken = JSON.parse(JSON.stringify(submission)) as { tools: Record<string, { annotations: Record<string, unknown> }> };
    delete broken.tools.get_quote!.annotations.openWorldHint;

    expect(problems(broken).join('\n')).toContain('openWorldHint');
  });
});
