// Part of `npm run check`: no folder under src/ imports a folder that imports it back
// (docs/design.md "Code map"). Dependencies between folders go one way; where two features
// meet, the composition roots (src/app.ts, src/job-runner.ts) pass one to the other. Tests
// (`*.test.ts`) may reach any folder and are not counted.
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

/** The top folder under src/ a path is in; undefined for a file directly in src/. */
function folderOf(path: string): string | undefined {
  const parts = relative(SRC, path).split(sep);
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
}

/** `from -> to` for each pair of folders, with one file that makes the edge. */
export function folderEdges(): Map<string, string> {
  const edges = new Map<string, string>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    if (!from) continue;
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const to = folderOf(resolve(dirname(file), specifier!));
      const edge = `${from} -> ${to}`;
      if (to && to !== from && !edges.has(edge)) edges.set(edge, `${relative(SRC, file)} imports ${specifier}`);
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

if (import.meta.main) {
  const cycles = folderCycles();
  for (const cycle of cycles) process.stderr.write(`folders import each other: ${cycle}\n`);
  process.exit(cycles.length > 0 ? 1 : 0);
}
