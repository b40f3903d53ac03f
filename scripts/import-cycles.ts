// Part of `npm run check`: no import runs in a circle under src/ (docs/design.md "Code map").
// Two rules. Folders: no folder imports a folder that imports it back; dependencies between
// folders go one way, and where two features meet, the composition roots (src/app.ts,
// src/job-runner.ts) pass one to the other. Files: no file reaches itself through its imports,
// inside a folder or across folders (type-only imports count: they tie the files' meaning as
// much as their code). Tests (`*.test.ts`) may reach any file and are not counted.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const SRC = resolve(import.meta.dirname, '..', 'src');

/** Every relative module a file names: static imports and re-exports, side-effect and dynamic imports. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Each source file under src/ with the files under src/ it imports, as paths relative to src/. */
export function fileImports(): Map<string, string[]> {
  const imports = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const targets = [...readFileSync(file, 'utf8').matchAll(SPECIFIER)]
      .map(([, specifier]) => relative(SRC, resolve(dirname(file), specifier!)))
      .filter((target) => !target.startsWith('..'));
    imports.set(relative(SRC, file), [...new Set(targets)]);
  }
  return imports;
}

/** The top folder under src/ a path (relative to src/) is in; undefined for a file directly in src/. */
function folderOf(path: string): string | undefined {
  const parts = path.split(sep);
  return parts.length > 1 ? parts[0] : undefined;
}

/** `from -> to` for each pair of folders, with one file that makes the edge. */
export function folderEdges(imports = fileImports()): Map<string, string> {
  const edges = new Map<string, string>();
  for (const [file, targets] of imports) {
    const from = folderOf(file);
    if (!from) continue;
    for (const target of targets) {
      const to = folderOf(target);
      const edge = `${from} -> ${to}`;
      if (to && to !== from && !edges.has(edge)) edges.set(edge, `${file} imports ${target}`);
    }
  }
  return edges;
}

/** Each pair of folders that import each other, with a file on each side. */
export function folderCycles(edges = folderEdges()): string[] {
  const cycles: string[] = [];
  for (const [edge, where] of edges) {
    const [from, to] = edge.split(' -> ') as [string, string];
    const back = edges.get(`${to} -> ${from}`);
    if (back && from < to) cycles.push(`src/${from} <-> src/${to}: ${where}; ${back}`);
  }
  return cycles;
}

/**
 * Each circle of files, as the files of one strongly connected component of the import graph
 * (Tarjan's algorithm), in path order.
 */
export function fileCycles(imports = fileImports()): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of imports.get(file) ?? []) {
      if (!imports.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) circles.push(component.sort());
  };
  for (const file of [...imports.keys()].sort()) if (!index.has(file)) visit(file);
  return circles;
}

if (import.meta.main) {
  const imports = fileImports();
  const folders = folderCycles(folderEdges(imports));
  const files = fileCycles(imports);
  for (const cycle of folders) process.stderr.write(`folders import each other: ${cycle}\n`);
  for (const circle of files) process.stderr.write(`files import each other: src/${circle.join(', src/')}\n`);
  process.exit(folders.length + files.length > 0 ? 1 : 0);
}
