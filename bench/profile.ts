// `node scripts/node24.mjs bench/profile.ts <file.cpuprofile> [requests] [top]`: what a CPU
// profile (node --cpu-prof, or BENCH_PROFILE=1 of the benchmarks) spent its busy time on, by
// package and by function, idle time left out. With `requests`, the number of requests the
// process answered while profiled, each line also gives milliseconds a request, so two servers'
// profiles under the same load compare line by line (BENCHMARKS.md, "Where the limits are").
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface Profile {
  nodes: { id: number; callFrame: CallFrame }[];
  samples: number[];
  timeDeltas: number[];
}

const [file, requestsArg, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile.ts <file.cpuprofile> [requests] [top]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const requests = Number(requestsArg ?? 0);
const top = Number(topArg ?? 30);

/** Where a function lives: its package, Node's module, a folder of ours, or V8's own name. */
function placeOf({ url, functionName }: CallFrame): string {
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (module) return module[1]!;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const ours = /\/(src|bench)\/(.*)$/.exec(url);
  if (ours) return ours[1] === 'src' ? `src/${ours[2]!.split('/')[0]}` : 'bench';
  return functionName || '(native)';
}

const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
const selfMicros = new Map<number, number>();
profile.samples.forEach((id, i) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

let busy = 0;
const byPlace = new Map<string, number>();
const byFunction = new Map<string, number>();
const add = (map: Map<string, number>, key: string, micros: number) => map.set(key, (map.get(key) ?? 0) + micros);
for (const [id, micros] of selfMicros) {
  const frame = frames.get(id)!;
  if (frame.functionName === '(idle)') continue;
  busy += micros;
  add(byPlace, placeOf(frame), micros);
  const where = frame.url.replace(/.*node_modules\//, '').replace(/.*\/(src|bench)\//, '$1/');
  add(byFunction, `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`, micros);
}

const line = (micros: number, label: string) => {
  const share = `${((100 * micros) / busy).toFixed(1).padStart(5)} %`;
  const perRequest = requests > 0 ? `  ${(micros / 1000 / requests).toFixed(3)} ms/request` : '';
  return `${share}${perRequest}  ${label}`;
};
console.log(
  `busy ${(busy / 1e6).toFixed(1)} s${requests > 0 ? `, ${(busy / 1000 / requests).toFixed(3)} ms a request` : ''}`,
);
console.log('\nby package or module');
for (const [place, micros] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(line(micros, place));
console.log('\nby function (self time)');
for (const [name, micros] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(line(micros, name));
