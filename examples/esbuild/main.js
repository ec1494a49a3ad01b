// An app that uses the package through esbuild. esbuild does not copy the
// files the package references with new URL('…', import.meta.url), and its
// iife format has no import.meta at all: build.mjs copies those files into
// mha-wasm/ beside the bundle, and locateFile says where they are (a URL
// relative to the page). The same code works with --format=esm and iife.
import { createAttention } from 'mha-wasm';

const seqLenQ = 6,
  dModel = 8,
  numHeads = 2;
const ramp = (n, scale) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.7) * scale);

async function main() {
  const engine = await createAttention({ locateFile: (fileName) => `mha-wasm/${fileName}` });
  const { output, attention } = await engine.multiHeadAttention({
    query: ramp(seqLenQ * dModel, 1),
    seqLenQ,
    dModel,
    numHeads,
    wQ: ramp(dModel * dModel, 0.3),
    wK: ramp(dModel * dModel, 0.2),
    wV: ramp(dModel * dModel, 0.5),
    wO: ramp(dModel * dModel, 0.4),
    causal: true,
    returnAttention: true,
  });
  document.querySelector('#variant').textContent = engine.variant;
  document.querySelector('#threads').textContent = String(engine.threads);
  document.querySelector('#weights').textContent = Array.from(attention.slice(0, seqLenQ), (w) => w.toFixed(3)).join(
    ' ',
  );
  // For the end-to-end test (tests/e2e/bundlers.test.mjs).
  window.mhaResult = {
    variant: engine.variant,
    threads: engine.threads,
    output: [...output],
    attention: [...attention],
  };
  engine.dispose();
}

main().catch((error) => {
  document.querySelector('#variant').textContent = `failed: ${error.message}`;
  window.mhaResult = { error: String(error.message) };
});
