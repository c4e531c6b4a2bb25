// Agent skills (agentskills.io) and their discovery index (agent skills
// discovery 0.2.0). Each SKILL.md is a source in content/skills/ filled with
// the same facts as agents.md, and the index takes each skill's name and
// description from its front matter and its digest from the bytes served, so
// nothing is written twice.
import { createHash } from 'node:crypto';
import { OPERATIONS, type OperationDef } from '@msa/contracts';
import { AGENT_SKILL_NAMES, type AgentSkillName } from './agent-skill-names.js';
import { docUrls, operationHref, requireOperation, type DocContext } from './context.js';
import { templateVars } from './documents.js';
import { fillTemplate, loadSource } from './template.js';

export const AGENT_SKILLS_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';


export interface AgentSkillEntry {
  name: string;
  type: 'skill-md';
  description: string;
  url: string;
  digest: string;
}

export interface AgentSkillsIndex {
  $schema: string;
  skills: AgentSkillEntry[];
}

export function isAgentSkillName(name: string): name is AgentSkillName {
  return (AGENT_SKILL_NAMES as readonly string[]).includes(name);
}

/**
 * One SKILL.md. Skills live at the origin's well-known path, so they are
 * rendered for production; they name the sandbox where it matters.
 */
export function renderAgentSkill(name: AgentSkillName, ctx: DocContext, table: readonly OperationDef[] = OPERATIONS): string {
  const production = { ...ctx, sandbox: false };
  const quote = (id: 'createQuote' | 'getQuote', sandbox: boolean) => operationHref(docUrls({ ...ctx, sandbox }), requireOperation(table, id));
  return fillTemplate(loadSource(`skills/${name}.md`), {
    ...templateVars(production, table),
    CREATE_QUOTE_URL: quote('createQuote', false),
    SANDBOX_CREATE_QUOTE_URL: quote('createQuote', true),
    QUOTE_URL: quote('getQuote', false),
  });
}

/** The front matter's `name` and `description` (single-line values, as the sources write them). */
export function skillFrontMatter(skill: string): { name: string; description: string } {
  const block = /^---\n([\s\S]*?)\n---\n/.exec(skill)?.[1];
  if (!block) throw new Error('a SKILL.md starts with YAML front matter');
  const field = (key: string) => new RegExp(`^${key}: (.+)$`, 'm').exec(block)?.[1]?.trim();
  const name = field('name');
  const description = field('description');
  if (!name || !description) throw new Error('the front matter needs name and description');
  return { name, description };
}

export const sha256Digest = (body: string) => `sha256:${createHash('sha256').update(body, 'utf8').digest('hex')}`;

/** `/.well-known/agent-skills/index.json`. */
export function buildAgentSkillsIndex(ctx: DocContext, table: readonly OperationDef[] = OPERATIONS): AgentSkillsIndex {
  const u = docUrls({ ...ctx, sandbox: false });
  const skillRoute = requireOperation(table, 'getAgentSkill');
  return {
    $schema: AGENT_SKILLS_SCHEMA,
    skills: AGENT_SKILL_NAMES.map((name) => {
      const body = renderAgentSkill(name, ctx, table);
      const front = skillFrontMatter(body);
      if (front.name !== name) throw new Error(`content/skills/${name}.md names itself '${front.name}'`);
      return {
        name,
        type: 'skill-md',
        description: front.description,
        url: operationHref(u, skillRoute).replace('{name}', name),
        digest: sha256Digest(body),
      };
    }),
  };
}
