// The harness of bench/llama.mjs (mha-wasm against wllama, llama.cpp's own
// wasm build, in Chromium), on its --quick shape: the Q4_K_M file it writes
// (bench/gguf-checkpoint.mjs: llama-quantize's mix, so Q4_K, Q6_K, Q5_0, Q8_0
// and F32 tensors in one file) loads in both engines from the same File, both
// tokenize the sentence into its 15 ids (mha-wasm's own ids; llama.cpp's
// count, as wllama reports it), and both decide the same greedy ids. Not a
// timing test: one sample, one thread, 8 tokens; the figures are only
// checked to be there.
import { llamaBench } from '../../bench/llama.mjs';

const NEW_TOKENS = 8;

test('bench/llama.mjs --quick: mha-wasm and wllama load the same GGUF file and decide the same greedy ids', async () => {
  const { result, report } = await llamaBench({
    quick: true,
    types: ['Q4_K_M'],
    threads: [1],
    samples: 1,
    newTokens: NEW_TOKENS,
    log: () => {},
    // Each run takes a few seconds; one that hangs is reported with the step its page was at.
    runTimeoutMs: 120_000,
  });
  const [file] = result.files;
  expect(file.tensorTypes).toEqual({ Q8_0: 2, F32: 11, Q5_0: 11, Q4_K: 1, Q6_K: 1 });
  const failed = file.runs.filter((r) => r.failed).map((r) => `${r.engine}: ${r.failed}`);
  expect(failed).toEqual([]);
  const [check] = file.checks;
  expect(check.tokenizerSame).toBe(true);
  expect(check.peerPromptTokens).toBe(15);
  expect(check.oursIds).toHaveLength(NEW_TOKENS);
  expect(check.peerIds).toHaveLength(NEW_TOKENS);
  for (const id of [...check.oursIds, ...check.peerIds]) expect(id >= 0 && id < result.config.vocab_size).toBe(true);
  // The same file, the same greedy path (seeded weights: this holds for these bytes on both engines).
  expect(check.peerIds).toEqual(check.oursIds);
  const ours = file.runs.find((r) => r.engine === 'mha-wasm');
  expect(ours.sameIdsWithAttention).toBe(true);
  for (const f of [ours.figures.attention, ours.figures.none, file.runs.find((r) => r.engine === 'wllama').figures])
    expect(f.prefillMs > 0 && Number.isFinite(f.perTokenMs)).toBe(true);
  expect(report).toMatch(/\| Q4_K_M \| 1 \| wllama \|/);
  expect(report).toMatch(/\| Q4_K_M \| 1 \| mha-wasm, every attention returned/);
}, 600_000);
