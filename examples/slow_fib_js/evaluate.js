#!/usr/bin/env node
'use strict';
/*
 * Trusted evaluator for the Peagen `slow_fib_js` benchmark.
 *
 * usage: node evaluate.js <candidate.js> [--seed N] [--quick] [--call-timeout S] [--repeats R]
 *
 * Prints exactly one JSON object on the LAST line of stdout:
 *   {"correct": bool, "objective": speedup, "direction": "maximize", "metrics": {...}, "error": "..."}
 * Exit status 0 whenever a verdict about the candidate was reached (also when it is wrong);
 * exit status 2 only when the evaluator itself could not work (e.g. the reference failed).
 *
 * How it works
 *  1. Correctness: the candidate runs in a child process (_runner.js) on fixed n plus held-out
 *     n drawn from --seed, smallest first, stopping at the first failure. Each value must be
 *     a BigInt equal to the true Fibonacci number (computed here by a trusted loop). Every
 *     call has a timeout; a crash, hang, or early exit of the child is a failed candidate.
 *  2. Timing: for each repeat a FRESH child for the pristine reference (reference_fib.js, next
 *     to this file) and a fresh child for the candidate (alternating which goes first) each do
 *     a few untimed warm-up calls on small n, then exactly one timed call fib(N). One timed
 *     call per process means a cache kept across calls cannot help. The timed value is
 *     verified too. objective = median over repeats of reference_ns / candidate_ns (paired
 *     ratio; median(ref)/median(cand) is reported as speedup_of_medians), wall clock
 *     (process.hrtime.bigint, monotonic). Wall rather than CPU time because the fast
 *     candidates take microseconds and process.cpuUsage() only counts whole microseconds.
 */
const childProcess = require('child_process');
const crypto = require('crypto');
const path = require('path');
const fs = require('fs');

const HERE = __dirname;
const RUNNER = path.join(HERE, '_runner.js');
const REFERENCE = path.join(HERE, 'reference_fib.js');
const DEFAULT_SEED = 20250601;

// ------------------------------------------------------------------ helpers
function trueFib(n) {
  let a = 0n;
  let b = 1n;
  for (let i = 0; i < n; i += 1) [a, b] = [b, a + b];
  return a;
}

function mulberry32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function parseArgs(argv) {
  const args = { candidate: null, seed: DEFAULT_SEED, quick: false, callTimeout: 0, repeats: 0 };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    if (a === '--quick') args.quick = true;
    else if (a === '--seed') args.seed = Number.parseInt(argv[++i], 10);
    else if (a === '--call-timeout') args.callTimeout = Number.parseFloat(argv[++i]);
    else if (a === '--repeats') args.repeats = Number.parseInt(argv[++i], 10);
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else if (args.candidate === null) args.candidate = a;
    else throw new Error(`unexpected argument ${a}`);
  }
  if (!args.candidate) throw new Error('usage: node evaluate.js <candidate.js> [--seed N] [--quick]');
  if (!Number.isInteger(args.seed)) throw new Error('--seed needs an integer');
  return args;
}

class ChildFailure extends Error {}

/** One _runner.js process running one program on a fixed list of calls. */
class Child {
  constructor(program, calls) {
    this.nonce = crypto.randomBytes(16).toString('hex');
    this.proc = childProcess.spawn(process.execPath, [RUNNER, program], {
      stdio: ['pipe', 'ignore', 'pipe', 'pipe'],
      detached: true, // own process group, so kill() takes everything it started
    });
    this.lines = [];
    this.waiter = null;
    this.closed = false;
    this.stderrTail = '';
    this.exitInfo = null;
    let buf = '';
    this.proc.stdio[3].setEncoding('utf8');
    this.proc.stdio[3].on('data', (chunk) => {
      buf += chunk;
      let k;
      while ((k = buf.indexOf('\n')) >= 0) {
        this.lines.push(buf.slice(0, k));
        buf = buf.slice(k + 1);
      }
      this.wake();
    });
    this.proc.stdio[3].on('error', () => {});
    this.proc.stderr.setEncoding('utf8');
    this.proc.stderr.on('data', (chunk) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-4000);
    });
    this.proc.on('exit', (code, signal) => {
      this.exitInfo = signal ? `killed by signal ${signal}` : `exit status ${code}`;
    });
    this.proc.on('close', () => {
      this.closed = true;
      this.wake();
    });
    this.proc.on('error', () => {
      this.closed = true;
      this.wake();
    });
    this.proc.stdin.on('error', () => {});
    this.proc.stdin.end(JSON.stringify({ nonce: this.nonce, calls }));
  }

  wake() {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w();
    }
  }

  /** Next result line carrying our nonce (lines without it are ignored), or a ChildFailure. */
  async receive(timeoutMs, what) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.lines.length) {
        const line = this.lines.shift();
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          continue;
        }
        if (msg && msg.nonce === this.nonce) return msg;
      }
      if (this.closed) {
        const tail = this.stderrTail.trim().slice(-600);
        throw new ChildFailure(
          `the program's process ended while ${what} (${this.exitInfo || 'closed'})${tail ? `: ${tail}` : ''}`,
        );
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        this.kill();
        throw new ChildFailure(`timeout: no answer within ${(timeoutMs / 1000).toFixed(1)} s while ${what}`);
      }
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  async ready(timeoutMs) {
    const msg = await this.receive(timeoutMs, 'loading the program');
    if (msg.event === 'load_error') throw new ChildFailure(`the program failed to load: ${msg.error}`);
    if (msg.event !== 'ready') throw new ChildFailure("unexpected message from the program's process");
  }

  kill() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      try {
        process.kill(-this.proc.pid, 'SIGKILL');
      } catch {
        try {
          this.proc.kill('SIGKILL');
        } catch {
          /* already gone */
        }
      }
    }
  }
}

function verdict(reply, n, label) {
  if (!reply.ok) return `${label}: threw ${reply.error}`;
  if (reply.type !== 'bigint') return `${label}: returned a value of type ${reply.type}, expected a BigInt`;
  const expected = trueFib(n).toString();
  if (reply.value !== expected) {
    const got = reply.value.length > 40 ? `${reply.value.slice(0, 40)}...` : reply.value;
    return `${label}: returned ${got}n, expected ${expected}n`;
  }
  return null;
}

// ------------------------------------------------------------------ main
async function evaluate(args) {
  const started = process.hrtime.bigint();
  const quick = args.quick;
  const callTimeoutMs = 1000 * (args.callTimeout || (quick ? 2 : 5));
  const repeats = args.repeats || (quick ? 7 : 11);
  const timedN = quick ? 22 : 27;
  const metrics = { speedup: 0, inputs_checked: 0, seed: args.seed, quick: quick ? 1 : 0 };
  const secs = () => Math.round(Number(process.hrtime.bigint() - started) / 1e6) / 1000;
  const result = (correct, objective, error, status = 0) => {
    metrics.eval_seconds = secs();
    const line = { correct, objective: correct ? objective : 0, direction: 'maximize', metrics };
    if (error) line.error = error;
    return { line, status };
  };

  const candidate = path.resolve(args.candidate);
  if (!fs.existsSync(candidate)) return result(false, 0, `cannot read the candidate: ${candidate}`);

  // correctness inputs: fixed + held-out (from the seed), smallest first
  const rng = mulberry32(args.seed * 2654435761 + 17);
  const maxN = quick ? 20 : 24;
  const ns = new Set([0, 1, 2, 3, 5, 8, 13, quick ? 18 : 20]);
  while (ns.size < (quick ? 12 : 16)) ns.add(Math.floor(rng() * (maxN + 1)));
  const checks = [...ns].sort((a, b) => a - b);

  let child = new Child(candidate, checks.map((n) => ({ n, timed: false })));
  try {
    await child.ready(callTimeoutMs + 5000);
    for (let i = 0; i < checks.length; i += 1) {
      const label = `fib(${checks[i]})`;
      const reply = await child.receive(callTimeoutMs, `computing ${label}`);
      const fault = verdict(reply, checks[i], label);
      metrics.inputs_checked += 1;
      if (fault) return result(false, 0, fault);
    }
  } catch (err) {
    if (err instanceof ChildFailure) return result(false, 0, err.message);
    throw err;
  } finally {
    child.kill();
  }
  metrics.correctness_inputs = checks.length;
  metrics.max_n = Math.max(...checks);

  // timing: one fresh process per program per repeat, one timed call each
  const warm = [5, 8, 10, 12].map((n) => ({ n, timed: false }));
  const plan = [...warm, { n: timedN, timed: true }];
  const refNs = [];
  const candNs = [];
  const runOnce = async (program, isRef) => {
    const who = isRef ? 'reference' : 'candidate';
    child = new Child(program, plan);
    try {
      await child.ready(callTimeoutMs + 5000);
      let reply;
      for (let i = 0; i < plan.length; i += 1) {
        const label = `fib(${plan[i].n})${plan[i].timed ? ' (timed)' : ' (warm-up)'}`;
        reply = await child.receive(callTimeoutMs * (isRef ? 3 : 1), `computing ${label}`);
        const fault = verdict(reply, plan[i].n, label);
        if (fault) {
          if (isRef) throw new Error(`reference gave a wrong answer: ${fault}`);
          throw new ChildFailure(fault);
        }
        if (!isRef) metrics.inputs_checked += 1;
      }
      return reply.ns;
    } catch (err) {
      if (isRef && err instanceof ChildFailure) throw new Error(`${who}: ${err.message}`);
      throw err;
    } finally {
      child.kill();
    }
  };
  try {
    for (let r = 0; r < repeats; r += 1) {
      const order = r % 2 === 0 ? [true, false] : [false, true];
      for (const isRef of order) {
        const ns1 = await runOnce(isRef ? REFERENCE : candidate, isRef);
        (isRef ? refNs : candNs).push(ns1);
      }
    }
  } catch (err) {
    if (err instanceof ChildFailure) return result(false, 0, err.message);
    return result(false, 0, `evaluator error: ${err.message}`, 2);
  }
  const refMed = median(refNs);
  const candMed = Math.max(1, median(candNs));
  // Objective: median over repeats of the paired ratio ref/cand (each pair runs back to back,
  // so load changes on a busy host cancel within a pair); on a loaded 2-core VM this is far
  // steadier than median(ref)/median(cand), which is reported as speedup_of_medians.
  const speedup = median(refNs.map((x, i) => x / Math.max(1, candNs[i])));
  Object.assign(metrics, {
    speedup: Math.round(speedup * 1e4) / 1e4,
    speedup_of_medians: Math.round((refMed / candMed) * 1e4) / 1e4,
    candidate_ms: candMed / 1e6,
    reference_ms: refMed / 1e6,
    candidate_ms_min: Math.min(...candNs) / 1e6,
    reference_ms_min: Math.min(...refNs) / 1e6,
    repeats,
    timed_n: timedN,
  });
  return result(true, speedup);
}

function emit({ line, status }) {
  process.stdout.write(`${JSON.stringify(line)}\n`, () => process.exit(status));
}

(async () => {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    emit({ line: { correct: false, objective: 0, direction: 'maximize', metrics: { speedup: 0 }, error: `evaluator error: ${err.message}` }, status: 2 });
    return;
  }
  try {
    emit(await evaluate(args));
  } catch (err) {
    emit({
      line: { correct: false, objective: 0, direction: 'maximize', metrics: { speedup: 0 }, error: `evaluator error: ${err && err.message}` },
      status: 2,
    });
  }
})();
