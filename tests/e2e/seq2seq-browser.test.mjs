// An encoder-decoder (MarianMT) in headless Chromium, on every build: the
// tiny checkpoint transformers saved (tests/fixtures/models/hf-marian) given
// to engine.loadModel as files in the demo page; the teacher-forced run and
// generate() (greedy and beam search) give transformers' ids, and every
// attention weight and logit bit for bit as Node's engine of the same build.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { openPage, setUp } from './page-helpers.mjs';

const FOLDER = fileURLToPath(new URL('../fixtures/models/hf-marian/', import.meta.url));
const reference = JSON.parse(readFileSync(path.join(FOLDER, 'reference.json'), 'utf8'));
const FILES = Object.fromEntries(
  readdirSync(FOLDER)
    .filter((name) => !name.endsWith('.json') || !['reference.json', 'tokenizer-cases.json'].includes(name))
    .map((name) => [name, readFileSync(path.join(FOLDER, name)).toString('base64')]),
);
const FORWARD = reference.forward[0];
const GREEDY = reference.generate.find((g) => g.name === 'greedy_eos');
const BEAM = reference.generate.find((g) => g.name === 'beam_all_returned');

let env, page, problems;
beforeAll(async () => {
  env = await setUp();
  ({ page, problems } = await openPage(env));
}, 60_000);
afterAll(async () => {
  await env?.close();
});

/** Node's results for a build, as the page returns them. */
async function inNode(variant) {
  const engine = await createAttention({ variant, threads: variant === 'threaded-simd' ? 2 : 1 });
  try {
    const model = await engine.loadModel(FOLDER);
    return await translateAll(model);
  } finally {
    engine.dispose();
  }
}

// The same calls in Node and (as its source, below) in the page.
async function translateAll(model) {
  const r = await model.run(
    { inputIds: FORWARD.inputIds, decoderInputIds: FORWARD.decoderInputIds },
    { returnLogits: true },
  );
  const greedy = await model.generate({ inputIds: GREEDY.inputIds }, { maxNewTokens: 19, numBeams: 1 });
  const beam = await model.generate({ inputIds: BEAM.inputIds }, { numBeams: 4, numReturnSequences: 4 });
  const out = (a) => Array.from(a);
  return {
    kind: model.config.kind,
    encoderAttention: out(r.encoderAttention),
    decoderAttention: out(r.decoderAttention),
    crossAttention: out(r.crossAttention),
    logits: out(r.logits),
    greedy: out(greedy.outputIds),
    greedyCross: out(greedy.crossAttention),
    beams: beam.candidates.map((c) => out(c.outputIds)),
    beamScore: beam.score,
  };
}

test.each(['threaded-simd', 'simd', 'scalar'])(
  '%s: run() and generate() in Chromium are Node’s bit for bit, with transformers’ ids',
  async (variant) => {
    const browser = await page.evaluate(
      async ({ files, variant, forward, greedyIds, beamIds }) => {
        const { createAttention } = await import('/src/js/model-entry.mjs');
        const engine = await createAttention({ variant, threads: variant === 'threaded-simd' ? 2 : 1 });
        try {
          const bytes = Object.fromEntries(
            Object.entries(files).map(([name, b64]) => [name, Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))]),
          );
          const model = await engine.loadModel(bytes);
          const r = await model.run(
            { inputIds: forward.inputIds, decoderInputIds: forward.decoderInputIds },
            { returnLogits: true },
          );
          const greedy = await model.generate({ inputIds: greedyIds }, { maxNewTokens: 19, numBeams: 1 });
          const beam = await model.generate({ inputIds: beamIds }, { numBeams: 4, numReturnSequences: 4 });
          const out = (a) => Array.from(a);
          return {
            variant: engine.variant,
            result: {
              kind: model.config.kind,
              encoderAttention: out(r.encoderAttention),
              decoderAttention: out(r.decoderAttention),
              crossAttention: out(r.crossAttention),
              logits: out(r.logits),
              greedy: out(greedy.outputIds),
              greedyCross: out(greedy.crossAttention),
              beams: beam.candidates.map((c) => out(c.outputIds)),
              beamScore: beam.score,
            },
          };
        } catch (error) {
          return { error: `${error.name}: ${error.message}` };
        } finally {
          engine.dispose();
        }
      },
      { files: FILES, variant, forward: FORWARD, greedyIds: GREEDY.inputIds, beamIds: BEAM.inputIds },
    );
    expect(browser.error).toBeUndefined();
    expect(browser.variant).toBe(variant);
    const node = await inNode(variant);
    expect(browser.result.greedy).toEqual(GREEDY.sequence);
    expect(browser.result.beams).toEqual(BEAM.sequences);
    // Every float the same bits (JSON carries doubles exactly; -0 and 0 are the same weight here).
    expect(browser.result).toEqual(node);
    expect(problems).toEqual([]);
  },
  60_000,
);
