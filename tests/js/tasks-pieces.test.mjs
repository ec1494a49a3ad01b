// Task heads on a byte-level BPE tokenizer (hf-roberta's) and a SentencePiece-style one (hf-xlm-roberta's: Unigram,
// NFKC, Metaspace): RobertaForTokenClassification's and XLMRobertaForTokenClassification's entities with every
// aggregation strategy, RobertaForQuestionAnswering's answer, against transformers' own pipeline and transformers
// 4's span choice (tests/tools/make_piece_task_fixtures.py in the sid chroot). What differs from WordPiece: the
// offsets come from piece-offsets.mjs; the tokenizers mark no later pieces, so transformers' fallback decides which
// tokens continue a word (no space before them); 'none' names each token as the vocabulary writes it (Ġsnake, ▁ven);
// the words are the decoder's (ByteLevel: a character cut between words shows as U+FFFD, as in transformers;
// Metaspace). The pipelines count characters as Python does, the engine UTF-16 units: the positions are converted.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAttention, pipeline } from '../../src/js/node.mjs';
import { BUILDS, VARIANTS } from './helpers/engines.mjs';

const TASKS = fileURLToPath(new URL('../fixtures/tasks/', import.meta.url));
const TAGGERS = ['roberta-token-classification', 'xlm-roberta-token-classification'];
const expected = (name) => JSON.parse(readFileSync(path.join(TASKS, name, 'expected.json'), 'utf8'));
const near = (got, want, what) => {
  if (!(Math.abs(got - want) <= 1e-5)) throw new Error(`${what}: got ${got}, want ${want}`);
};
function close(got, want, what) {
  expect([what, got.length]).toEqual([what, want.length]);
  for (let i = 0; i < want.length; i++)
    if (!(Math.abs(got[i] - want[i]) <= 2e-5 + 1e-4 * Math.abs(want[i])))
      throw new Error(`${what}[${i}]: got ${got[i]}, want ${want[i]}`);
}

// A Python character position in `text` as a UTF-16 one.
function utf16(text) {
  const unit = [0];
  for (const ch of text) unit.push(unit.at(-1) + ch.length);
  return (i) => (i === null || i === undefined ? i : unit[i]);
}

describe.each(VARIANTS)('%s build', (variant) => {
  let engine, reader;
  const taggers = {};
  beforeAll(async () => {
    engine = await createAttention(BUILDS[variant]);
    for (const name of TAGGERS) taggers[name] = await engine.loadModel(path.join(TASKS, name));
    reader = await engine.loadModel(path.join(TASKS, 'roberta-question-answering'));
  });
  afterAll(() => engine?.dispose());

  test.each(TAGGERS)('%s: transformers’ entities with every aggregation strategy', async (name) => {
    const tagger = taggers[name];
    const pipe = await pipeline('token-classification', tagger);
    const fields = (e) => [e.entity_group ?? e.entity, e.index, e.word, e.start, e.end];
    let [count, differ] = [0, 0];
    for (const c of expected(name).cases) {
      const result = await tagger.classifyTokens(c.input, { returnAttention: false });
      expect(Array.from(result.inputIds)).toEqual(c.inputIds);
      close(result.taskLogits, c.logits.flat(), `${c.input} logits`);
      const at = utf16(c.input);
      for (const [strategy, want] of Object.entries(c.pipelines)) {
        const got = await pipe(c.input, { aggregationStrategy: strategy });
        const wanted = want.map((e) => fields({ ...e, start: at(e.start), end: at(e.end) }));
        expect([c.input, strategy, got.map(fields)]).toEqual([c.input, strategy, wanted]);
        got.forEach((e, i) => near(e.score, want[i].score, `${c.input} ${strategy} ${i}`));
        count += got.length;
      }
      if (new Set(Object.values(c.pipelines).map((r) => JSON.stringify(r.map(fields)))).size >= 3) differ++;
    }
    // Words of several tokens: the word strategies ('first', 'average', 'max') give other entities than 'none' and
    // 'simple' do.
    expect(differ).toBeGreaterThanOrEqual(2);
    expect(count).toBeGreaterThan(100);
  });

  test('question answering: the span, its score, and its characters in the context', async () => {
    const pipe = await pipeline('question-answering', reader);
    for (const c of expected('roberta-question-answering').cases) {
      const r = await reader.answer(c.input);
      expect(Array.from(r.inputIds)).toEqual(c.inputIds);
      close(r.startLogits, c.startLogits, 'startLogits');
      close(r.endLogits, c.endLogits, 'endLogits');
      const at = utf16(c.input.context);
      expect([r.tokenSpan, r.answer, r.start, r.end]).toEqual([
        c.pipeline.tokenSpan,
        c.pipeline.answer,
        at(c.pipeline.start),
        at(c.pipeline.end),
      ]);
      near(r.score, c.pipeline.score, 'score');
      const p = await pipe(c.input.question, c.input.context);
      expect([p.answer, p.start, p.end]).toEqual([r.answer, r.start, r.end]);
    }
  });
});
