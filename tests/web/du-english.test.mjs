// The 毒's English on a pruning curve (web/model/du-english.mjs): the
// reference's tokens whose step's mean cross-attention looks most at a source
// piece holding a 毒, and the first curve point whose output differs there.
// Made-up attention over a made-up tokenization of the page's sentence; the
// page's own run against Node's is tests/e2e/page-heads-matter.test.mjs.
import { duPositions, duSentence, firstDuChange } from '../../web/model/du-english.mjs';
import { setLanguage, t } from '../../web/lib/i18n.mjs';
import { SENTENCE } from '../../web/sentence.mjs';

afterEach(() => setLanguage('en'));

// 用毒毒毒蛇，毒蛇会不会被毒毒死 as five pieces and </s>: only 会不会 and the comma hold no 毒.
const SOURCE = { tokens: ['▁用毒毒毒蛇', ',', '毒蛇', '会不会', '被毒毒死', '</s>'], special: [0, 0, 0, 0, 0, 1] };
const S = SOURCE.tokens.length;
/** A [T − 1, S] cross-attention whose row r looks most at piece tops[r]. */
const crossLooking = (tops) => {
  const out = new Float32Array(tops.length * S).fill(0.05);
  tops.forEach((k, r) => (out[r * S + k] = 0.6));
  return out;
};
// decoder_start, Will, the, snake, be, poisoned, </s>: written looking at 会不会, ',', 毒蛇, 会不会, 被毒毒死, </s>.
const OUTPUT = [0, 10, 11, 12, 13, 14, 1];
const run = (text = SENTENCE) => ({
  cross: crossLooking([3, 1, 2, 3, 4, 5]),
  outputIds: OUTPUT,
  special: [1, 0, 0, 0, 0, 0, 1],
  source: SOURCE,
  text,
});
const point = (headsOff, outputIds) => ({
  headsOff,
  fraction: headsOff / 8,
  score: -headsOff,
  output: { outputIds, tokens: [] },
});

test('the tokens written while the top piece holds a 毒: snake (毒蛇) and poisoned (被毒毒死), not the rest', () => {
  expect(duPositions(run())).toEqual([3, 5]);
  // Another text has no six 毒: nothing.
  expect(duPositions(run('你好'))).toEqual([]);
});

test('the first point whose output differs at one of those positions; a change elsewhere does not count', () => {
  const positions = duPositions(run());
  const points = [
    point(0, OUTPUT),
    point(2, [0, 99, 11, 12, 13, 14, 1]), // "Will" changed: the output changes, the 毒's English does not
    point(4, [0, 99, 11, 12, 13, 77, 1]), // "poisoned" changed
    point(8, [0, 1]), // shorter: missing counts as changed
  ];
  expect(firstDuChange(points, OUTPUT, positions)).toBe(2);
  expect(firstDuChange(points.slice(0, 2), OUTPUT, positions)).toBe(-1);
  expect(firstDuChange([point(0, OUTPUT), point(8, [0, 1])], OUTPUT, positions)).toBe(1);
  expect(firstDuChange(points, OUTPUT, [])).toBe(-1);
});

test('the sentence names the tokens and where they change, or says they stay, in both languages', () => {
  const reference = { tokens: ['<pad>', '▁Will', '▁the', '▁snake', '▁be', '▁poisoned', '</s>'] };
  const points = [point(0, OUTPUT), point(1, [0, 10, 11, 12, 13, 77, 1])];
  for (const lang of ['en', 'zh']) {
    setLanguage(lang);
    const words = ['snake', 'poisoned'].join(t('list.join'));
    const changed = duSentence(reference, [3, 5], points, 1);
    expect(changed).toEqual({ kind: 'du', text: t('matter.text.du', { words, n: 1, output: '' }) });
    const kept = duSentence(reference, [3, 5], points, -1);
    expect(kept).toEqual({ kind: 'du', text: t('matter.text.duKept', { words, total: 1 }) });
  }
  // A token written twice is named once.
  const twice = { tokens: ['<pad>', '▁venom', '▁and', '▁venom', '</s>'] };
  expect(duSentence(twice, [1, 3], points, -1).text).toBe(t('matter.text.duKept', { words: 'venom', total: 1 }));
  setLanguage('en');
  expect(t('matter.text.du', { words: 'a', n: 1, output: 'b' })).toContain('with 1 head off');
  expect(t('matter.text.du', { words: 'a', n: 2, output: 'b' })).toContain('with 2 heads off');
});
