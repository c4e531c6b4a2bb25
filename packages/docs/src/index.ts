// The package's face: what the gateway, the mcp service, the system tests and
// the package's scripts use, by name. Pages for people are built from the page
// kit, `@msa/docs/page-kit`.
export { buildChatGptSubmission } from './chatgpt-submission.js';
export { DEFAULT_CONTENT_SIGNAL, formatContentSignal, parseContentSignal } from './crawling.js';
export { buildOnboarding, renderAgentsMd, renderDevelopersMarkdown, renderLlmsTxt } from './documents.js';
export { renderHtmlPage } from './html.js';
export { LegalEnv, resolveLegalInfo } from './legal/legal-config.js';
export { buildRegistryServerJson } from './mcp-server-card.js';
export { MCP_RESOURCES, MCP_SERVER_INFO, type McpResourceName } from './mcp-surface.js';
export { openApiFor, renderOpenApiMarkdown } from './openapi-document.js';
export { createDocsRouter } from './router.js';
export { buildServiceDocument } from './service-document.js';
