// The Markdown sources are read at run time, so they travel with the compiled code.
import { cpSync, rmSync } from 'node:fs';

rmSync(new URL('../dist/content', import.meta.url), { recursive: true, force: true });
cpSync(new URL('../src/content', import.meta.url), new URL('../dist/content', import.meta.url), { recursive: true });
