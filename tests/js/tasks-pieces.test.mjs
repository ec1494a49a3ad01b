// Token classification on a byte-level BPE tokenizer (hf-roberta's) and a SentencePiece-style one (hf-xlm-roberta's:
// Unigram, NFKC, Metaspace): RobertaForTokenClassification's and XLMRobertaForTokenClassification's entities with
// every aggregation strategy against transformers' own pipeline (tests/tools/make_piece_task_fixtures.py in the sid
// chroot; RobertaForQuestionAnswering's answers are in tasks.test.mjs). What differs from WordPiece: the
// offsets come from piece-offsets.mjs; the tokenizers mark no later pieces, so transformers' fallback decides which
// tokens continue a word (no space before them); 'none' names each token as the vocabulary writes it (Ġsnake, ▁ven);
// the words are the decoder's (ByteLevel: a character cut between words shows as U+FFFD, as in transformers;
// Metaspace). The pipelines count characters as Python does, the engine UTF-16 units: the positions are converted.
import path from 'node:path';
import { createAttention, pipeline } from '../../src/js/node.mjs';
import { BUILDS, VARIANTS } from './helpers/engines.mjs';
import { TASKS, close, expected, near, utf16 } from './helpers/task-fixtures.mjs';

const TAGGERS = ['roberta-token-classification', 'xlm-roberta-token-classification'];

describe.each(VARIANTS)('%s build', (variant) => {
  let engine;
  const taggers = {};
  beforeAll(async () => {
    engine = await createAttention(BUILDS[variant]);
    for (const name of TAGGERS) taggers[name] = await engine.loadModel(path.join(TASKS, name));
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
});
