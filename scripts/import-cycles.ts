/**
 * Fails when modules import each other in a cycle, `import type` and
 * `export … from` included (a type-only cycle still ties two modules' shapes
 * together, and becomes a load-order bug the day one import loses its
 * `type`). Dynamic `import()` is left out: it is how a cycle is broken on
 * purpose. Part of `npm run check`; TypeScript's own import scanner, so no
 * extra dependency.
 *
 *   node scripts/import-cycles.ts [dir …]   (default: src web/src scripts test)
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const ROOT = resolve(import.meta.dirname, "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts"))
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => !f.includes("/node_modules/"));
}

/** The repository files `file` imports statically (relative specifiers; this code base writes the extension). */
function importsOf(file: string, known: Set<string>): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, false);
  return importedFiles
    .map((i) => i.fileName)
    .filter((s) => s.startsWith("."))
    .map((s) => resolve(dirname(file), s))
    .filter((f) => known.has(f));
}

/** Strongly connected components of more than one module, or a module importing itself (Tarjan). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) !== idx.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || graph.get(v)?.includes(v)) found.push(scc.sort());
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

/** One shortest import path from the first module of `scc` back to itself, to name the cycle. */
export function cyclePath(graph: Map<string, string[]>, scc: string[]): string[] {
  const inScc = new Set(scc);
  const start = scc[0] as string;
  const from = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i] as string;
    for (const w of graph.get(v) ?? []) {
      if (!inScc.has(w) || from.has(w)) continue;
      from.set(w, v);
      if (w === start) {
        const path = [start]; // built backwards: the hops that led to v, then back to start
        for (let u = v; u !== start; u = from.get(u) as string) path.unshift(u);
        return [start, ...path];
      }
      queue.push(w);
    }
  }
  return scc;
}

if (import.meta.main) {
  const dirs = process.argv.length > 2 ? process.argv.slice(2) : ["src", "web/src", "scripts", "test"];
  const files = dirs.flatMap((d) => sourceFiles(resolve(ROOT, d)));
  const known = new Set(files);
  const graph = new Map(files.map((f) => [f, importsOf(f, known)]));
  const found = cycles(graph);
  for (const scc of found) {
    const path = cyclePath(graph, scc).map((f) => relative(ROOT, f));
    process.stderr.write(`import cycle (${scc.length} modules): ${path.join(" -> ")}\n`);
  }
  if (found.length > 0) process.exit(1);
  process.stdout.write(`import-cycles: none among ${files.length} modules\n`);
}
