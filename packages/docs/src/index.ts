export * from './context.js';
export * from './documents.js';
export * from './facts.js';
export * from './html.js';
export * from './mcp-surface.js';
export * from './openapi-document.js';
export * from './router.js';
export * from './service-document.js';
export { fillTemplate, placeholdersIn, TemplateError } from './template.js';
