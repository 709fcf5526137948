/**
 * `peagen render` inputs and plan: every bad input is an error naming the file, the line and
 * the key (or the template and the expression), the plan's order is a deterministic
 * topological order, a cycle names its files, and no output path leaves the output directory.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRenderHandler } from '../../daemon/handlers/render';
import { LlmConfigSchema } from '../../daemon/evolution/llm/llmConfig';
import { offlinePlan, planRender, topologicalOrder } from '../../daemon/render/plan';
import { loadProjects } from '../../daemon/render/projects';
import { fileText } from '../../daemon/render/renderFile';
import { payloadOf, previewPlan, worstCaseSpend } from '../../daemon/render/runRender';
import { writeTree } from '../../daemon/render/writeTree';
import { RenderInputError } from '../../daemon/render/yamlInput';
import { REPO } from '../fixtures/paths';

const MANIFEST = `FILES:
  - RENDERED_FILE_NAME: README.md
    TEMPLATE: readme.njk
    PROCESS_TYPE: COPY
  - RENDERED_FILE_NAME: "src/{{ MODULE.NAME }}.py"
    TEMPLATE: module.njk
    PROCESS_TYPE: COPY
    SCOPE: module
`;
const PROJECTS = `PROJECTS:
  - NAME: demo
    TEMPLATE_SET: lib
    PACKAGES:
      - NAME: pkg
        MODULES:
          - NAME: util
            EXTRAS: {DESCRIPTION: helpers}
            DEPENDENCIES: [pkg.models]
          - NAME: models
            EXTRAS: {DESCRIPTION: data}
`;

describe('peagen render: inputs and plan', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peagen-render-unit-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A payload and a template set `lib` with the given files; returns the payload's path. */
  function write(files: { projects?: string; manifest?: string; templates?: Record<string, string> }): string {
    const set = path.join(dir, 'template_sets', 'lib');
    fs.mkdirSync(set, { recursive: true });
    fs.writeFileSync(path.join(set, 'manifest.yaml'), files.manifest ?? MANIFEST);
    for (const [name, text] of Object.entries(files.templates ?? { 'readme.njk': '# {{ PROJECT.NAME }}\n', 'module.njk': '"""{{ DESCRIPTION }}"""\n' })) {
      fs.writeFileSync(path.join(set, name), text);
    }
    fs.writeFileSync(path.join(dir, 'projects.yaml'), files.projects ?? PROJECTS);
    return path.join(dir, 'projects.yaml');
  }

  function planError(file: string): string {
    try {
      previewPlan(planRender(loadProjects(file)));
    } catch (error) {
      assert.ok(error instanceof RenderInputError, `a RenderInputError, got ${String(error)}`);
      return error.message.split(dir + path.sep).join('');
    }
    assert.fail('the plan was accepted');
  }

  it('plans each record per scope, module dependencies first, ties by path', () => {
    const plan = planRender(loadProjects(write({})));
    assert.deepEqual(
      plan.files.map((file) => [file.path, file.dependsOn]),
      [
        ['demo/README.md', []],
        ['demo/src/models.py', []],
        ['demo/src/util.py', ['demo/src/models.py']],
      ],
    );
    assert.deepEqual([...previewPlan(plan).copies.values()], ['# demo\n', '"""data"""\n', '"""helpers"""\n']);
  });

  it('OFFLINE_TEMPLATE: a GENERATE record rendered as a COPY of it with no LLM; refused on COPY records and when the template is missing', () => {
    const generate = MANIFEST.replace('TEMPLATE: module.njk\n    PROCESS_TYPE: COPY', 'TEMPLATE: module.njk\n    PROCESS_TYPE: GENERATE');
    const templates = { 'readme.njk': '# {{ PROJECT.NAME }}\n', 'module.njk': 'write {{ DESCRIPTION }}\n', 'stub.njk': 'pass  # {{ DESCRIPTION }}\n' };
    assert.equal(offlinePlan(planRender(loadProjects(write({ manifest: generate, templates })))), undefined, 'no stand-in: no offline plan');
    const withStandIn = generate.replace('PROCESS_TYPE: GENERATE', 'PROCESS_TYPE: GENERATE\n    OFFLINE_TEMPLATE: stub.njk');
    const offline = offlinePlan(planRender(loadProjects(write({ manifest: withStandIn, templates }))))!;
    assert.deepEqual(offline.files.map((file) => [file.path, file.processType, file.maxTokens]), [
      ['demo/README.md', 'COPY', undefined],
      ['demo/src/models.py', 'COPY', undefined],
      ['demo/src/util.py', 'COPY', undefined],
    ]);
    assert.deepEqual([...previewPlan(offline).copies.values()], ['# demo\n', 'pass  # data\n', 'pass  # helpers\n']);
    assert.equal(
      planError(write({ manifest: MANIFEST.replace('PROCESS_TYPE: COPY\n    SCOPE', 'PROCESS_TYPE: COPY\n    OFFLINE_TEMPLATE: stub.njk\n    SCOPE'), templates })),
      'template_sets/lib/manifest.yaml:8: FILES[1].OFFLINE_TEMPLATE: OFFLINE_TEMPLATE applies to GENERATE records only',
    );
    assert.match(planError(write({ manifest: withStandIn.replace('stub.njk', 'nope.njk'), templates })), /FILES\[1\]\.OFFLINE_TEMPLATE: no template "nope\.njk" in /);
  });

  it('a YAML syntax error names the file and line', () => {
    const file = write({ projects: 'PROJECTS:\n  - NAME: demo\n    TEMPLATE_SET: [lib\n' });
    assert.equal(planError(file), 'projects.yaml:4: YAML error: Flow sequence in block collection must be sufficiently indented and end with a ]');
  });

  it('a value of the wrong type names the file, line and key path', () => {
    const file = write({ projects: PROJECTS.replace('NAME: models', 'NAME: 42') });
    assert.equal(planError(file), 'projects.yaml:10: PROJECTS[0].PACKAGES[0].MODULES[1].NAME: Invalid input: expected string, received number');
  });

  it('a misspelt key names the file, line and key', () => {
    const file = write({ projects: PROJECTS.replace('MODULES:', 'MODULS:') });
    assert.equal(planError(file), 'projects.yaml:6: PROJECTS[0].PACKAGES[0].MODULS: unknown key "MODULS" (keys are upper case; see docs/render.md)');
  });

  it('an unknown template set names the key and the sets there are', () => {
    const file = write({ projects: PROJECTS.replace('TEMPLATE_SET: lib', 'TEMPLATE_SET: nope') });
    assert.equal(planError(file), `projects.yaml:3: PROJECTS[0].TEMPLATE_SET: unknown template set "nope" (template_sets has: lib; TEMPLATE_SETS names that directory)`);
  });

  it('a missing variable names the record, the template, its line and the expression', () => {
    const file = write({ templates: { 'readme.njk': '# {{ PROJECT.NAME }}\n', 'module.njk': '# {{ MODULE.NAME }}\n"""{{ DESCRIPTON }}"""\n' } });
    assert.equal(
      planError(file),
      'template_sets/lib/manifest.yaml FILES[1] for module pkg.models of project demo: template module.njk line 2: {{ DESCRIPTON }} is undefined: give it in the payload\'s EXTRAS or the manifest\'s VARIABLES',
    );
  });

  it('a missing variable inside an included template names the included one', () => {
    const file = write({ templates: { 'readme.njk': '{% include "part.njk" %}', 'part.njk': 'x\n{{ LICENCE }}\n', 'module.njk': '' } });
    assert.match(planError(file), /FILES\[0\] for project demo: template part\.njk line 2: \{\{ LICENCE \}\} is undefined/);
  });

  it('templates cannot include files outside their set', () => {
    fs.writeFileSync(path.join(dir, 'secret.txt'), 'secret');
    const file = write({ templates: { 'readme.njk': '{% include "../../secret.txt" %}', 'module.njk': '' } });
    assert.match(planError(file), /^template_sets\/lib\/manifest\.yaml FILES\[0\] for project demo: template readme\.njk: template not found: \S*secret\.txt$/);
  });

  it('a file name leaving the output directory names the manifest key', () => {
    const file = write({ manifest: MANIFEST.replace('"src/{{ MODULE.NAME }}.py"', '"../../{{ MODULE.NAME }}.py"') });
    assert.equal(
      planError(file),
      'template_sets/lib/manifest.yaml:5: FILES[1].RENDERED_FILE_NAME: "../../util.py" (for module pkg.util of project demo) leaves the output directory; file names are relative paths inside the project ROOT',
    );
  });

  it('an absolute ROOT or one leaving the output directory names the payload key', () => {
    for (const root of ['/etc', '../elsewhere', 'a/../../b']) {
      const file = write({ projects: PROJECTS.replace('TEMPLATE_SET: lib', `TEMPLATE_SET: lib\n    ROOT: ${root}`) });
      assert.equal(planError(file), `projects.yaml:4: PROJECTS[0].ROOT: "${root}" leaves the output directory; ROOT is a relative path inside it`);
    }
  });

  it('a dependency cycle is an error naming every file on it and where each edge is declared', () => {
    const file = write({ projects: PROJECTS.replace('EXTRAS: {DESCRIPTION: data}', 'EXTRAS: {DESCRIPTION: data}\n            DEPENDENCIES: [pkg.util]') });
    assert.equal(
      planError(file),
      'dependency cycle: demo/src/models.py -> demo/src/util.py -> demo/src/models.py (declared at demo/src/models.py -> demo/src/util.py: projects.yaml PROJECTS[0].PACKAGES[0].MODULES[1].DEPENDENCIES[0]; demo/src/util.py -> demo/src/models.py: projects.yaml PROJECTS[0].PACKAGES[0].MODULES[0].DEPENDENCIES[0]); remove one of these dependencies',
    );
  });

  it('topological order: dependencies first, ties broken by path, whatever the input order', () => {
    const items = [
      { path: 'd', deps: ['b', 'c'] },
      { path: 'c', deps: ['a'] },
      { path: 'b', deps: ['a'] },
      { path: 'a', deps: [] },
      { path: 'e', deps: [] },
    ];
    const order = (list: typeof items) => topologicalOrder(list, (item) => item.deps, () => '').map((item) => item.path).join('');
    assert.equal(order(items), 'abcde');
    assert.equal(order([...items].reverse()), 'abcde');
    assert.throws(() => order([{ path: 'x', deps: ['y'] }, { path: 'y', deps: ['z'] }, { path: 'z', deps: ['y'] }]), /^RenderInputError: dependency cycle: y -> z -> y /);
  });

  it('an unknown file or module dependency names its key', () => {
    let file = write({ manifest: MANIFEST.replace('SCOPE: module', 'SCOPE: module\n    DEPENDENCIES: [setup.py]') });
    assert.equal(planError(file), 'template_sets/lib/manifest.yaml:9: FILES[1].DEPENDENCIES[0]: "setup.py" (for module pkg.util of project demo) is no file of the project: demo/setup.py is not rendered');
    file = write({ projects: PROJECTS.replace('[pkg.models]', '[pkg.modles]') });
    assert.equal(planError(file), 'projects.yaml:9: PROJECTS[0].PACKAGES[0].MODULES[0].DEPENDENCIES[0]: no module "pkg.modles" in project "demo"');
  });

  it('two records writing the same file is an error naming both', () => {
    const file = write({ manifest: MANIFEST.replace('"src/{{ MODULE.NAME }}.py"', 'README.md') });
    assert.match(planError(file), /^demo\/README\.md would be written twice: by template_sets\/lib\/manifest\.yaml FILES\[0\] for project demo and by template_sets\/lib\/manifest\.yaml FILES\[1\] for module pkg\.util of project demo/);
  });

  it('a reserved variable name in EXTRAS names its key', () => {
    const file = write({ projects: PROJECTS.replace('{DESCRIPTION: helpers}', '{MODULE: x}') });
    assert.match(planError(file), /^projects\.yaml:8: PROJECTS\[0\]\.PACKAGES\[0\]\.MODULES\[0\]\.EXTRAS\.MODULE: "MODULE" is reserved/);
  });

  it('the bundled example plans 7 files in dependency order; its worst case is Σ (input + max_tokens)', () => {
    const plan = planRender(loadProjects(path.join(REPO, 'examples', 'render', 'projects.yaml')));
    assert.deepEqual(
      plan.files.map((file) => `${file.path} ${file.processType}`),
      [
        'shapes/README.md COPY',
        'shapes/pyproject.toml COPY',
        'shapes/src/shapes/__init__.py COPY',
        'shapes/src/shapes/units.py GENERATE',
        'shapes/src/shapes/circle.py GENERATE',
        'shapes/tests/test_units.py COPY',
        'shapes/tests/test_circle.py COPY',
      ],
    );
    const preview = previewPlan(plan);
    const worst = worstCaseSpend(plan, preview, { inputPerMTok: 1, outputPerMTok: 2 });
    assert.equal(worst.calls, 2);
    // circle.py's prompt may hold units.py, itself at most 600 tokens: counted in its input.
    const prompt = (file: string) => Math.ceil((plan.templateSets[0]!.manifest.SYSTEM_PROMPT! + preview.prompts.get(file)!).length / 4);
    const expected = prompt('shapes/src/shapes/units.py') + 600 + (prompt('shapes/src/shapes/circle.py') + 600 + 600);
    assert.equal(worst.tokens, expected);
  });

  it('an LLM answer becomes the file: one enclosing fence removed, one final newline', () => {
    assert.equal(fileText('```python\nx = 1\n```'), 'x = 1\n');
    assert.equal(fileText('x = 1\n\n\n'), 'x = 1\n');
    assert.equal(fileText('a ```b``` c'), 'a ```b``` c\n');
  });

  it('writeTree: refuses before writing anything when a directory is where a file goes', () => {
    const out = path.join(dir, 'out');
    fs.mkdirSync(path.join(out, 'b'), { recursive: true });
    assert.throws(() => writeTree(out, new Map([['a.txt', 'a'], ['b', 'b']])), /is a directory where b needs a file; nothing was written/);
    assert.deepEqual(fs.readdirSync(out), ['b']);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['out']);
    writeTree(out, new Map([['a.txt', 'a'], ['c/d.txt', 'd']]));
    assert.deepEqual(fs.readdirSync(out).sort(), ['a.txt', 'b', 'c']);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['out'], 'no temporary directory left');
  });

  it('the render handler: COPY returns its text; GENERATE without an LLM is a clear error; a template is never rendered by a worker', async () => {
    const handler = createRenderHandler({ llm: LlmConfigSchema.parse({}), env: {} });
    assert.deepEqual(handler.provides, ['cpu']);
    const context = { workerId: 'w', signal: new AbortController().signal, log: () => {} };
    const task = (payload: object) => ({ id: 't', kind: 'render', payload: handler.payloadSchema.parse(payload), requires: [], attempt: 1 }) as never;
    // Template syntax in a task's text is text: the worker has nothing to evaluate.
    const hostile = '{{ range.constructor("return process.pid")() }}';
    assert.deepEqual(await handler.handle(task({ path: 'a.txt', processType: 'COPY', content: hostile }), context), { status: 'ok', data: { path: 'a.txt', content: hostile } });
    await assert.rejects(handler.handle(task({ path: 'a.txt', processType: 'GENERATE', prompt: 'write a', seed: 0 }), context), /a\.txt: no LLM backend "\(default\)": this worker has no LLM configured/);
    assert.equal(handler.payloadSchema.safeParse({ path: 'a.txt', processType: 'COPY', template: 't', templates: { t: hostile }, variables: {} }).success, false, 'a task carrying templates is refused');
  });

  it('renders each task\'s text in peagen render, with its dependencies\' text, and names the record when the template fails there', () => {
    const file = write({ templates: { 'readme.njk': '# {{ PROJECT.NAME }}\n', 'module.njk': '{% for d in DEPENDENCIES %}{{ d.PATH }}={{ d.CONTENT }};{% endfor %}{{ MODULE.NAME }}\n' } });
    const plan = planRender(loadProjects(file));
    const moduleFile = plan.files.find((planned) => planned.template === 'module.njk' && planned.dependsOn.length > 0);
    assert.ok(moduleFile, JSON.stringify(plan.files.map((planned) => [planned.path, planned.dependsOn])));
    const outputs = new Map(moduleFile.dependsOn.map((dependency) => [dependency, `text of ${dependency}`]));
    const payload = payloadOf(moduleFile, outputs, 0, undefined);
    assert.equal(payload.processType, 'COPY');
    assert.ok(payload.processType === 'COPY' && payload.content.includes(`${moduleFile.dependsOn[0]}=text of ${moduleFile.dependsOn[0]};`), JSON.stringify(payload));
    const broken = { ...moduleFile, variables: { ...moduleFile.variables, MODULE: undefined } };
    assert.throws(() => payloadOf(broken, outputs, 0, undefined), (error: Error) => error.name === 'RenderFailure' && error.message.startsWith(`${moduleFile.path} (`));
  });
});
