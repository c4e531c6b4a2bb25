import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      // Client ID Metadata Documents must be https (the MCP SDK refuses other
      // client_id URLs), so tests serve them on loopback with this self-signed
      // certificate. Node reads the variable only when a process starts, and
      // vitest passes `env` to the forked test processes.
      NODE_EXTRA_CA_CERTS: fileURLToPath(new URL('./fixtures/loopback-tls/cert.pem', import.meta.url)),
    },
  },
});
