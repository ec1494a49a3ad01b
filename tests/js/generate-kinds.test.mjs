// Generation across kinds of model (issue 40 item 7), against what Hugging
// Face transformers' generate() does (tests/tools/make_generation_fixtures.py →
// tests/fixtures/generation/kinds.json) on every build: a decoder's beam
// search (every returned sequence and its sequences_scores, with
// num_return_sequences, length_penalty, early_stopping), stop strings
// (StopStringCriteria: across ids, an id that runs on past the string, beams),
// minP (MinPLogitsWarper after temperature, topK and topP: the ids it leaves on
// transformers' own logits). Sampling, whose draws no JS code can make
// torch's, is checked by its rules on both kinds: topK 1 is greedy, a token
// a warper filtered is never drawn, the same seed gives the same ids on every
// build and thread count. And what generate() does with the cache that
// prefill()/step() built: it keeps what the prompt shares with it and leaves
// the output in it.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { processScores } from '../../src/js/models/generation/logits-processors.mjs';
import { generationSettings } from '../../src/js/models/generation/settings.mjs';
import { expectNear, sameBits as same } from './helpers/compare.mjs';
import { modelsForTests } from './helpers/engines.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const FIXTURE = JSON.parse(readFileSync(new URL('../fixtures/generation/kinds.json', import.meta.url), 'utf8'));
const DECODERS = ['hf-qwen2', 'hf-llama', 'hf-gpt2-lm'];

// transformers' generate() keyword arguments as generate()'s options.
function optionsOf(o) {
  const names = {
    num_beams: 'numBeams',
    num_return_sequences: 'numReturnSequences',
    max_new_tokens: 'maxNewTokens',
    length_penalty: 'lengthPenalty',
    early_stopping: 'earlyStopping',
    stop_strings: 'stopStrings',
  };
  return Object.fromEntries(
    Object.entries(o).map(([k, v]) => {
      if (!names[k]) throw new Error(`the test does not know generate()'s ${k}`);
      return [names[k], v];
    }),
  );
}

test('the fixture has every kind of case', () => {
  expect(FIXTURE.beams.length).toBeGreaterThanOrEqual(24);
  // Some beams end on the end-of-text id, some reach maxNewTokens; some stop strings stop, some never come.
  const ends = FIXTURE.beams.flatMap((c) => c.endsWithEos);
  expect(ends.some(Boolean) && !ends.every(Boolean)).toBe(true);
  const stopped = FIXTURE.stopStrings.map((c) => c.stopped);
  expect(stopped.some(Boolean) && !stopped.every(Boolean)).toBe(true);
  expect(FIXTURE.stopStrings.some((c) => c.name.startsWith('overhang') && c.stopped)).toBe(true);
  expect(FIXTURE.stopStrings.some((c) => c.name.startsWith('across') && c.stopped)).toBe(true);
  const kept = FIXTURE.minP.map((c) => c.kept.length);
  expect(Math.min(...kept)).toBe(1);
  expect(Math.max(...kept)).toBeGreaterThan(10);
});

test('minP leaves the ids transformers’ MinPLogitsWarper leaves (after temperature, topK, topP)', () => {
  for (const c of FIXTURE.minP) {
    const { temperature, top_k: topK, top_p: topP, min_p: minP } = c.options;
    const options = { doSample: true, temperature, topK, topP, minP };
    const s = generationSettings({}, 'test', options, c.logits.length, {
      promptLength: c.inputIds.length,
      encoderDecoder: false,
    });
    const scores = processScores(Float64Array.from(c.logits), c.inputIds, s, c.inputIds.length);
    const kept = Array.from(scores.keys()).filter((v) => scores[v] !== -Infinity);
    expect([c.model, c.options, kept]).toEqual([c.model, c.options, c.kept]);
  }
});

// The ids of each seeded sampling case on the first build, which every other build must give.
const SAMPLED = new Map();

describe.each([
  ['scalar', 1],
  ['simd', 1],
  ['threaded-simd', 3],
])('%s build, %d thread(s)', (variant, threads) => {
  const names = [...DECODERS, 'hf-marian'];
  const models = modelsForTests(Object.fromEntries(names.map((name) => [name, name])), { variant, threads });

  test.each(DECODERS)('%s: beam search gives transformers’ sequences and scores', async (name) => {
    const model = models[name];
    for (const c of FIXTURE.beams.filter((x) => x.model === name)) {
      const reports = [];
      const options = { ...optionsOf(c.options), returnAttention: false, onToken: (r) => reports.push(r) };
      const out = await model.generate({ inputIds: c.inputIds }, options);
      // onToken: each step's best beam, with every running beam.
      expect(reports.length).toBeGreaterThanOrEqual(Math.max(...c.sequences.map((q) => q.length)) - c.inputIds.length);
      expect(reports.length).toBeLessThanOrEqual(c.options.max_new_tokens);
      for (const r of reports) expect(r.beams).toHaveLength(c.options.num_beams);
      expect([c.name, out.candidates.map((k) => Array.from(k.outputIds))]).toEqual([c.name, c.sequences]);
      expectNear(
        out.candidates.map((k) => k.score),
        c.sequenceScores,
        1e-4,
        0,
        `${name} ${c.name}`,
      );
      expect(Array.from(out.outputIds)).toEqual(c.sequences[0]);
      expect(out.score).toBe(out.candidates[0].score);
      // The text of each is what it adds to the prompt; the cache holds the best but its last id.
      expect(out.candidates[0].text).toBe(out.text);
      expect(model.past).toBe(c.sequences[0].length - 1);
    }
  });

  test.each(DECODERS)('%s: stop strings stop where transformers’ StopStringCriteria does', async (name) => {
    const model = models[name];
    for (const c of FIXTURE.stopStrings.filter((x) => x.model === name)) {
      const out = await model.generate({ inputIds: c.inputIds }, { ...optionsOf(c.options), returnAttention: false });
      expect([c.name, c.options.stop_strings, Array.from(out.outputIds)]).toEqual([
        c.name,
        c.options.stop_strings,
        c.sequence,
      ]);
      // A step stream stops where generate() does.
      if (c.options.num_beams === 1) {
        const { num_beams: _, ...rest } = c.options;
        let last;
        const options = { ...optionsOf(rest), returnAttention: false };
        for await (const step of model.generateSteps({ inputIds: c.inputIds }, options)) last = step;
        expect([c.name, Array.from(last.outputIds)]).toEqual([c.name, c.sequence]);
      }
    }
  });

  test('an encoder-decoder’s stop strings: the text stops in the id that completes the string', async () => {
    const model = models['hf-marian'];
    const text = 'Will a venomous snake be poisoned by venom?';
    // (minNewTokens: the random weights would end after one word.)
    const options = { numBeams: 1, maxNewTokens: 16, minNewTokens: 12, returnAttention: false };
    const greedy = await model.generate(text, options);
    // A string across two new ids' texts: the last character of one's and the first of the next one's.
    const decode = (ids) => model.tokenizer.decode(ids, { skipSpecialTokens: true });
    const texts = [];
    for (let k = 1; k <= greedy.outputIds.length; k++) texts.push(await decode(greedy.outputIds.subarray(0, k)));
    const k = texts.findIndex((t, i) => i >= 2 && t.length && texts[i + 1]?.length > t.length && /\S$/.test(t));
    expect(k).toBeGreaterThan(0);
    const stop = texts[k + 1].slice(texts[k].length - 1, texts[k].length + 1);
    expect(stop).toHaveLength(2);
    const out = await model.generate(text, { ...options, stopStrings: stop });
    // It stops at the id that completes the string (ids 0 … k + 1: the start token is id 0).
    expect(Array.from(out.outputIds)).toEqual(Array.from(greedy.outputIds.subarray(0, k + 2)));
    expect(out.text.includes(stop)).toBe(true);
    expect(texts[k].includes(stop)).toBe(false);
  });

  test('sampling on both kinds: topK 1 is greedy; a filtered token is never drawn; a seed’s ids on every build', async () => {
    for (const name of ['hf-llama', 'hf-marian']) {
      const model = models[name];
      const text = name === 'hf-marian' ? 'Will a venomous snake be poisoned by venom?' : 'We poison the snake.';
      const base = { maxNewTokens: 12, numBeams: 1, returnAttention: false };
      const greedy = await model.generate(text, base);
      const topOne = await model.generate(text, { ...base, doSample: true, topK: 1, seed: 5 });
      expect([name, Array.from(topOne.outputIds)]).toEqual([name, Array.from(greedy.outputIds)]);
      expect(topOne.seed).toBe(5);
      // minP 0.3 at temperature 1.5: every drawn id had at least 0.3 of the most likely one's probability.
      for (const seed of [1, 2, 3, 4]) {
        const steps = [];
        const sampled = { ...base, doSample: true, temperature: 1.5, topK: 0, minP: 0.3, seed };
        const out = await model.generate(text, { ...sampled, onStep: (s) => steps.push(s) });
        expect(out.seed).toBe(seed);
        for (const s of steps) {
          expect(s.seed).toBe(seed);
          if (name === 'hf-marian' && s.step === base.maxNewTokens) continue; // forced_eos_token_id's step
          const banned = new Set(name === 'hf-marian' ? [233] : []); // bad_words_ids [[pad]]
          let max = -Infinity;
          s.logits.forEach((v, i) => banned.has(i) || (max = Math.max(max, v)));
          expect([name, seed, s.step, Math.exp((s.logits[s.id] - max) / 1.5) >= 0.3]).toEqual([
            name,
            seed,
            s.step,
            true,
          ]);
        }
        const key = `${name} ${seed}`;
        if (!SAMPLED.has(key)) SAMPLED.set(key, Array.from(out.outputIds));
        expect([key, Array.from(out.outputIds)]).toEqual([key, SAMPLED.get(key)]);
      }
    }
  });

  test('generate() after prefill()/step() keeps the prompt’s shared prefix and leaves its output in the cache', async () => {
    const model = models['hf-qwen2'];
    const V = model.config.vocabSize;
    const prompt = FIXTURE.beams.find((c) => c.model === 'hf-qwen2').inputIds;
    const options = { maxNewTokens: 6, returnAttention: false };
    await model.reset();
    const fresh = await model.generate({ inputIds: prompt }, options);
    expect(model.past).toBe(fresh.outputIds.length - 1);
    // A step of the output's last id continues it: run()'s last row over the whole output, bit for bit.
    const last = fresh.outputIds.subarray(-1);
    const s = await model.step({ inputIds: last }, { returnLogits: true, returnAttention: false });
    expect(s.past).toBe(fresh.outputIds.length - 1);
    const whole = await model.run({ inputIds: fresh.outputIds }, { returnLogits: true, returnAttention: false });
    expect(same(s.logits, whole.logits.subarray((fresh.outputIds.length - 1) * V))).toBe(true);
    // What prefill() and step() built: a prefix of the prompt, and ids after it the prompt does not have.
    await model.prefill({ inputIds: prompt.slice(0, 4) });
    await model.step({ inputIds: [prompt[4], 7, 8] });
    const again = await model.generate({ inputIds: prompt }, { ...options, returnAttention: true });
    expect(Array.from(again.outputIds)).toEqual(Array.from(fresh.outputIds));
    expect(model.past).toBe(fresh.outputIds.length - 1);
    // Its attention is still run()'s over the ids it fed.
    const fed = again.outputIds.subarray(0, -1);
    expect(same(again.attention, (await model.run({ inputIds: fed })).attention)).toBe(true);
    // After a stream held the cache, generate() computes its prompt whole: the same ids.
    const stream = model.generateSteps({ inputIds: [5, 6, 7] }, { maxNewTokens: 3 });
    await stream.next();
    expect(Array.from((await model.generate({ inputIds: prompt }, options)).outputIds)).toEqual(
      Array.from(fresh.outputIds),
    );
    await stream.return();
    // A generation that fails leaves the cache empty.
    const abort = new AbortController();
    const failed = model.generate(
      { inputIds: prompt },
      { ...options, signal: abort.signal, onToken: () => abort.abort() },
    );
    await expect(failed).rejects.toThrow();
    expect(model.past).toBe(0);
    await model.reset();
  });

  test('a beam search over the one cache leaves its output in it, one sequence again: a step continues it', async () => {
    // The beams are the engine's cache made numBeams sequences (a step feeds one id each); after the search it is
    // one again, holding the output as greedy search leaves it.
    const model = models['hf-qwen2'];
    const V = model.config.vocabSize;
    const prompt = FIXTURE.beams.find((c) => c.model === 'hf-qwen2').inputIds;
    await model.reset();
    const found = await model.generate({ inputIds: prompt }, { numBeams: 3, maxNewTokens: 6, returnAttention: false });
    expect(model.past).toBe(found.outputIds.length - 1);
    const last = found.outputIds.subarray(-1);
    const s = await model.step({ inputIds: last }, { returnLogits: true, returnAttention: false });
    const whole = await model.run({ inputIds: found.outputIds }, { returnLogits: true, returnAttention: false });
    expect(same(s.logits, whole.logits.subarray((found.outputIds.length - 1) * V))).toBe(true);
    const again = await model.prefill({ inputIds: prompt.slice(0, 3) }, { returnLogits: true, returnAttention: false });
    expect(model.past).toBe(3);
    const head = await model.run({ inputIds: prompt.slice(0, 3) }, { returnLogits: true, returnAttention: false });
    expect(again.logits.length).toBe(head.logits.length);
    expect(same(again.logits, head.logits)).toBe(true);
    // A beam search that fails (here after its second step, the beams made) leaves the cache empty and one
    // sequence: a step after it starts a new one.
    const abort = new AbortController();
    let reports = 0;
    const failed = model.generate(
      { inputIds: prompt },
      {
        numBeams: 3,
        maxNewTokens: 6,
        minNewTokens: 6,
        returnAttention: false,
        signal: abort.signal,
        onToken: () => ++reports === 2 && abort.abort(),
      },
    );
    await expect(failed).rejects.toThrow();
    expect(model.past).toBe(0);
    const first = await model.step({ inputIds: prompt.slice(0, 3) }, { returnLogits: true, returnAttention: false });
    expect(same(first.logits, head.logits)).toBe(true);
    await model.reset();
  });
});

describe('refusals', () => {
  let engine, qwen, marian, bare, dir;
  beforeAll(async () => {
    engine = await createAttention({ variant: 'simd' });
    qwen = await engine.loadModel(MODELS + 'hf-qwen2');
    marian = await engine.loadModel(MODELS + 'hf-marian');
    // hf-qwen2 without its tokenizer's files.
    dir = mkdtempSync(path.join(os.tmpdir(), 'mha-no-tokenizer-'));
    for (const file of ['config.json', 'generation_config.json', 'model.safetensors'])
      copyFileSync(MODELS + 'hf-qwen2/' + file, path.join(dir, file));
    bare = await engine.loadModel(dir);
  });
  afterAll(() => {
    engine?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  test('beams where a step is one token, bad minP and stop strings are named', async () => {
    expect(() => qwen.generateSteps('毒', { numBeams: 2 })).toThrow(
      new TypeError(
        'numBeams: generateSteps() gives one token a step, not beams; generate() has beam search ' +
          '(model.generate(input, { numBeams: number 2 }))',
      ),
    );
    for (const model of [qwen, marian]) {
      await expect(model.generate('毒', { minP: 1.5 })).rejects.toThrow(
        new RangeError('minP: expected a number in [0, 1], got number 1.5'),
      );
      await expect(model.generate('毒', { stopStrings: [''] })).rejects.toThrow(
        /^stopStrings: expected a non-empty string or an array of non-empty strings/,
      );
      await expect(model.generate('毒', { numBeams: 2, onStep: () => {} })).rejects.toThrow(
        /^onStep: a step of a beam search is 2 beams/,
      );
      await expect(model.generate('毒', { numBeams: 2, doSample: true })).rejects.toThrow(
        /^doSample: sampling with beams/,
      );
    }
    // MarianMT's generation_config.json says num_beams 4: sampling needs numBeams 1, and the message says why.
    await expect(marian.generate('毒', { doSample: true })).rejects.toThrow(
      new TypeError(
        'doSample: sampling with beams (beam-search multinomial) is not supported (numBeams 4, from ' +
          'generation_config.json); give numBeams: 1',
      ),
    );
    await expect(bare.generate({ inputIds: [5, 6] }, { stopStrings: 'x' })).rejects.toThrow(
      /^stopStrings: this qwen2 has no tokenizer/,
    );
  });
});
