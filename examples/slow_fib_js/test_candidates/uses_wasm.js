'use strict';
// Probe (code generation from bytes): compiles a WebAssembly module at load time. Wasm code
// generation is disabled in the candidate's realm; the harness must reject this at load.
const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes));
void instance;
function fib(n) {
  let a = 0n;
  let b = 1n;
  for (let i = 0; i < n; i += 1) [a, b] = [b, a + b];
  return a;
}
module.exports = { fib };
