import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The TypeScript sources under `dir` (declarations excluded). */
export function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The modules a file imports or re-exports (relative specifiers only, type-only included), as absolute paths. */
export function importsOf(file: string, text: string): string[] {
  const specifiers = new Set<string>();
  // Static imports and re-exports (`import … from '…'`, `export … from '…'`, `import '…'`) and dynamic import('…').
  const patterns = [
    /(?:^|\n)\s*(?:import|export)\s[^;'"]*?from\s*['"]([^'"]+)['"]/g,
    /(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) specifiers.add(m[1]);
  const out: string[] = [];
  for (const spec of specifiers) {
    if (!spec.startsWith('.')) continue;
    const target = resolve(dirname(file), spec).replace(/\.jsx?$/, '');
    out.push(target);
  }
  return out;
}

/** The import graph of the sources under `roots`: each file to the files it imports among them. */
export function importGraph(roots: string[]): {
  files: string[];
  texts: Map<string, string>;
  graph: Map<string, string[]>;
} {
  const files = roots.flatMap((root) => sources(root));
  const texts = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
  const byStem = new Map(files.map((f) => [f.replace(/\.tsx?$/, ''), f]));
  const graph = new Map(
    files.map((f) => [
      f,
      importsOf(f, texts.get(f)!).flatMap(
        (t) => byStem.get(t) ?? byStem.get(join(t, 'index')) ?? [],
      ),
    ]),
  );
  return { files, texts, graph };
}

/** Every import circle, each as the sorted list of modules around it, named relative to `base` (Tarjan's strongly connected components). */
export function circles(graph: Map<string, string[]>, base: string): string[][] {
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
      if (component.length > 1 || graph.get(v)!.includes(v))
        found.push(component.map((f) => relative(base, f)).sort());
    }
  };
  for (const f of graph.keys()) if (!indexOf.has(f)) visit(f);
  return found;
}
