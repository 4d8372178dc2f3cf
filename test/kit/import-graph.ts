import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** package.json `imports` (`#contract`, `#contract/*`): subpath imports resolve to files of the repository. */
const SUBPATHS =
  (
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      imports?: Record<string, string>;
    }
  ).imports ?? {};

/** The file a `#name` specifier names, without its extension, or undefined when package.json maps no such name. */
function subpathTarget(spec: string): string | undefined {
  for (const [key, value] of Object.entries(SUBPATHS)) {
    const star = key.indexOf('*');
    if (star === -1 ? spec !== key : !spec.startsWith(key.slice(0, star))) continue;
    const mapped = star === -1 ? value : value.replace('*', spec.slice(star));
    return resolve(ROOT, mapped).replace(/\.tsx?$/, '');
  }
  return undefined;
}

/** The TypeScript sources under `dir` (declarations excluded). */
export function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The modules a file imports or re-exports (relative and `#` subpath specifiers, type-only included), as absolute paths. */
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
    if (spec.startsWith('#')) {
      const target = subpathTarget(spec);
      if (target !== undefined) out.push(target);
      continue;
    }
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

/** One relative import: the importing file and the file it names (a module or a JSON file), as absolute paths. */
export interface ImportEdge {
  from: string;
  to: string;
}

/** Every relative import of the sources under `roots`, JSON files included, resolved to the file it names where that file exists. */
export function importEdges(roots: string[]): ImportEdge[] {
  const files = roots.flatMap((root) => sources(root));
  return files.flatMap((from) => {
    const text = readFileSync(from, 'utf8');
    return importsOf(from, text).map((target) => ({ from, to: fileOf(target) }));
  });
}

/** The file an import names: `x.js` is `x.ts` or `x.tsx`, a folder is its index; a name that is no file stays as it is. */
function fileOf(target: string): string {
  const candidates = [`${target}.ts`, `${target}.tsx`, join(target, 'index.ts'), target];
  const found = candidates.find((path) => existsSync(path) && statSync(path).isFile());
  return found ?? target;
}

/** A rule on imports: which imports it governs and whether one of them is allowed. */
export interface ImportRule {
  /** The rule in words, shown with each import that breaks it. */
  name: string;
  /** Whether the rule speaks of this import (paths relative to the repository root). */
  governs: (from: string, to: string) => boolean;
  allows: (from: string, to: string) => boolean;
}

/** The imports that break a rule, as `rule: from -> to` lines, paths relative to `base`. */
export function ruleBreaks(edges: ImportEdge[], rules: ImportRule[], base: string): string[] {
  const breaks: string[] = [];
  for (const edge of edges) {
    const from = relative(base, edge.from);
    const to = relative(base, edge.to);
    for (const rule of rules) {
      if (rule.governs(from, to) && !rule.allows(from, to))
        breaks.push(`${rule.name}: ${from} -> ${to}`);
    }
  }
  return breaks;
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
