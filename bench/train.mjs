// Training speed: the tagger of the page's "Train it yourself" view (its
// width, batch size, MLP width and training set, Adam) trained by mha-wasm's
// engine, against the same model in TensorFlow.js on its WebAssembly backend
// with its autograd (tf.train.adam.minimize): the runtime a JS developer would
// otherwise train with. Before timing, both models are given the same
// parameters and must agree on the loss of the same sentences.
//
// The sizes, the data and the position code come from the page's modules
// (web/model/): corpus.mjs is the project's one generator of the toy grammar,
// so the benchmark trains on exactly the sentences the page trains on.
//
// Prints one JSON object on stdout. Run by bench.mjs; alone:
//   node bench/train.mjs [--quick]
import { createRequire } from 'node:module';
import path from 'node:path';
import { createAttention } from '../src/js/node.mjs';
import { generateCorpus, vocabulary, tagSet, MAX_LENGTH } from '../web/model/corpus.mjs';
import { TRAIN_CORPUS, encodeSentence } from '../web/model/train-data.mjs';
import { D_MODEL as D, BATCH_SIZE as BATCH, MLP_HIDDEN } from '../web/model/train-options.mjs';
import { positionCodes } from '../web/model/positions.mjs';

const require = createRequire(import.meta.url);
const quick = process.argv.includes('--quick');
const STEPS = quick ? 150 : 1500;

const corpus = generateCorpus(TRAIN_CORPUS).map(encodeSentence);

// ---- the same model in TensorFlow.js ----------------------------------------
// The union package: tfjs-core alone registers no gradient functions.
const tf = require('@tensorflow/tfjs');
const tfWasm = require('@tensorflow/tfjs-backend-wasm');
tfWasm.setWasmPaths(
  path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm')) + path.sep,
);
await tf.setBackend('wasm');
await tf.ready();

/** Sentences padded to the longest: token ids, tags (-1 = none), a 0/1 mask of real tokens. */
function batchTensors(sentences) {
  const B = sentences.length;
  const L = Math.max(...sentences.map((s) => s.tokens.length));
  const tokens = new Int32Array(B * L);
  const tags = new Int32Array(B * L).fill(-1);
  const real = new Float32Array(B * L);
  sentences.forEach((s, b) =>
    s.tokens.forEach((t, i) => {
      tokens[b * L + i] = t;
      tags[b * L + i] = s.tags[i];
      real[b * L + i] = 1;
    }),
  );
  return { B, L, tokens, tags, real };
}

function tfModel(params, numHeads, mlpHidden) {
  const v = Object.fromEntries(Object.entries(params).map(([k, x]) => [k, tf.variable(tf.tensor(x), true, k)]));
  const shape = (name, rows, cols) => tf.reshape(v[name], [rows, cols]);
  const dk = D / numHeads;
  const positions = positionCodes(MAX_LENGTH, D);
  const loss = ({ B, L, tokens, tags, real }) => {
    const mask = tf.tensor(real, [B * L, 1]);
    // The lookup as one-hot · E: the gradient of tf.gather needs UnsortedSegmentSum, which the wasm backend lacks.
    const lookup = tf.matMul(
      tf.oneHot(tf.tensor1d(tokens, 'int32'), vocabulary.length),
      shape('embedding', vocabulary.length, D),
    );
    const x = tf.mul(
      tf.add(tf.reshape(lookup, [B, L, D]), tf.tensor(positions.subarray(0, L * D), [1, L, D])),
      tf.reshape(mask, [B, L, 1]),
    );
    const rows = tf.reshape(x, [B * L, D]);
    const project = (w, b) =>
      tf.transpose(tf.reshape(tf.add(tf.matMul(rows, shape(w, D, D)), v[b]), [B, L, numHeads, dk]), [0, 2, 1, 3]);
    const q = project('wQ', 'bQ');
    const k = project('wK', 'bK');
    const val = project('wV', 'bV');
    const keyBias = tf.reshape(tf.mul(tf.sub(tf.tensor(real, [B, L]), 1), 1e9), [B, 1, 1, L]);
    const weights = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dk)), keyBias));
    const heads = tf.reshape(tf.transpose(tf.matMul(weights, val), [0, 2, 1, 3]), [B * L, D]);
    let h = tf.add(rows, tf.add(tf.matMul(heads, shape('wO', D, D)), v.bO));
    if (mlpHidden)
      h = tf.add(
        h,
        tf.add(
          tf.matMul(tf.relu(tf.add(tf.matMul(h, shape('w1', D, mlpHidden)), v.b1)), shape('w2', mlpHidden, D)),
          v.b2,
        ),
      );
    const logits = tf.add(tf.matMul(h, shape('wC', D, tagSet.length)), v.bC);
    const tagged = tf.tensor(
      Float32Array.from(tags, (t) => (t >= 0 ? 1 : 0)),
      [B * L],
    );
    const target = tf.oneHot(
      tf.tensor1d(
        Int32Array.from(tags, (t) => Math.max(t, 0)),
        'int32',
      ),
      tagSet.length,
    );
    const perToken = tf.neg(tf.sum(tf.mul(target, tf.logSoftmax(logits)), 1));
    return tf.div(tf.sum(tf.mul(perToken, tagged)), tf.sum(tagged));
  };
  return { variables: Object.values(v), loss };
}

// ---- one configuration --------------------------------------------------------
async function measure(numHeads, mlpHidden) {
  const options = {
    vocabSize: vocabulary.length,
    numTags: tagSet.length,
    maxLength: MAX_LENGTH,
    dModel: D,
    numHeads,
    mlpHidden,
    seed: 1,
  };
  const row = { numHeads, mlpHidden, batch: BATCH, steps: STEPS };

  // mha-wasm, 1 thread (simd build) and 2 threads (threaded-simd); each
  // timing is STEPS steps in one train() call, best of three runs.
  for (const threads of [1, 2]) {
    const engine = await createAttention(
      threads === 1 ? { variant: 'simd', training: true } : { variant: 'threaded-simd', threads, training: true },
    );
    const times = [];
    for (let run = 0; run < 3; run++) {
      const trainer = await engine.createTrainer(options);
      await trainer.setData({ sentences: corpus });
      await trainer.train({ steps: 20 }); // warm-up
      const t0 = performance.now();
      await trainer.train({ steps: STEPS, batchSize: BATCH });
      times.push(performance.now() - t0);
      trainer.dispose();
    }
    row[`mhaX${threads}`] = {
      stepsPerSecond: STEPS / (Math.min(...times) / 1000),
      msFor1500Steps: (Math.min(...times) / STEPS) * 1500,
      runsMs: times,
    };
    engine.dispose();
  }

  // TensorFlow.js: the same initial parameters, checked on the same sentences.
  const engine = await createAttention({ variant: 'simd', training: true });
  const trainer = await engine.createTrainer(options);
  const params = await trainer.parameters();
  const check = corpus.slice(0, 64);
  const { loss: ours } = await trainer.evaluate({ sentences: check });
  trainer.dispose();
  engine.dispose();
  const model = tfModel(params, numHeads, mlpHidden);
  const theirs = tf.tidy(() => model.loss(batchTensors(check)).dataSync()[0]);
  row.lossCheck = { mhaWasm: ours, tfjs: theirs, relativeDifference: Math.abs(ours - theirs) / Math.abs(ours) };
  if (!(row.lossCheck.relativeDifference < 1e-4))
    throw new Error(`tfjs model disagrees with mha-wasm: loss ${theirs} vs ${ours}`);

  const optimizer = tf.train.adam(0.01, 0.9, 0.999, 1e-8);
  let next = 0;
  const batch = () => batchTensors(Array.from({ length: BATCH }, () => corpus[next++ % corpus.length]));
  const step = () => tf.tidy(() => optimizer.minimize(() => model.loss(batch()), false, model.variables));
  for (let i = 0; i < 20; i++) step(); // warm-up
  const tfSteps = Math.max(50, Math.round(STEPS / 5));
  const times = [];
  for (let run = 0; run < 3; run++) {
    const t0 = performance.now();
    for (let i = 0; i < tfSteps; i++) step();
    tf.tidy(() => model.loss(batch()).dataSync()); // everything before has run
    times.push(performance.now() - t0);
  }
  row.tfjs = {
    stepsPerSecond: tfSteps / (Math.min(...times) / 1000),
    msFor1500Steps: (Math.min(...times) / tfSteps) * 1500,
    steps: tfSteps,
    runsMs: times,
  };
  optimizer.dispose();
  for (const variable of model.variables) variable.dispose();
  row.ratioX1 = row.mhaX1.stepsPerSecond / row.tfjs.stepsPerSecond;
  row.ratioX2 = row.mhaX2.stepsPerSecond / row.tfjs.stepsPerSecond;
  return row;
}

const rows = [];
for (const [numHeads, mlpHidden] of [
  [1, 0],
  [2, 0],
  [2, MLP_HIDDEN],
])
  rows.push(await measure(numHeads, mlpHidden));
console.log(JSON.stringify({ tfjs: require('@tensorflow/tfjs-backend-wasm/package.json').version, rows }));
process.exit(0);
