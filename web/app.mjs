// The demo page: builds the inputs from the sentence (inputs.mjs), runs the
// wasm engine, and shows one head at a time (attention-table.mjs).
// UI state is one object that round-trips to the URL (?head=2&seed=18).
import { TOKENS, SENTENCE, TRANSLATION } from './sentence.mjs';
import { embed, randomWeights } from './inputs.mjs';
import { AttentionTable } from './attention-table.mjs';

const dModel = 32;
const numHeads = 4;
const dK = dModel / numHeads;
const dV = dK;
// See randomWeights: makes the untrained heads' softmax visibly non-flat.
const qkGain = 3;
// Any seed works (?seed=N); 18 was picked from 1..60 because in all four of its
// heads the six 毒 rows differ clearly, which is what the page explains.
const DEFAULT_SEED = 18;

const $ = (id) => document.getElementById(id);
const span = (className, text) => Object.assign(document.createElement('span'), { className, textContent: text });

/** { head, seed } from the URL; anything missing or invalid takes its default. */
function readState() {
  const params = new URLSearchParams(location.search);
  const integer = (name, fallback, max) => {
    const text = params.get(name);
    const n = Number(text);
    return text !== null && /^\d+$/.test(text) && n <= max ? n : fallback;
  };
  return { head: integer('head', 0, numHeads - 1), seed: integer('seed', DEFAULT_SEED, 2 ** 32 - 1) };
}

function writeState(state) {
  const params = new URLSearchParams(location.search);
  params.set('head', String(state.head));
  params.set('seed', String(state.seed));
  history.replaceState(null, '', `?${params}`);
}

function showError(error) {
  const box = $('error');
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  box.textContent = `The demo stopped: ${message}`;
  box.hidden = false;
  $('status').textContent = 'Not computed.';
}

function renderSentence() {
  $('sentence').textContent = SENTENCE;
  $('translation').textContent = `“${TRANSLATION}”`;
  $('tokens').replaceChildren(
    ...TOKENS.map((token, i) => {
      const char = span('char', token.char);
      char.lang = 'zh-Hans';
      const li = document.createElement('li');
      li.append(span('position', String(i)), char, span('gloss', token.gloss));
      return li;
    }),
  );
}

async function main() {
  renderSentence();
  const state = readState();
  // The head picker is filled now and enabled once the engine has answered.
  const select = $('head');
  select.replaceChildren(...Array.from({ length: numHeads }, (_, h) => new Option(`Head ${h}`, String(h))));
  select.value = String(state.head);
  $('setup').textContent =
    `X is ${TOKENS.length} × ${dModel} (dModel ${dModel}); numHeads ${numHeads}, dK = dV = ${dK}; ` +
    `wQ, wK, wV, wO are random from seed ${state.seed}.`;

  if (typeof WebAssembly !== 'object')
    throw new Error('this browser has no WebAssembly, which the engine needs; try a current Chrome, Firefox or Safari.');
  // Imported here rather than at the top, so that a missing or broken engine
  // file is reported on the page instead of silently stopping this module.
  const { createAttention } = await import('../src/js/browser.mjs');
  const engine = await createAttention();

  const seqLen = TOKENS.length;
  const call = {
    query: embed(TOKENS, dModel),
    seqLenQ: seqLen,
    dModel,
    numHeads,
    ...randomWeights({ seed: state.seed, dModel, numHeads, dK, dV, qkGain }),
    returnAttention: true,
  };
  const engineText =
    `Engine: ${engine.variant}, ${engine.threads} thread${engine.threads === 1 ? '' : 's'} · ` +
    `crossOriginIsolated: ${globalThis.crossOriginIsolated === true}`;
  const table = new AttentionTable(TOKENS);
  let calls = 0;

  // Every head change runs the engine again (it is cheap), so the time shown is a live one.
  async function computeAndShow() {
    const head = state.head;
    const start = performance.now();
    const { attention } = await engine.multiHeadAttention(call);
    const elapsed = performance.now() - start;
    calls += 1;
    if (head !== state.head) return; // a later change has its own call on the way
    $('status').textContent =
      `${engineText} · multiHeadAttention took ${elapsed.toFixed(2)} ms` +
      (calls === 1 ? ' (first call, includes warm-up)' : '');
    const block = seqLen * seqLen;
    // attention is [batch = 1, numHeads, seqLenQ, seqLenK]: head h is one contiguous block.
    table.show({ head, numHeads, weights: attention.subarray(head * block, (head + 1) * block) });
  }

  select.addEventListener('change', () => {
    state.head = Number(select.value);
    writeState(state);
    computeAndShow().catch(showError);
  });
  await computeAndShow();
  $('table').replaceChildren(table.element);
  select.disabled = false;
}

window.addEventListener('error', (event) => showError(event.error ?? event.message));
window.addEventListener('unhandledrejection', (event) => showError(event.reason));
main().catch(showError);
