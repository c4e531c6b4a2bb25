// The mcp process as it is deployed: everything it writes is a JSON log line.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEST_INTERNAL_SECRET } from '@msa/test-kit';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('the mcp process', () => {
  it('writes only JSON lines from start to stop, the SDK’s console notice included', async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH, INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET, MCP_PORT: '0', MCP_ADMIN_PORT: '0', BIND_ADDRESS: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    for (let i = 0; i < 200 && !output.includes('"listening"'); i++) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGTERM');
    await exited;

    const lines = output.split('\n').filter((l) => l.trim());
    expect(output).toContain('"listening"');
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  });
});
