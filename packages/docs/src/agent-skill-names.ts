// The skills' names alone, so the documents can list them without importing
// the skills, which are filled from the documents' placeholders.

/** The skills, by name (1–64 of a-z, 0-9 and single hyphens); each has `content/skills/<name>.md`. */
export const AGENT_SKILL_NAMES = ['browse-catalog', 'get-quote', 'request-merch-shop'] as const;
export type AgentSkillName = (typeof AGENT_SKILL_NAMES)[number];
