import * as assert from 'node:assert/strict';
import { ProposalStore, proposedText } from '../../extension/proposals/proposalStore';
import type { ProposalInput } from '../../extension/proposals/proposal';
import { placeRegion, snapshotBase, STALE_MESSAGE } from '../../extension/proposals/staleGuard';

const BASE = ['import math', '', 'def area(r):', '    return 3.14 * r * r', '', 'print(area(2))', ''].join('\n');
const REGION = { startLine: 2, endLine: 4 };

describe('proposal stale guard', () => {
  it('applies at the region when the text is the base', () => {
    assert.deepEqual(placeRegion(snapshotBase(BASE, REGION), BASE), { ok: true, region: REGION, how: 'unchanged' });
  });

  it('follows the region when code above it was edited (it occurs once, moved)', () => {
    const current = BASE.replace('import math\n', 'import math\nimport sys\nimport os\n');
    assert.deepEqual(placeRegion(snapshotBase(BASE, REGION), current), { ok: true, region: { startLine: 4, endLine: 6 }, how: 'moved' });
  });

  it('is not fooled by edits elsewhere that keep the line numbers', () => {
    const current = BASE.replace('print(area(2))', 'print(area(3))');
    assert.deepEqual(placeRegion(snapshotBase(BASE, REGION), current), { ok: true, region: REGION, how: 'moved' });
  });

  it('refuses when a line of the region was edited, never applying at the old line numbers', () => {
    const current = BASE.replace('3.14', 'math.pi');
    assert.deepEqual(placeRegion(snapshotBase(BASE, REGION), current), { ok: false, reason: STALE_MESSAGE });
    assert.match(STALE_MESSAGE, /edited since it was made; evolve it again/);
  });

  it('refuses when the region occurs twice (it cannot know which one)', () => {
    const region = ['def area(r):', '    return 3.14 * r * r'].join('\n');
    const current = BASE.replace('print', `${region}\n\nprint`);
    assert.equal(placeRegion(snapshotBase(BASE, REGION), current).ok, false);
  });

  it('refuses an insertion (empty region) once the text changed: there is nothing to recognise', () => {
    const base = snapshotBase(BASE, { startLine: 1, endLine: 1 });
    assert.equal(placeRegion(base, BASE).ok, true);
    assert.equal(placeRegion(base, `# header\n${BASE}`).ok, false);
  });

  it('recognises the region in a file whose line breaks became CRLF', () => {
    const placement = placeRegion(snapshotBase(BASE, REGION), BASE.replace(/\n/g, '\r\n'));
    assert.deepEqual(placement, { ok: true, region: REGION, how: 'moved' });
  });

  it('refuses a region outside the base text when the proposal is made', () => {
    assert.throws(() => snapshotBase('a\n', { startLine: 0, endLine: 2 }), /not within the file's 1 lines/);
  });
});

describe('proposal store', () => {
  const input = (baseText: string): ProposalInput =>
    ({ uri: { toString: () => 'file:///w/area.py' }, baseText, region: REGION, replacement: 'def area(r):\n    return math.pi * r ** 2', title: 'exact pi', source: { kind: 'mutate' } }) as unknown as ProposalInput;

  it('shows the current text with the proposal applied where the region is now', () => {
    const store = new ProposalStore();
    const record = store.add(input(BASE));
    const current = `# edited\n${BASE}`;
    assert.equal(proposedText(record, current), `# edited\n${BASE.replace('3.14 * r * r', 'math.pi * r ** 2')}`);
    // Unplaceable: what was proposed against the base.
    assert.equal(proposedText(record, 'other'), BASE.replace('3.14 * r * r', 'math.pi * r ** 2'));
  });

  it('keeps open proposals per file and tells listeners about every change of state', () => {
    const store = new ProposalStore();
    const seen: string[] = [];
    store.onDidChange((record) => seen.push(`${record.id}:${record.state}`));
    const first = store.add(input(BASE));
    const second = store.add(input(BASE));
    store.setState(first.id, 'accepted');
    assert.deepEqual(store.openFor('file:///w/area.py').map((record) => record.id), [second.id]);
    assert.deepEqual(seen, [`${first.id}:open`, `${second.id}:open`, `${first.id}:accepted`]);
    assert.notEqual(first.id, second.id);
  });
});
