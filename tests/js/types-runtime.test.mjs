// The TypeScript declarations and the runtime agree: every call below is
// written once as data, turned into a TypeScript program (one exported
// function per call), compiled by tsc against src/js/index.d.ts with
// --strict, then transpiled and run against a real engine. A refused call
// carries `// @ts-expect-error`, so tsc fails if the declarations accept it
// ("Unused '@ts-expect-error' directive"), and the engine must refuse it with
// a TypeError naming the argument; an accepted call must compile cleanly and
// resolve. The extra-argument refusals are the ones the error tables test
// (helpers/bad-inputs.mjs), plus PyTorch's names and the fixtures' own
// result names, which are not arguments.
import { createAttention } from '../../src/js/node.mjs';
import { CALL_BAD, FORWARD_BAD, LAYER_BAD, activations, fx, weights } from './helpers/bad-inputs.mjs';
import { compileAndImport, errorsByCase } from './helpers/typescript.mjs';
const unknownName = ([, , , pattern]) => /unknown argument/.test(String(pattern));

// [label, call, extra arguments, refused?]; call: the method the arguments go to.
const CASES = [
  ['self-attention, the minimal call', 'multiHeadAttention', {}, false],
  ['a layer with every weight', 'createLayer', {}, false],
  ['forward with an output array', 'forward', { output: new Float32Array(2 * 3 * 12) }, false],
  ['createAttention with a variant', 'createAttention', { variant: 'simd' }, false],
  ...CALL_BAD.filter(unknownName).map(([label, extra]) => [label, 'multiHeadAttention', extra, true]),
  ...['num_heads', 'need_weights', 'attn_mask', 'embed_dim', 'key_padding_mask', 'is_causal', 'mask', 'numhead'].map(
    (name) => [`PyTorch's or a misspelled name ${name}`, 'multiHeadAttention', { [name]: 1 }, true],
  ),
  ...['output', 'attention'].map((name) => [
    `the fixtures' result name ${name}`,
    'multiHeadAttention',
    { [name]: new Float32Array(4) },
    true,
  ]),
  ...LAYER_BAD.filter(unknownName).map(([label, extra]) => [label, 'createLayer', extra, true]),
  ...FORWARD_BAD.filter(unknownName).map(([label, extra]) => [label, 'forward', extra, true]),
  ['an unknown option varient', 'createAttention', { varient: 'simd' }, true],
  ['an unknown option thread', 'createAttention', { thread: 2 }, true],
];

/** A TypeScript expression of the same type as a case's value. */
function tsValue(value) {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (ArrayBuffer.isView(value)) return `new ${value.constructor.name}(${value.length})`;
  throw new Error(`no TypeScript form for ${value}`);
}

const BASES = {
  multiHeadAttention: (extra) => `engine.multiHeadAttention({ ...args, ${extra} })`,
  createLayer: (extra) => `engine.createLayer({ ...layerArgs, ${extra} })`,
  forward: (extra) => `layer.forward({ ...forwardArgs, ${extra} })`,
  createAttention: (extra) => `create({ ${extra} })`,
};

function program() {
  const lines = [
    "import type { AttentionEngine, AttentionLayer, ForwardArgs, LayerArgs, MultiHeadAttentionArgs } from 'mha-wasm';",
    "type Create = typeof import('mha-wasm').createAttention;",
    'type Inputs = { engine: AttentionEngine; layer: AttentionLayer; create: Create;',
    '  args: MultiHeadAttentionArgs; layerArgs: LayerArgs; forwardArgs: ForwardArgs };',
  ];
  const where = []; // the line of each case's call
  CASES.forEach(([label, call, extra, refused], i) => {
    const fields = Object.entries(extra)
      .map(([name, value]) => `${name}: ${tsValue(value)}`)
      .join(', ');
    lines.push(`// ${label}`);
    lines.push(`export async function case${i}({ engine, layer, create, args, layerArgs, forwardArgs }: Inputs) {`);
    lines.push('  void engine, layer, create, args, layerArgs, forwardArgs;');
    if (refused) lines.push('  // @ts-expect-error the engine refuses this argument');
    where[i] = lines.length + 1;
    lines.push(`  return ${BASES[call](fields)};`);
    lines.push('}');
  });
  return { source: `${lines.join('\n')}\n`, where };
}

let engine, layer, compiled, tscOutput, where;

beforeAll(async () => {
  const made = program();
  where = made.where;
  ({ tscOutput, module: compiled } = await compileAndImport('types-runtime', made.source));
  engine = await createAttention({ variant: 'simd' });
  layer = await engine.createLayer(weights());
}, 120_000);

afterAll(() => engine?.dispose());

test('tsc --strict accepts every accepted call and refuses every refused one (no error left, no directive unused)', () => {
  const lines = errorsByCase(
    tscOutput,
    where,
    CASES.map(([label]) => label),
  );
  expect(lines).toEqual([]);
  expect(tscOutput).toBe('');
});

test.each(CASES.map((c, i) => [...c, i]))(
  '%s (%s): the engine refuses or accepts it as the types do',
  async (label, call, extra, refused, i) => {
    const inputs = {
      engine,
      layer,
      create: (options) => createAttention(options).then((e) => (e.dispose(), e)),
      args: fx.args,
      layerArgs: weights(),
      forwardArgs: activations(),
    };
    const run = compiled[`case${i}`](inputs);
    if (refused) {
      const name = Object.keys(extra)[0];
      await expect(run).rejects.toThrow(TypeError);
      await expect(run).rejects.toThrow(new RegExp(`unknown argument "${name}"`));
    } else {
      await expect(run).resolves.toBeDefined();
    }
  },
);
