#!/usr/bin/env node
// Lists the top self-time functions of V8 CPU profiles (`node --cpu-prof`), e.g. the daemon's
// under `BENCH_DAEMON_PROFILE=DIR npm run bench:queue`:
//   node bench/cpuProfileTop.mjs DIR/*.cpuprofile [--top N]
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const topIndex = args.indexOf('--top');
const top = topIndex >= 0 ? Number(args.splice(topIndex, 2)[1]) : 25;
for (const file of args) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  const deltas = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i] ?? 0));
  }
  const byFunction = new Map();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id);
    if (callFrame.functionName === '(idle)') continue;
    busy += us;
    const where = callFrame.url ? `${callFrame.url.replace(/^.*\/(node_modules\/|dist\/)/, '$1')}:${callFrame.lineNumber + 1}` : '';
    const key = `${callFrame.functionName || '(anonymous)'} ${where}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  console.log(`${file}: ${(busy / 1000).toFixed(0)} ms busy (idle excluded); top ${top} by self time:`);
  for (const [key, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${((100 * us) / busy).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`);
  }
}
