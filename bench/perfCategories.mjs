// `perf script -i DIR/w64.perf.data | node bench/perfCategories.mjs` (after `BENCH_PERF=DIR
// npm run bench:scale`): where a process's CPU went, from a `perf record -g` of it, by kind of
// work and by JavaScript function. V8's own sampler (--cpu-prof) takes its samples by the wall
// clock, so on a busy machine a thread that waits in a system call or for a core counts as
// busy where it waits; perf samples only the CPU the process used. The bench starts the
// controller with --perf-prof and injects its JIT dump into the recording (`perf inject
// --jit`), so JavaScript frames are named by the code that ran then, even after V8 moved or
// reused that code's memory (a plain --perf-basic-prof map names such frames wrongly).
//
// Kinds: each sample counts once, for the first kind below that any of its 25 innermost frames
// matches ("other JavaScript" is the rest). Functions: the share of samples with the function
// anywhere on the stack (inclusive), top BENCH_PERF_TOP (30).
import { createInterface } from 'node:readline';

const KINDS = [
  ['garbage collection', /Scaveng|MarkCompact|Heap::|GCTracer|Sweeper|ConcurrentMarking|MinorGC|IncrementalMarking/],
  ['JSON.parse', /JsonParser/],
  ['JSON.stringify', /JsonStringif/],
  ['sha256', /sha256|SHA256/],
  ['socket and file writes (kernel)', /ksys_write|__x64_sys_write|sys_pwrite|tcp_sendmsg/],
  ['socket reads (kernel)', /ksys_read|sys_recvfrom|tcp_recvmsg/],
  ['waiting and scheduling (kernel)', /epoll|schedule/],
  ['page faults', /exc_page_fault/],
  ['open, stat, close (kernel)', /do_sys_open|statx|sys_close|__x64_sys_openat|newfstatat/],
  ['regular expressions', /RegExp/],
  ['string building and encoding', /StringAdd|NewRawOneByteString|String::|StringIndexOf|SubString|utf8|Utf8|latin1/],
  ['Redis client and queue adapter', /RedisStreamsQueue/],
  ['diffs (the diff library)', /structuredPatch|diffLines|tokenize|execEditLength|extractCommon|buildValues/],
  ['program features (structure)', /javascriptStructure|javascriptTokens|scanLine|structureOf/],
  ['zod', /_zod|zod/],
];
const TOP = Number(process.env.BENCH_PERF_TOP ?? 30);

const kinds = new Map();
const functions = new Map();
let samples = 0;
let frames = [];
const close = () => {
  if (frames.length === 0) return;
  samples++;
  const kind = KINDS.find(([, pattern]) => frames.slice(0, 25).some((frame) => pattern.test(frame)))?.[0] ?? 'other JavaScript';
  kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  // `JS:*'name file:///…/chunk.mjs:12:3+0x1f (/…/jitted-1-2.so)` -> `name chunk.mjs:12:3`
  const named = frames.filter((frame) => frame.startsWith('JS:')).map((frame) => frame.replace(/^JS:[*+^~]?'?/, '').replace(/\+0x[0-9a-f]+ \(.*\)$/, '').replace(/file:\/\/\/\S*\//, ''));
  for (const name of new Set(named)) functions.set(name, (functions.get(name) ?? 0) + 1);
  frames = [];
};
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') close();
  else if (line[0] === ' ' || line[0] === '\t') frames.push(line.trim().split(' ').slice(1).join(' '));
}
close();
const share = (count) => `${((100 * count) / samples).toFixed(1).padStart(5)}%`;
console.log(`${samples} samples\n\nby kind of work:`);
for (const [kind, count] of [...kinds].sort((a, b) => b[1] - a[1])) console.log(`${share(count)}  ${kind}`);
console.log(`\nJavaScript functions (inclusive), top ${TOP}:`);
for (const [name, count] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${share(count)}  ${name}`);
