// The declarations of a model's kind and the runtime agree (types by kind, src/js/types/models.d.ts,
// results.d.ts, generation.d.ts): each case below is one expression on an encoder (hf-bert-mlm), a decoder
// (hf-gpt2-lm) or an encoder-decoder (hf-marian), written into a TypeScript program, compiled by tsc --strict
// against the package's declarations, then run on the loaded model. 'present': the type says the field is
// there (assigned to a non-optional type) and the run returns it; 'absent': the type has no such field
// (`// @ts-expect-error`) and the run returns none; 'refused': the call does not compile and the runtime
// rejects it with a TypeError.
import { createAttention } from '../../src/js/node.mjs';
import { folder } from './helpers/checkpoints.mjs';
import { compileAndImport, errorsByCase } from './helpers/typescript.mjs';

const MODELS = { encoder: 'hf-bert-mlm', decoder: 'hf-gpt2-lm', 'encoder-decoder': 'hf-marian' };
const TYPES = { encoder: 'EncoderModel', decoder: 'DecoderModel', 'encoder-decoder': 'EncoderDecoderModel' };

// [kind, expression on the model `m` (awaited), 'present' with its TypeScript type | 'absent' | 'refused'].
const CASES = [
  ['encoder', "(await m.run('用[MASK]')).attention", 'present', 'Float32Array'],
  ['encoder', "(await m.run('用[MASK]')).attentions.encoder.data", 'present', 'Float32Array'],
  ['encoder', "(await m.run('用[MASK]')).logits", 'absent'],
  ['encoder', "(await m.run('用[MASK]', { returnLogits: true })).logits", 'present', 'Float32Array'],
  ['encoder', "(await m.run('用[MASK]', { returnAttention: false })).attention", 'absent'],
  ['encoder', "(await m.run('用', { returnQueryKey: true })).queryKeyScale", 'present', 'number'],
  [
    'encoder',
    "(await m.run('用', { returnHeadOutputs: true })).headOutputs.encoder.valueNorms.data",
    'present',
    'Float32Array',
  ],
  [
    'encoder',
    "(await m.run('用', { headMask: [new Uint8Array([1, 0, 1, 1]), [true, true, false, true]] })).attention",
    'present',
    'Float32Array',
  ],
  ['encoder', "await m.prefill('用')", 'refused'],
  ['encoder', "await m.generate('用')", 'refused'],
  ['decoder', "(await m.run('用毒')).attentions.decoder.data", 'present', 'Float32Array'],
  ['decoder', "(await m.run('用毒')).attentions.encoder", 'absent'],
  ['decoder', '(await m.run({ inputIds: [1, 2], tokenTypeIds: [0, 0] })).attention', 'refused'],
  ['decoder', "(await m.prefill('用毒')).past", 'present', 'number'],
  ['decoder', "(await m.step('毒', { returnLogits: true })).logits", 'present', 'Float32Array'],
  ['decoder', "await m.step('毒', { returnQueryKey: true })", 'refused'],
  ['decoder', "(await m.generate('用毒', { maxNewTokens: 2 })).attention", 'absent'],
  [
    'decoder',
    "(await m.generate('用毒', { maxNewTokens: 2, returnAttention: true })).attention",
    'present',
    'Float32Array',
  ],
  ['decoder', "(await m.generate('用毒', { maxNewTokens: 2 })).stepScores", 'present', 'Float64Array'],
  ['decoder', "(await m.generate('用毒', { maxNewTokens: 2 })).candidates.length", 'present', 'number'],
  [
    'decoder',
    "(await m.generate('用毒', { maxNewTokens: 2, numBeams: 2, numReturnSequences: 2 })).candidates[1]",
    'present',
    'Object',
  ],
  ['decoder', "(await m.generate('用毒', { maxNewTokens: 2, numBeams: 1 })).stepScores", 'present', 'Float64Array'],
  ['decoder', "m.generateSteps('用毒', { numBeams: 2 })", 'refused'],
  ['decoder', "(await m.generate('用毒', { maxNewTokens: 2, doSample: true })).seed", 'present', 'number'],
  ['decoder', "(await m.generate('用毒', { maxNewTokens: 2, doSample: false })).seed", 'absent'],
  ['decoder', "(await m.generate('用毒', { maxNewTokens: 2, returnAttention: false })).attentions", 'absent'],
  [
    'decoder',
    "(await m.generate('用毒', { maxNewTokens: 2, returnHiddenStates: true })).hiddenStates",
    'present',
    'Float32Array',
  ],
  [
    'decoder',
    "(await m.generateSteps('用毒', { maxNewTokens: 1 }).next()).value?.attention",
    'present',
    'Float32Array | undefined',
  ],
  ['encoder-decoder', "(await m.run('用毒')).crossAttention", 'present', 'Float32Array'],
  ['encoder-decoder', "(await m.run('用毒')).attentions.cross.data", 'present', 'Float32Array'],
  ['encoder-decoder', "(await m.run('用毒', { returnAttention: false })).crossAttention", 'absent'],
  ['encoder-decoder', "(await m.run('用毒', { returnLogits: true })).logits", 'present', 'Float32Array'],
  [
    'encoder-decoder',
    "(await m.run('用毒', { headMask: { cross: [new Uint8Array(4).fill(1), [1, 0, 1, 1]] } })).decoderAttention",
    'present',
    'Float32Array',
  ],
  ['encoder-decoder', "await m.run('用毒', { returnQueryKey: true })", 'refused'],
  [
    'encoder-decoder',
    "(await m.generate('用毒', { maxNewTokens: 2 })).candidates[0].outputIds",
    'present',
    'Int32Array',
  ],
  ['encoder-decoder', "(await m.generate('用毒', { maxNewTokens: 2 })).crossAttention", 'present', 'Float32Array'],
  ['encoder-decoder', "(await m.generate('用毒', { maxNewTokens: 2 })).decoderInputIds", 'present', 'Int32Array'],
  [
    'encoder-decoder',
    "(await m.generate('用毒', { maxNewTokens: 2, returnAttention: false })).decoderInputIds",
    'absent',
  ],
  [
    'encoder-decoder',
    "(await m.generate('用毒', { maxNewTokens: 2, returnAttention: false, returnHiddenStates: true })).decoderInputIds",
    'present',
    'Int32Array',
  ],
  ['encoder-decoder', "(await m.generate('用毒', { maxNewTokens: 2, doSample: false })).seed", 'absent'],
  [
    'encoder-decoder',
    "(await m.generate('用毒', { maxNewTokens: 2, doSample: true, numBeams: 1 })).seed",
    'present',
    'number',
  ],
  ['encoder-decoder', "await m.generate({ text: '用毒', decoderInputIds: [233] })", 'refused'],
  ['encoder-decoder', "await m.step('毒')", 'refused'],
];

function program() {
  const lines = [`import type { ${Object.values(TYPES).join(', ')} } from 'mha-wasm/model';`];
  const where = []; // the line of each case's expression
  CASES.forEach(([kind, expression, expect, type], i) => {
    lines.push(`export async function case${i}(m: ${TYPES[kind]}) {`);
    if (expect !== 'present') lines.push('  // @ts-expect-error the runtime refuses it, or returns no such field');
    where[i] = lines.length + 1;
    lines.push(expect === 'present' ? `  const value: ${type} = ${expression};` : `  const value = ${expression};`);
    lines.push('  return value;');
    lines.push('}');
  });
  return { source: `${lines.join('\n')}\n`, where };
}

const labelOf = ([kind, expression, expect]) => `${kind}: ${expression} ${expect}`;
let engine, models, compiled, tscOutput, where;

beforeAll(async () => {
  const made = program();
  where = made.where;
  ({ tscOutput, module: compiled } = await compileAndImport('types-kinds-runtime', made.source));
  engine = await createAttention({ variant: 'simd' });
  models = {};
  for (const [kind, name] of Object.entries(MODELS)) models[kind] = await engine.loadModel(folder(name), { kind });
}, 120_000);

afterAll(() => engine?.dispose());

test('tsc --strict takes every present field and refuses every absent field and refused call', () => {
  expect(errorsByCase(tscOutput, where, CASES.map(labelOf))).toEqual([]);
  expect(tscOutput).toBe('');
});

test.each(CASES.map((c, i) => [labelOf(c), i]))('%s: so does the runtime', async (label, i) => {
  const [kind, , expect_, type] = CASES[i];
  const model = models[kind];
  const run = compiled[`case${i}`](model);
  if (expect_ === 'refused') {
    await expect(run).rejects.toThrow(TypeError);
  } else {
    const value = await run;
    if (expect_ === 'absent') expect(value).toBeUndefined();
    else if (type === 'number') expect(typeof value).toBe('number');
    else expect(value).toBeInstanceOf(globalThis[type.split(' ')[0]]);
  }
  await model.reset();
});
