// What every example app does, whichever bundler built it: one causal
// self-attention call of fixed inputs, its result on the page, and
// window.mhaResult for the end-to-end test (tests/e2e/bundlers.test.mjs,
// which checks it against a float64 reference of exampleCall()).
/* global document, window */

/** The example's call: 6 tokens, dModel 8, 2 heads, causal, weights returned. */
export function exampleCall() {
  const seqLenQ = 6;
  const dModel = 8;
  const ramp = (n, scale) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.7) * scale);
  return {
    query: ramp(seqLenQ * dModel, 1),
    seqLenQ,
    dModel,
    numHeads: 2,
    wQ: ramp(dModel * dModel, 0.3),
    wK: ramp(dModel * dModel, 0.2),
    wV: ramp(dModel * dModel, 0.5),
    wO: ramp(dModel * dModel, 0.4),
    causal: true,
  };
}

/** Runs the example with the package's createAttention (and its options), and shows the result. */
export async function runExample(createAttention, options) {
  const show = (id, text) => {
    const element = document.querySelector(`#${id}`);
    if (element) element.textContent = text;
  };
  try {
    const engine = await createAttention(options);
    const call = exampleCall();
    const { output, attention } = await engine.multiHeadAttention({ ...call, returnAttention: true });
    show('variant', engine.variant);
    show('threads', String(engine.threads));
    show('weights', Array.from(attention.slice(0, call.seqLenQ), (w) => w.toFixed(3)).join(' '));
    window.mhaResult = {
      variant: engine.variant,
      threads: engine.threads,
      output: [...output],
      attention: [...attention],
    };
    engine.dispose();
  } catch (error) {
    show('variant', `failed: ${error.message}`);
    window.mhaResult = { error: String(error.message) };
  }
}
