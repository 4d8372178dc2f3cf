import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

/**
 * DESIGN.md's layering inside the emulator, checked over the real import graph: no route module
 * imports another route module (shared lookups live in helpers, changes in emulator/services/),
 * and no module of emulator/ reaches itself again through its imports (type-only imports
 * included: a circle of types is a circle of knowledge all the same).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../emulator');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The emulator modules a file imports or re-exports (relative specifiers only), as absolute paths. */
function importsOf(file: string, text: string): string[] {
  const specifiers = new Set<string>();
  // Static imports and re-exports (`import … from '…'`, `export … from '…'`, `import '…'`) and dynamic import('…').
  const patterns = [/(?:^|\n)\s*(?:import|export)\s[^;'"]*?from\s*['"]([^'"]+)['"]/g, /(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) specifiers.add(m[1]);
  const out: string[] = [];
  for (const spec of specifiers) {
    if (!spec.startsWith('.')) continue;
    const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
    if (target.startsWith(ROOT + '/') || target === ROOT) out.push(target);
  }
  return out;
}

/** A route module registers routes: it calls get/post/put/patch/delete/route on a FastifyInstance it declares. */
function isRouteModule(_file: string, text: string): boolean {
  const apps = [...text.matchAll(/\b([A-Za-z_$][\w$]*)\s*:\s*FastifyInstance\b/g)].map((m) => m[1]);
  return apps.some((app) => new RegExp(`\\b${app.replace(/\$/g, '\\$')}\\.(get|post|put|patch|delete|head|options|route)\\(`).test(text));
}

const files = sources(ROOT);
const texts = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
const graph = new Map(files.map((f) => [f, importsOf(f, texts.get(f)!).filter((t) => texts.has(t))]));
const name = (f: string) => relative(ROOT, f);

/** Every import circle, each as the list of modules around it (Tarjan's strongly connected components). */
function circles(): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)!) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.map(name).sort());
    }
  };
  for (const f of files) if (!indexOf.has(f)) visit(f);
  return found;
}

describe('the emulator import graph', () => {
  test('the graph is read: route modules are found and import the services', () => {
    const routes = files.filter((f) => isRouteModule(f, texts.get(f)!));
    expect(routes.length).toBeGreaterThan(5);
    expect(files.some((f) => name(f).startsWith('services/'))).toBe(true);
    expect(routes.some((f) => graph.get(f)!.some((t) => name(t).startsWith('services/')))).toBe(true);
  });

  test('no route module imports another route module', () => {
    const offending = files
      .filter((f) => isRouteModule(f, texts.get(f)!))
      .flatMap((f) => graph.get(f)!.filter((t) => isRouteModule(t, texts.get(t)!)).map((t) => `${name(f)} -> ${name(t)}`));
    expect(offending).toEqual([]);
  });

  test('the services import no route module (routes call services, never the reverse)', () => {
    const offending = files
      .filter((f) => name(f).startsWith('services/'))
      .flatMap((f) => graph.get(f)!.filter((t) => isRouteModule(t, texts.get(t)!)).map((t) => `${name(f)} -> ${name(t)}`));
    expect(offending).toEqual([]);
  });

  test('route modules write nothing to the store themselves: every change goes through emulator/services/', () => {
    const writes = /\b(?:db\.\w+|collection)\.(?:put|delete)\(|\.atomically\(|\bstore\.(?:clear|compact|prepareReplace)\(/;
    const offending = files.filter((f) => isRouteModule(f, texts.get(f)!) && writes.test(texts.get(f)!)).map(name);
    expect(offending).toEqual([]);
  });

  test('no module outside emulator/services/ writes to the store (the store itself aside)', () => {
    // The store implements the writes; the delivery log is services/deliveries.ts.
    const exempt = (f: string) => ['services/', 'store/'].some((dir) => name(f).startsWith(dir));
    const writes = /\b(?:db\.\w+|collection)\.(?:put|delete)\(|\.atomically\(|\bstore\.(?:clear|compact|prepareReplace)\(/;
    const offending = files.filter((f) => !exempt(f) && writes.test(texts.get(f)!)).map(name);
    expect(offending).toEqual([]);
  });

  test('emulator/ has no import circle', () => {
    expect(circles()).toEqual([]);
  });
});
