/**
 * What init says when the user's code fails its own evaluation: the hint names what is
 * missing where the tests run, and what to do.
 */
import * as assert from 'node:assert/strict';
import { boundaryHint, firstErrorHint, missingHint } from '../../daemon/cli/commands/init';

describe('init: hints for a seed that fails its own evaluation', () => {
  it('a module missing where the tests run, Python or Node', () => {
    assert.match(missingHint("ModuleNotFoundError: No module named 'pytest'"), /the Python module pytest is missing where the tests run/);
    assert.match(missingHint("Error: Cannot find module 'mocha'"), /mocha is missing where the tests run: .*npm install/);
    const built = missingHint("Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/tmp/x/project/dist/words.js' imported from /tmp/x/project/test/a.js");
    assert.match(built, /the file \/tmp\/x\/project\/dist\/words\.js is missing where the tests run: if the test command builds/);
    assert.doesNotMatch(built, /npm install/);
  });

  it('a download the test command attempts without network (npx -y pnpm): names it and what to run instead', () => {
    const npm = 'npm error code EAI_AGAIN\nnpm error request to https://registry.npmjs.org/pnpm failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org';
    assert.match(missingHint(npm), /downloads something \(https:\/\/registry\.npmjs\.org\/pnpm\) where the tests run, which has no network/);
    assert.match(missingHint('getaddrinfo ENOTFOUND files.pythonhosted.org'), /files\.pythonhosted\.org/);
    assert.equal(missingHint('AssertionError: 1 !== 2'), '');
  });

  it('tests that fail only behind the boundary: said when some pass, not when none does', () => {
    assert.match(boundaryHint("the project's tests failed (tests passed 777/784)"), /fail only with the function in a process of its own/);
    assert.equal(boundaryHint("the project's tests failed (tests passed 0/5)"), '');
  });

  it('otherwise the first error the tests name, and a build step that may have cut the stand-in', () => {
    const built = "the project's tests failed (tests passed 0/1): the test command (exit status 1)\nnpm ran: test, build\nSyntaxError: Cannot use import statement outside a module\n    at wrapSafe (node:internal/modules/cjs/loader:1861:18)";
    assert.match(firstErrorHint(built), /^; the tests' output says: SyntaxError: Cannot use import statement outside a module \(the test command builds the project first: .*stand-in/);
    assert.equal(firstErrorHint(built.replace(', build', '')), "; the tests' output says: SyntaxError: Cannot use import statement outside a module");
    assert.equal(firstErrorHint('evaluator error: the reference threw on every input'), '');
  });
});
