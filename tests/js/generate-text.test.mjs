// A generation's text, in Node on one build: result.text is the whole output
// decoded minus the decoded prompt (transformers' text-generation pipeline,
// tests/fixtures/text/generated.json), so a SentencePiece word keeps its space
// ("The cat" + " and", not "and"); each step's textDelta (onToken, onStep,
// generateSteps) joined is that text, for decoders and for a translation; a
// beam search's reports carry none. The deltas themselves are checked against
// transformers' decoding in text-stream.test.mjs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const GENERATED = JSON.parse(
  readFileSync(new URL('../fixtures/text/generated.json', import.meta.url), 'utf8'),
).generate;
const reference = (name) => JSON.parse(readFileSync(`${MODELS}${name}/reference.json`, 'utf8'));
const DECODERS = ['hf-gpt2-lm', 'hf-llama', 'hf-qwen2'];

let engine;
const models = {};
beforeAll(async () => {
  engine = await createAttention({ variant: 'simd', threads: 1 });
  for (const name of [...DECODERS, 'hf-marian']) models[name] = await engine.loadModel(`${MODELS}${name}`);
});
afterAll(() => engine?.dispose());

describe.each(DECODERS)('%s', (name) => {
  test('result.text: the decoded output after the decoded prompt, as transformers’ pipeline', async () => {
    const model = models[name];
    for (const g of reference(name).generate.slice(0, 3)) {
      const out = await model.generate(g.text, { maxNewTokens: 10, returnAttention: false });
      const whole = await model.decode(out.outputIds);
      const prompt = await model.decode(out.inputIds);
      expect(prompt + out.text).toBe(whole);
      const ref = GENERATED[name].find((c) => c.name === g.name);
      expect(prompt).toBe(ref.promptText);
    }
  });

  test('onToken, onStep and generateSteps: the deltas joined are result.text', async () => {
    const model = models[name];
    const g = reference(name).generate.find((c) => c.name === 'max_new_tokens_20') ?? reference(name).generate[0];
    const tokens = [];
    const steps = [];
    const out = await model.generate(g.text, {
      maxNewTokens: 20,
      returnAttention: false,
      onToken: (r) => tokens.push(r.textDelta),
      onStep: (s) => steps.push(s.textDelta),
    });
    expect(tokens).toHaveLength(out.outputIds.length - out.inputIds.length);
    expect(tokens.join('')).toBe(out.text);
    expect(steps).toEqual(tokens);
    const streamed = [];
    for await (const s of model.generateSteps(g.text, { maxNewTokens: 20, returnAttention: false }))
      streamed.push(s.textDelta);
    expect(streamed).toEqual(tokens);
  });
});

test('Llama: a word keeps its space ("The cat" + " and …"), not "The catand"', async () => {
  const model = models['hf-llama'];
  const out = await model.generate('The cat', { maxNewTokens: 12, returnAttention: false });
  const whole = await model.decode(out.outputIds);
  expect(`The cat${out.text}`).toBe(whole);
});

test('a translation: greedy steps carry textDelta, joined the translation; beams carry none', async () => {
  const model = models['hf-marian'];
  const g = reference('hf-marian').generate[0];
  const deltas = [];
  const reported = [];
  const out = await model.generate(g.text, {
    numBeams: 1,
    onStep: (s) => deltas.push(s.textDelta),
    onToken: (r) => reported.push(r.textDelta),
  });
  expect(deltas.join('')).toBe(out.text);
  expect(reported).toEqual(deltas);
  expect(deltas).toHaveLength(out.outputIds.length - 1);
  const reports = [];
  await model.generate(g.text, { numBeams: 2, maxNewTokens: 5, onToken: (r) => reports.push(r) });
  expect(reports.length).toBeGreaterThan(0);
  for (const r of reports) expect(r.textDelta).toBeUndefined();
});
