// Writes chatgpt-app-submission.json at the repository root, the file
// uploaded in OpenAI's ChatGPT app submission form, from the MCP tool table.
// A test checks the committed file against the generator and the schema.
import { writeFileSync } from 'node:fs';
import { buildChatGptSubmission } from '../dist/index.js';

const target = new URL('../../../chatgpt-app-submission.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(buildChatGptSubmission(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
