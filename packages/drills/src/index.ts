export * from './client.js';
export * from './drill-system.js';
export * from './faults.js';
export * from './key-drill.js';
export * from './report.js';
export * from './shop-request-drill.js';
