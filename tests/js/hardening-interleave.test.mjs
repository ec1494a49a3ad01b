// After any error, the next valid call is right: 1,000 seeded calls on one
// engine, about half of them invalid in one of the ways the README's error
// table lists (wrong type, length or value of any argument, detached buffers,
// unknown names, a call the bindings refuse as too large for the memory), the
// others valid with random shapes and options, one-shot and through layers.
// Every invalid call must reject with the right error class naming the right
// argument; every valid result is checked against the float64 reference.
import { createAttention } from '../../src/js/node.mjs';
import { BUILDS } from './helpers/engines.mjs';
import { mulberry32, randomCase } from './helpers/random.mjs';
import { referenceAttention } from './helpers/reference.mjs';
import { compareClose, toleranceFor } from './helpers/compare.mjs';
import { LAYER, FORWARD, pick } from './helpers/arguments.mjs';

const CALLS = 1000;
const ARRAYS = ['query', 'key', 'value', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO', 'keyPaddingMask'];
const DIMS = ['batch', 'seqLenQ', 'seqLenK', 'dModel', 'numHeads', 'dK', 'dV'];
const FLAGS = ['causal', 'returnAttention', 'returnProjections'];
const BAD_DIM_VALUES = [0, -3, 2.5, NaN, Infinity, 2 ** 31, '2', 2n, null];
const TYPOS = {
  numhead: 2,
  seqlenQ: 3,
  dmodel: 8,
  Causal: true,
  keymask: new Uint8Array(1),
  returnattention: true,
  heads: 2,
};
const detached = (a) => {
  const copy = a.slice();
  structuredClone(copy.buffer, { transfer: [copy.buffer] });
  return copy;
};

/** A seeded stream of calls: { kind, args, expect: null (valid) or [class, message start] }. */
function* calls(seed, layerCases) {
  const u = mulberry32(seed);
  const int = (n) => Math.floor(u() * n);
  const choose = (list) => list[int(list.length)];
  const validCall = (k) => {
    // Either heads of width dModel / numHeads (dK and dV left out) or any dModel, dK, dV.
    const numHeads = 1 + int(3),
      split = u() < 0.5;
    const dK = 1 + int(5),
      dV = split ? dK : 1 + int(5);
    const dModel = split ? numHeads * dK : 1 + int(12);
    const seqLenQ = 1 + int(9),
      self = u() < 0.3;
    const args = randomCase(seed * 10_000 + k, {
      batch: 1 + int(3),
      seqLenQ,
      seqLenK: self ? seqLenQ : 1 + int(9),
      dModel,
      numHeads,
      dK,
      dV,
      self,
      causal: u() < 0.4,
      bias: u() < 0.5,
      padding: u() < 0.4 ? 0.3 : undefined,
    });
    if (split) {
      delete args.dK;
      delete args.dV;
    }
    if (self) {
      delete args.key;
      delete args.value;
    }
    args.returnAttention = u() < 0.6;
    args.returnProjections = u() < 0.1;
    return args;
  };

  for (let k = 0; k < CALLS; k++) {
    const viaLayer = u() < 0.3;
    const layer = int(layerCases.length);
    let args = viaLayer
      ? { ...validCall(k), ...Object.fromEntries(LAYER.map((n) => [n, layerCases[layer][n]])) }
      : validCall(k);
    if (viaLayer) {
      // Activations of the layer's width.
      const again = randomCase(seed * 10_000 + k, {
        ...pick(args, ['batch', 'seqLenQ', 'seqLenK', 'causal']),
        dModel: args.dModel,
        numHeads: args.numHeads,
        dK: args.dK,
        dV: args.dV,
        padding: args.keyPaddingMask ? 0.3 : undefined,
      });
      args = { ...args, query: again.query, key: again.key, value: again.value, keyPaddingMask: again.keyPaddingMask };
    }
    const kind = viaLayer ? 'forward' : 'call';
    if (u() < 0.5) {
      yield { kind, layer, args, expect: null };
      continue;
    }
    // Invalid: one change to the valid call.
    const names = viaLayer ? ['query', 'key', 'value', 'keyPaddingMask'] : ARRAYS;
    const present = names.filter((n) => args[n] !== undefined);
    const bad = { ...args };
    let expected;
    switch (int(11)) {
      case 0: {
        const n = choose(present);
        bad[n] = new bad[n].constructor(bad[n].length + choose([-1, 1, 7]));
        expected = [RangeError, n];
        break;
      }
      case 1: {
        const n = choose(present);
        bad[n] = Array.from(bad[n]);
        expected = [TypeError, n];
        break;
      }
      case 2: {
        const n = choose(present);
        bad[n] = n === 'keyPaddingMask' ? Float32Array.from(bad[n]) : Float64Array.from(bad[n]);
        expected = [TypeError, n];
        break;
      }
      case 3: {
        const n = choose(present);
        bad[n] = detached(bad[n]);
        expected = [RangeError, n];
        break;
      }
      case 4: {
        const n = choose(viaLayer ? ['batch', 'seqLenQ', 'seqLenK'] : DIMS);
        // null means "left out", which is valid for a dimension with a default.
        const v = (
          BAD_DIM_VALUES.includes(null) && ['batch', 'seqLenK', 'dK', 'dV'].includes(n)
            ? BAD_DIM_VALUES.filter((x) => x !== null)
            : BAD_DIM_VALUES
        )[int(BAD_DIM_VALUES.length - 1)];
        bad[n] = v;
        expected = [typeof v === 'number' ? RangeError : TypeError, n];
        break;
      }
      case 5: {
        const [n, v] = choose(Object.entries(TYPOS));
        bad[n] = v;
        expected = [TypeError, viaLayer ? 'forward' : 'multiHeadAttention'];
        break;
      }
      case 6: {
        bad.keyPaddingMask = new Uint8Array(args.batch * args.seqLenK);
        bad.keyPaddingMask[int(bad.keyPaddingMask.length)] = 2 + int(254);
        expected = [RangeError, 'keyPaddingMask'];
        break;
      }
      case 7: {
        const n = choose(FLAGS);
        bad[n] = choose(['true', 1, 0, {}, new Boolean(true)]);
        expected = [TypeError, n];
        break;
      }
      case 8: {
        yield {
          kind,
          layer,
          args: choose([undefined, 42, 'query', [args.query]]),
          expect: [TypeError, viaLayer ? 'forward' : 'multiHeadAttention'],
        };
        continue;
      }
      case 9: {
        // Refused by the bindings before allocating: 24,000² weights per head (2.3 GB).
        bad.seqLenQ = bad.seqLenK = 24_000;
        bad.batch = 1;
        bad.query = new Float32Array(24_000 * args.dModel);
        delete bad.key;
        delete bad.value;
        delete bad.keyPaddingMask;
        bad.causal = false;
        bad.returnAttention = true;
        expected = [RangeError, 'this call needs'];
        break;
      }
      default: {
        if (viaLayer) {
          // An invalid createLayer instead (a wrong-length or missing weight).
          const n = choose(['wQ', 'wK', 'wV', 'wO', 'bO']);
          yield {
            kind: 'createLayer',
            args: { ...pick(args, LAYER), [n]: n === 'bO' ? new Float32Array(1) : undefined },
            expect: [n === 'bO' ? RangeError : TypeError, n],
          };
          continue;
        }
        bad.numHeads = args.dModel + 1; // never divides dModel
        delete bad.dK;
        delete bad.dV;
        expected = [RangeError, 'numHeads'];
      }
    }
    yield { kind, layer, args: bad, expect: expected };
  }
}

describe.each(['simd', 'threaded-simd'])('%s build', (variant) => {
  test(`${CALLS} seeded calls, invalid and valid interleaved: every error is right, every result matches the reference`, async () => {
    const engine = await createAttention(BUILDS[variant]);
    const layerCases = [
      randomCase(1, { seqLenQ: 2, dModel: 8, numHeads: 2, bias: true }),
      randomCase(2, { seqLenQ: 2, dModel: 6, numHeads: 3, dK: 4, dV: 1 }),
    ];
    const layers = await Promise.all(layerCases.map((c) => engine.createLayer(pick(c, LAYER))));
    const tally = { valid: 0, invalid: 0 };
    let k = 0;
    try {
      for (const { kind, layer, args, expect: expected } of calls(variant === 'simd' ? 1 : 2, layerCases)) {
        const label = `call ${k++} (${kind}${kind === 'forward' ? ` on layer ${layer}` : ''})`;
        const run = () =>
          kind === 'forward'
            ? layers[layer].forward(
                args && typeof args === 'object' && !Array.isArray(args)
                  ? pick(args, FORWARD.concat(Object.keys(TYPOS)))
                  : args,
              )
            : kind === 'createLayer'
              ? engine.createLayer(args)
              : engine.multiHeadAttention(args);
        const outcome = await run().then(
          (result) => ({ result }),
          (error) => ({ error }),
        );
        if (expected) {
          tally.invalid++;
          if (!outcome.error)
            throw new Error(`${label}: resolved, expected a ${expected[0].name} about ${expected[1]}`);
          if (!(outcome.error instanceof expected[0]) || !outcome.error.message.startsWith(expected[1]))
            throw new Error(
              `${label}: expected a ${expected[0].name} starting "${expected[1]}", got ${outcome.error.name}: ${outcome.error.message}`,
            );
          continue;
        }
        tally.valid++;
        if (outcome.error) throw new Error(`${label}: a valid call rejected: ${outcome.error.message}`);
        const want = referenceAttention(args);
        const tol = toleranceFor({ ...args, seqLenK: args.seqLenK ?? args.seqLenQ });
        const problems = [
          compareClose(outcome.result.output, want.output, tol),
          args.returnAttention
            ? compareClose(outcome.result.attention, want.attention, tol)
            : outcome.result.attention === undefined
              ? null
              : 'unasked attention',
          args.returnProjections ? compareClose(outcome.result.projections.concat, want.projections.concat, tol) : null,
        ].filter(Boolean);
        if (problems.length) throw new Error(`${label}: ${problems.join('; ')}`);
      }
    } finally {
      engine.dispose();
    }
    expect(tally.valid + tally.invalid).toBe(CALLS);
    expect(tally.invalid).toBeGreaterThan(400);
    expect(tally.valid).toBeGreaterThan(400);
  }, 30_000);
});
