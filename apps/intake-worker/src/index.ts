export { createApp, type AppDeps } from './app.js';
export { IntakeWorkerEnv, type IntakeWorkerConfig } from './config.js';
export { startService, type RunningIntakeWorker, type ServiceDeps } from './server.js';
export { listFields, runIntake, type IntakeDeps } from './intake/run-intake.js';
