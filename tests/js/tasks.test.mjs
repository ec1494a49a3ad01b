// Task heads and embeddings (model.classify, classifyTokens, answer, embed; pipeline()) against what Hugging Face
// transformers computes for the tiny checkpoints its own *For… classes saved (tests/fixtures/tasks,
// tests/tools/make_task_fixtures.py; RoBERTa's question answering: make_piece_task_fixtures.py): the heads' logits, its pipelines' labels, scores, entities and fill-mask
// predictions, transformers 4's question-answering span (written out there, as transformers 5 has no such
// pipeline), and sentence-transformers' pooling and normalisation (by hand there: Debian has no
// sentence-transformers), on every build. Tolerances: logits and embeddings |Δ| ≤ 2e-5 + 1e-4·|x| (float32 against
// float64 through two layers, as the backbone's hidden states), probabilities |Δ| ≤ 1e-5 (the pipelines round to
// float32).
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAttention, pipeline } from '../../src/js/node.mjs';
import { BUILDS, VARIANTS } from './helpers/engines.mjs';
import { TASKS, close, expected, near, utf16 } from './helpers/task-fixtures.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const fillMask = JSON.parse(readFileSync(path.join(TASKS, 'fill-mask.json'), 'utf8'));
const aggregation = JSON.parse(readFileSync(path.join(TASKS, 'bert-token-classification', 'aggregation.json'), 'utf8'));

describe.each(VARIANTS)('%s build', (variant) => {
  const models = {};
  let engine;
  beforeAll(async () => {
    engine = await createAttention(BUILDS[variant]);
    for (const name of [
      'bert-sequence-classification',
      'roberta-sequence-classification',
      'bert-token-classification',
      'bert-question-answering',
      'roberta-question-answering',
      'bert-sentence-embedding',
    ])
      models[name] = await engine.loadModel(path.join(TASKS, name));
    models.mlm = await engine.loadModel(path.join(MODELS, 'hf-bert-mlm'));
  });
  afterAll(() => engine?.dispose());

  test.each(['bert-sequence-classification', 'roberta-sequence-classification'])(
    '%s: the head’s logits and labels are transformers’',
    async (name) => {
      const model = models[name];
      expect([model.config.taskHead, model.config.labels]).toEqual([
        'sequence-classification',
        ['NEGATIVE', 'POSITIVE', 'NEUTRAL'],
      ]);
      const pipe = await pipeline('text-classification', model);
      for (const c of expected(name).cases) {
        const r = await model.classify(c.input);
        expect(Array.from(r.inputIds)).toEqual(c.inputIds);
        close(r.taskLogits, c.logits, `${name} ${c.input} logits`);
        const want = c.pipeline.flat();
        expect(r.labels.map((l) => l.label)).toEqual(want.map((l) => l.label));
        r.labels.forEach((l, i) => near(l.score, want[i].score, `${c.input} ${l.label}`));
        // Every attention is still there; the pipeline's topK.
        expect(r.attention).toHaveLength(2 * 4 * c.inputIds.length ** 2);
        expect((await pipe(c.input)).map((l) => l.label)).toEqual([want[0].label]);
        expect(await pipe(c.input, { topK: null })).toHaveLength(3);
      }
    },
  );

  test('token classification: every token’s logits, and the pipeline’s entities (aggregation none)', async () => {
    const model = models['bert-token-classification'];
    const pipe = await pipeline('token-classification', model);
    let entities = 0;
    for (const c of expected('bert-token-classification').cases) {
      const r = await model.classifyTokens(c.input, { returnAttention: false });
      close(r.taskLogits, c.logits.flat(), `${c.input} logits`);
      expect(r.attention).toBeUndefined();
      const got = await pipe(c.input);
      const fields = (e) => [e.entity, e.index, e.word, e.start, e.end];
      expect(got.map(fields)).toEqual(c.pipeline.map(fields));
      got.forEach((e, i) => near(e.score, c.pipeline[i].score, `${c.input} entity ${i}`));
      entities += got.length;
    }
    expect(entities).toBeGreaterThan(10);
  });

  test('token classification: transformers’ entities with every aggregation strategy', async () => {
    const model = models['bert-token-classification'];
    const pipe = await pipeline('token-classification', model);
    const fields = (e) => [e.entity_group ?? e.entity, e.index, e.word, e.start, e.end];
    let [count, worst] = [0, 0];
    for (const c of aggregation.cases) {
      const result = await model.classifyTokens(c.input, { returnAttention: false });
      expect(result.tokens).toEqual(c.tokens);
      for (const [strategy, want] of Object.entries(c.pipelines)) {
        const got = await pipe(c.input, { aggregationStrategy: strategy });
        expect([c.input, strategy, got.map(fields)]).toEqual([c.input, strategy, want.map(fields)]);
        got.forEach((e, i) => near(e.score, want[i].score, `${c.input} ${strategy} ${i}`));
        for (const [i, e] of got.entries()) worst = Math.max(worst, Math.abs(e.score - want[i].score));
        count += got.length;
      }
    }
    // Every strategy is exercised: on the first sentences 'first', 'average' and 'max' each differ from the others.
    const differ = aggregation.cases.filter(
      (c) => new Set(Object.values(c.pipelines).map((r) => JSON.stringify(r.map(fields)))).size >= 4,
    );
    expect(differ.length).toBeGreaterThanOrEqual(3);
    expect(count).toBeGreaterThan(150);
    expect(worst).toBeLessThan(1e-5);
  });

  // WordPiece (BERT) and byte-level BPE (RoBERTa: its offsets from piece-offsets.mjs).
  test.each(['bert-question-answering', 'roberta-question-answering'])(
    '%s: start and end logits, and transformers 4’s span, score and characters',
    async (name) => {
      const model = models[name];
      const pipe = await pipeline('question-answering', model);
      for (const c of expected(name).cases) {
        const r = await model.answer(c.input);
        expect(Array.from(r.inputIds)).toEqual(c.inputIds);
        close(r.startLogits, c.startLogits, 'startLogits');
        close(r.endLogits, c.endLogits, 'endLogits');
        expect(r.tokenSpan).toEqual(c.pipeline.tokenSpan);
        near(r.score, c.pipeline.score, 'score');
        // The context's characters from the first token's start to the last one's end, as transformers' answer.
        const at = utf16(c.input.context);
        expect([r.answer, r.start, r.end]).toEqual([c.pipeline.answer, at(c.pipeline.start), at(c.pipeline.end)]);
        const p = await pipe(c.input.question, c.input.context);
        expect([p.answer, p.start, p.end, p.tokenSpan]).toEqual([r.answer, r.start, r.end, r.tokenSpan]);
      }
    },
  );

  test('embeddings: mean and [CLS] pooling, normalised or not; the sentence-transformers folder’s defaults', async () => {
    const model = models['bert-sentence-embedding'];
    expect(model.config.sentenceTransformers).toEqual({
      pooling: 'mean',
      normalize: true,
      file: '1_Pooling/config.json',
    });
    const pipe = await pipeline('feature-extraction', model);
    for (const c of expected('bert-sentence-embedding').cases) {
      const byDefault = await model.embed(c.input);
      expect([byDefault.pooling, byDefault.normalize]).toEqual(['mean', true]);
      close(byDefault.embedding, c.meanNormalized, 'mean, normalised');
      close((await model.embed(c.input, { normalize: false })).embedding, c.mean, 'mean');
      close((await model.embed(c.input, { pooling: 'cls', normalize: false })).embedding, c.cls, 'cls');
      close((await model.embed(c.input, { pooling: 'cls' })).embedding, c.clsNormalized, 'cls, normalised');
      const features = await pipe(c.input);
      expect(features.dims).toEqual([1, 32]);
      close(features.data, c.meanNormalized, 'pipeline');
      const rows = await model.embed(c.input, { pooling: 'none', normalize: false });
      expect(rows.embedding).toEqual(rows.lastHiddenState);
    }
  });

  test('fill-mask: transformers’ pipeline’s five tokens, scores and sequences', async () => {
    const pipe = await pipeline('fill-mask', models.mlm);
    for (const c of fillMask.cases) {
      const got = await pipe(c.input);
      expect(got.map((p) => [p.token, p.token_str])).toEqual(c.pipeline.map((p) => [p.token, p.token_str]));
      got.forEach((p, i) => near(p.score, c.pipeline[i].score, `${c.input} ${i}`));
      // transformers' sequence cleans up tokenization spaces ("the." ← "the ."), as its decode does.
      expect(got.map((p) => p.sequence.replace(/\s/g, ''))).toEqual(
        c.pipeline.map((p) => p.sequence.replace(/\s/g, '')),
      );
    }
  });

  test('a pipeline of an array runs it as one batch: each result equals that input’s own call', async () => {
    // Each task, its model, its cases and the model's call an array is one of.
    const pipes = [
      ['text-classification', 'bert-sequence-classification', 'classify'],
      ['token-classification', 'bert-token-classification', 'classifyTokens'],
      ['feature-extraction', 'bert-sentence-embedding', 'embed'],
    ].map(([task, name, call]) => [task, models[name], expected(name), call]);
    pipes.push(['fill-mask', models.mlm, fillMask, 'run']);
    for (const [task, model, { cases }, call] of pipes) {
      // The model's calls, counted: the array is one call of it (a batch), not one call per input.
      const calls = [];
      const counted = new Proxy(model, {
        get(target, key) {
          const value = target[key];
          if (typeof value !== 'function') return value;
          return (...args) => (key !== 'decode' && calls.push(key), value.apply(target, args));
        },
      });
      const pipe = await pipeline(task, counted);
      const inputs = cases.map((c) => c.input);
      expect(inputs.length).toBeGreaterThan(1);
      const batch = await pipe(inputs);
      expect([task, calls]).toEqual([task, [call]]);
      const one = [];
      for (const input of inputs) one.push(await pipe(input));
      expect([task, batch]).toEqual([task, one]);
    }
  });
});

// The generation pipelines are generate() (its own suites check it on every build) in transformers' shapes.
test('translation and text-generation: transformers’ generate() outputs, in its pipelines’ shapes', async () => {
  const ref = (name) => JSON.parse(readFileSync(path.join(MODELS, name, 'reference.json'), 'utf8')).generate[0];
  const [marian, gpt2] = [ref('hf-marian'), ref('hf-gpt2-lm')];
  expect([marian.name, gpt2.name]).toEqual(['default', 'default']);
  const translate = await pipeline('translation', path.join(MODELS, 'hf-marian'), { weights: 'float32' });
  const generate = await pipeline('text-generation', path.join(MODELS, 'hf-gpt2-lm'));
  try {
    expect(await translate(marian.text)).toEqual([{ translation_text: marian.decoded }]);
    expect(await translate([marian.text, marian.text])).toHaveLength(2);
    expect(await generate(gpt2.text)).toEqual([{ generated_text: gpt2.decoded }]);
    expect(await generate(gpt2.text, { returnFullText: false })).toEqual([{ generated_text: gpt2.decodedNew }]);
    expect(translate.model.kind).toBe('encoder-decoder');
    // A task call on another kind is refused with the kind that has it.
    await expect(generate.model.embed('a')).rejects.toMatchObject({
      name: 'TypeError',
      message: expect.stringMatching(/^embed: a gpt2 is a decoder; task heads and embeddings are an encoder's/),
    });
  } finally {
    translate.dispose();
    generate.dispose();
  }
});

describe('refusals', () => {
  let engine, classifier, embedder;
  beforeAll(async () => {
    engine = await createAttention({ variant: 'simd' });
    classifier = await engine.loadModel(path.join(TASKS, 'bert-sequence-classification'));
    embedder = await engine.loadModel(path.join(TASKS, 'bert-sentence-embedding'));
  });
  afterAll(() => engine?.dispose());

  test('a head the checkpoint lacks is an Error coded NoTaskHead that names the head it has', async () => {
    await expect(classifier.classifyTokens('a')).rejects.toMatchObject({
      code: 'NoTaskHead',
      message: expect.stringMatching(
        /^classifyTokens: this bert has a sequence-classification head \(model\.classify\(\)\)/,
      ),
    });
    await expect(embedder.classify('a')).rejects.toMatchObject({
      code: 'NoTaskHead',
      message: expect.stringContaining('has no task head, not a sequence-classification one'),
    });
    await expect(pipeline('question-answering', classifier)).rejects.toMatchObject({ code: 'NoTaskHead' });
    await expect(pipeline('fill-mask', classifier)).rejects.toMatchObject({ code: 'NoTaskHead' });
  });

  test('a Pooling config.json in its subfolder is read from files too; without it embed() asks for the pooling', async () => {
    const dir = path.join(TASKS, 'bert-sentence-embedding');
    const names = ['config.json', 'model.safetensors', 'modules.json', 'tokenizer.json', 'tokenizer_config.json'];
    const files = Object.fromEntries(names.map((n) => [`st/${n}`, new Uint8Array(readFileSync(path.join(dir, n)))]));
    const pooling = {
      'st/1_Pooling/config.json': new Uint8Array(readFileSync(path.join(dir, '1_Pooling/config.json'))),
    };
    const withPooling = await engine.loadModel({ ...files, ...pooling });
    expect(withPooling.config.sentenceTransformers).toEqual(embedder.config.sentenceTransformers);
    const without = await engine.loadModel(files);
    expect(without.config.sentenceTransformers).toEqual({
      pooling: null,
      normalize: true,
      file: '1_Pooling/config.json',
    });
    await expect(without.embed('a')).rejects.toThrow(
      /^pooling: this folder's modules.json names a Pooling module whose 1_Pooling\/config.json was not read/,
    );
    const given = await without.embed('a', { pooling: 'mean' });
    expect(given.embedding).toEqual((await withPooling.embed('a')).embedding);
    withPooling.dispose();
    without.dispose();
  });

  test('bad arguments name themselves', async () => {
    await expect(embedder.embed('a', { pooling: 'sum' })).rejects.toMatchObject({
      name: 'TypeError',
      code: 'InvalidArgument',
      message: "pooling: expected 'mean', 'cls', 'max' or 'none', got the string \"sum\"",
    });
    await expect(embedder.embed('a', { normalize: 1 })).rejects.toThrow(
      /^normalize: expected a boolean, got number 1$/,
    );
    await expect(embedder.embed('a', { topK: 2 })).rejects.toThrow(/unknown argument "topK"/);
    await expect(classifier.answer({ question: 'a' })).rejects.toThrow(/^input: expected \{ question, context \}/);
    await expect(pipeline('summarization', classifier)).rejects.toMatchObject({
      name: 'TypeError',
      message: expect.stringMatching(
        /^task: expected one of feature-extraction, fill-mask, .* got the string "summarization"$/,
      ),
    });
    await expect(pipeline('translation', classifier)).rejects.toThrow(/^model: translation runs on an encoder-decoder/);
    const pipe = await pipeline('text-classification', classifier);
    await expect(pipe('a', { topK: 0 })).rejects.toMatchObject({ name: 'RangeError', code: 'InvalidArgument' });
    const tagger = await pipeline('token-classification', path.join(TASKS, 'bert-token-classification'), { engine });
    await expect(tagger('a', { aggregationStrategy: 'SIMPLE' })).rejects.toMatchObject({
      name: 'RangeError',
      code: 'InvalidArgument',
      message: "aggregationStrategy: expected 'none', 'simple', 'first', 'average', 'max', got the string \"SIMPLE\"",
    });
    await expect(tagger.model.classifyTokens('a', { aggregationStrategy: 2 })).rejects.toThrow(
      /^aggregationStrategy: expected/,
    );
    // Without a text the tokens spell (a pair), only 'none' (start and end null).
    for (const strategy of ['simple', 'first'])
      await expect(tagger({ text: 'a', textPair: 'b' }, { aggregationStrategy: strategy })).rejects.toMatchObject({
        name: 'TypeError',
        message: expect.stringMatching(
          new RegExp(`^aggregationStrategy: '${strategy}' needs each token's place in the text.*; use 'none'$`),
        ),
      });
    tagger.dispose();
  });
});
