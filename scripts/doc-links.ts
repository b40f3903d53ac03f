// Part of `npm run check`: every place the code names a section of the docs names one that
// exists. A comment or string in src/, test/, bench/ or scripts/ that says `docs/<page>.md`
// needs the page; followed by a quoted title (`docs/api.md "Collections"`) it needs a heading
// with that title (or starting with it, before a colon or a space), and followed by a number
// (`docs/conventions.md 5`) a rule or heading numbered so.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const CITATION = /docs\/([a-z0-9-]+\.md)(?:\s*(?:"([^"\n]+)"|“([^”\n]+)”|(\d+)\b))?/g;

function files(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : files(path);
    return /\.(ts|mts|mjs|js|css)$/.test(entry.name) ? [path] : [];
  });
}

const headings = new Map<string, string[]>();
function headingsOf(page: string): string[] | undefined {
  if (!headings.has(page)) {
    const path = join(ROOT, 'docs', page);
    if (!existsSync(path)) return undefined;
    const titles = [...readFileSync(path, 'utf8').matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map(([, title]) => title!);
    headings.set(page, titles);
  }
  return headings.get(page);
}

/** The numbers of a page's numbered rules (`5. **Typed errors**`) and numbered headings (`## 2. The flow`). */
function numbered(page: string): Set<string> {
  const text = readFileSync(join(ROOT, 'docs', page), 'utf8');
  return new Set([...text.matchAll(/^(?:#{1,6}\s+)?(\d+)\.\s/gm)].map(([, number]) => number!));
}

/** Each citation of a page or section that does not exist, with where it stands. */
export function brokenDocLinks(): string[] {
  const broken: string[] = [];
  for (const file of ['src', 'test', 'bench', 'scripts'].flatMap((folder) => files(join(ROOT, folder)))) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const [text, page, quoted, curly, number] of line.matchAll(CITATION)) {
        const where = `${relative(ROOT, file)}:${i + 1}`;
        const titles = headingsOf(page!);
        const title = quoted ?? curly;
        if (!titles) broken.push(`${where}: ${text} (no such page)`);
        else if (
          title &&
          !titles.some(
            (heading) => heading === title || heading.startsWith(`${title}:`) || heading.startsWith(`${title} `),
          )
        ) {
          broken.push(`${where}: ${text} (no such section)`);
        } else if (number && !numbered(page!).has(number)) {
          broken.push(`${where}: ${text} (no section ${number})`);
        }
      }
    });
  }
  return broken;
}

if (import.meta.main) {
  const broken = brokenDocLinks();
  for (const link of broken) process.stderr.write(`docs link to nothing: ${link}\n`);
  process.exit(broken.length > 0 ? 1 : 0);
}
