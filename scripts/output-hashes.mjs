// Prints one sha256 per output of the test fixtures, computed by today's
// dist/ builds: every attention fixture (tests/fixtures/*.json, with and
// without the weights returned) and every case of every model fixture
// (tests/fixtures/models/* with `cases`: the encoder-decoders' references,
// Marian's, have none), and seeded random calls large enough for the threads
// and the key tiles, on every build, on 1 and 3 threads (the relaxed-SIMD
// builds only where this Node runs them: Node 20 with
// --experimental-wasm-relaxed-simd). A refactor
// that must keep every result bit for bit runs it before and after and diffs
// the two listings (`node scripts/output-hashes.mjs > before.txt`).
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../src/js/node.mjs';
import { hasRelaxedSimd } from '../src/js/variants.mjs';
import { randomCase } from '../tests/js/helpers/random.mjs';

const FIXTURES = fileURLToPath(new URL('../tests/fixtures/', import.meta.url));
const MODELS = path.join(FIXTURES, 'models');

const hash = (array) =>
  createHash('sha256')
    .update(new Uint8Array(array.buffer, array.byteOffset, array.byteLength))
    .digest('hex')
    .slice(0, 16);

function attentionArguments(fx, returnAttention) {
  const args = { returnAttention };
  for (const k of ['batch', 'seqLenQ', 'seqLenK', 'dModel', 'numHeads', 'dK', 'dV', 'causal']) args[k] = fx[k];
  for (const k of ['query', 'key', 'value', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO'])
    args[k] = fx[k] === null || fx[k] === undefined ? undefined : Float32Array.from(fx[k]);
  if (fx.keyPaddingMask) args.keyPaddingMask = Uint8Array.from(fx.keyPaddingMask);
  return args;
}

const attentionFixtures = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json'))
  .sort();
const modelFolders = readdirSync(MODELS, { withFileTypes: true })
  .filter((e) => e.isDirectory() && readdirSync(path.join(MODELS, e.name)).includes('reference.json'))
  .map((e) => e.name)
  .sort();

const RANDOM = [
  { batch: 2, seqLenQ: 300, dModel: 64, numHeads: 4, causal: true, bias: true, padding: 0.1 },
  { seqLenQ: 200, seqLenK: 333, dModel: 48, numHeads: 3, bias: true },
  { seqLenQ: 257, dModel: 96, numHeads: 6, causal: true, self: true },
];

const RUNS = [
  ['scalar', 1],
  ['simd', 1],
  ['threaded-simd', 1],
  ['threaded-simd', 3],
];
if (hasRelaxedSimd()) RUNS.push(['relaxed-simd', 1], ['threaded-relaxed-simd', 1], ['threaded-relaxed-simd', 3]);

for (const [variant, threads] of RUNS) {
  const engine = await createAttention({ variant, threads });
  const label = `${variant}/${threads}`;
  for (const file of attentionFixtures) {
    const fx = JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8'));
    for (const returnAttention of [true, false]) {
      const r = await engine.multiHeadAttention(attentionArguments(fx, returnAttention));
      console.log(`${label} ${file} output${returnAttention ? '' : ' (fused)'} ${hash(r.output)}`);
      if (returnAttention) console.log(`${label} ${file} attention ${hash(r.attention)}`);
    }
  }
  for (const [seed, config] of RANDOM.entries()) {
    for (const returnAttention of [true, false]) {
      const r = await engine.multiHeadAttention({ ...randomCase(seed + 1, config), returnAttention });
      const what = `random ${JSON.stringify(config)}`;
      console.log(`${label} ${what} output${returnAttention ? '' : ' (fused)'} ${hash(r.output)}`);
      if (returnAttention) console.log(`${label} ${what} attention ${hash(r.attention)}`);
    }
  }
  for (const name of modelFolders) {
    const ref = JSON.parse(readFileSync(path.join(MODELS, name, 'reference.json'), 'utf8'));
    if (!ref.cases) continue;
    const model = await engine.loadModel(path.join(MODELS, name));
    for (const c of ref.cases) {
      const r = await model.run(c.input, { returnAttention: true, returnHiddenStates: true });
      for (const key of ['lastHiddenState', 'hiddenStates', 'attention'])
        console.log(`${label} ${name}/${c.name} ${key} ${hash(r[key])}`);
    }
    model.dispose();
  }
  engine.dispose();
}
