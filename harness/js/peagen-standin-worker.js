'use strict';
/*
 * The worker thread of peagen-standin.js: it owns the candidate's process (peagen-harness's
 * Candidate, loaded with every export) and answers one request at a time on the port, then
 * raises the shared flag the judge's thread waits on. Trusted code: no candidate code runs here.
 */
const { workerData } = require('worker_threads');
const fs = require('fs');
const { Candidate, projectModules } = require('./peagen-harness.js');

const { flag, port, config } = workerData;
let candidate = null;

function answer(message) {
  port.postMessage(message);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

async function handle(message) {
  if (message.op === 'load') {
    candidate = await Candidate.start(config.candidate, {
      entry: null,
      allow: config.allow || [],
      callTimeoutMs: config.callTimeoutMs,
      loadTimeoutMs: config.loadTimeoutMs,
      detached: false,
      ...(config.packages ? { packages: config.packages } : {}),
      // The project's modules the trusted original imports by relative path, resolved where the program lives.
      ...(config.original && config.program ? { modules: projectModules(fs.readFileSync(config.original, 'utf8'), config.program) } : {}),
      label: 'the candidate',
    });
    const { reply } = await candidate.request({ op: 'describe' }, config.callTimeoutMs, 'listing its exports');
    if (!reply.ok) throw new Error(`the candidate's exports cannot be read: ${reply.error}`);
    return reply;
  }
  if (candidate === null) throw new Error('the candidate is not loaded');
  if (message.op === 'answer') {
    // What a judge's function the candidate called back answered; the reply is the call's next step.
    const { reply } = await candidate.request({ op: 'answer', ...message.answer }, config.callTimeoutMs, 'calling a function of the tests back');
    return reply;
  }
  const { reply } = await candidate.request({ op: 'invoke', name: message.name, args: message.args }, config.callTimeoutMs, `calling ${message.name || 'the function'}()`);
  return reply;
}

port.on('message', (message) => {
  handle(message).then(
    (reply) => answer({ ok: true, reply }),
    (err) => answer({ ok: false, failure: String(err && err.message ? err.message : err) }),
  );
});
