// No package's modules import each other in a circle. A circle makes the
// order modules load in decide what a module sees (an import still undefined
// while its own module loads), and it ties files together that a reader should
// be able to take one at a time. The graph is each package's `src/**/*.ts` and
// its relative imports, type-only ones included: a circle of types is still
// two files that cannot be understood apart. `import()` is left out, since
// loading on demand is how a module reaches one that needs it. A failure
// names each circle, with `⇢` where an import is of types only.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './deploy-support.js';

const STATIC_IMPORT = /^\s*(?:import|export)\b([^;]*?)\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|^\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/gm;

/** For each module, the modules it imports, and which of them it imports types of only. */
interface ImportGraph {
  imports: Map<string, string[]>;
  typeOnly: Set<string>;
}
const edge = (from: string, to: string) => `${from}\n${to}`;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sourcesUnder(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The file a relative specifier names under NodeNext: `./x.js` is `./x.ts` (or `./x.d.ts`, `./x/index.ts`). */
function resolveImport(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ''));
  return [`${base}.ts`, `${base}.d.ts`, join(base, 'index.ts'), base].find((file) => existsSync(file) && statSync(file).isFile());
}

function importGraph(srcDir: string): ImportGraph {
  const imports = new Map<string, string[]>();
  const typeOnly = new Set<string>();
  const valueEdges = new Set<string>();
  for (const file of sourcesUnder(srcDir)) {
    const targets = new Set<string>();
    for (const m of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      const target = resolveImport(file, (m[2] ?? m[3])!);
      if (!target) continue;
      targets.add(target);
      // `import type …` / `export type …` (not `import { type A, b }`, which still loads the module).
      if (m[1] !== undefined && /^\s*type\b/.test(m[1]) && !/^\s*type\s*,/.test(m[1])) typeOnly.add(edge(file, target));
      else valueEdges.add(edge(file, target));
    }
    imports.set(file, [...targets]);
  }
  for (const e of valueEdges) typeOnly.delete(e);
  return { imports, typeOnly };
}

/** One circle through each group of modules that reach each other (Tarjan's strongly connected components), as a path that ends where it starts. */
function findCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component);
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components.map((component) => circleThrough(graph, new Set(component)));
}

/** A shortest circle from the component's first module (by name) back to itself, inside the component. */
function circleThrough(graph: Map<string, string[]>, members: Set<string>): string[] {
  const start = [...members].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next) && next !== start) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

const PACKAGES = ['apps', 'packages', 'tooling']
  .flatMap((group) => readdirSync(join(ROOT, group)).map((name) => join(group, name)))
  .filter((dir) => existsSync(join(ROOT, dir, 'src')) && sourcesUnder(join(ROOT, dir, 'src')).length > 0)
  .sort();

/** `src/a.ts → src/b.ts ⇢ src/a.ts`: the circle as a reader follows it. */
function describeCircle(circle: string[], { typeOnly }: ImportGraph, base: string): string {
  return circle.reduce((text, file, i) => {
    const name = relative(base, file);
    if (i === 0) return name;
    return `${text} ${typeOnly.has(edge(circle[i - 1]!, file)) ? '⇢' : '→'} ${name}`;
  }, '');
}

describe('import graph', () => {
  it('finds a circle and names it, from the first module by name', () => {
    const graph = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts', '/d.ts']],
      ['/d.ts', []],
      ['/e.ts', ['/e.ts']],
    ]);

    expect(findCycles(graph)).toEqual([
      ['/a.ts', '/b.ts', '/c.ts', '/a.ts'],
      ['/e.ts', '/e.ts'],
    ]);
  });

  it('finds none in a tree', () => {
    expect(findCycles(new Map([['/a.ts', ['/b.ts', '/c.ts']], ['/b.ts', ['/c.ts']], ['/c.ts', []]]))).toEqual([]);
  });

  it.each(PACKAGES)('%s has no import circle', (dir) => {
    const src = join(ROOT, dir, 'src');
    const graph = importGraph(src);

    const circles = findCycles(graph.imports).map((circle) => describeCircle(circle, graph, join(ROOT, dir)));

    expect(graph.imports.size).toBeGreaterThan(0);
    expect(circles).toEqual([]);
  });
});
