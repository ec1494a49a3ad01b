// The Chromium side of bench/llama.mjs: one GGUF file run by mha-wasm or by
// wllama (@wllama/wllama, llama.cpp's own wasm build) in Debian's Chromium
// through playwright-core, each engine in a browser of its own so that the
// renderer's peak RSS is that engine's. The page is a blank document served
// cross-origin isolated (COOP/COEP: both engines need SharedArrayBuffer for
// threads) by the demo's server, which also serves wllama's esm/ folder at
// /wllama/; the file is given as a File (an <input type=file>, read from the
// disk as a user's dropped file is).
//
// Both engines are timed the same way, from JS around whole calls:
//   load      engine created (its wasm compiled) + the model loaded from the File, in a fresh page
//   prefill   a call that decides 1 token after the sentence (15 ids): the prompt's forward + one argmax
//   per token (the call for NEW_TOKENS tokens − the call for 1) ÷ (NEW_TOKENS − 1)
// Greedy on both: mha-wasm generate() with minNewTokens (eos banned until then), wllama
// createCompletion with temperature 0 and ignore_eos (its logit bias bans every end-of-generation
// token: the vocabulary here has one, <|endoftext|>), cache_prompt false (each call prefills again).
// Before timing, each engine's greedy ids (wllama: its logprobs' ids) and its tokenizer's ids of the
// sentence are returned for bench/llama.mjs to compare.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openBlankPage } from '../tests/e2e/chromium.mjs';
import { startServer } from '../web/server.mjs';
import { rendererPeakBytes } from './load-browser.mjs';

const WLLAMA_ESM = fileURLToPath(new URL('../node_modules/@wllama/wllama/esm', import.meta.url));

/** The demo's server (isolated) with wllama's files at /wllama/: { url, close() }. */
export async function startBenchServer() {
  const server = await startServer({ port: 0, isolate: true, folders: { '/wllama/': WLLAMA_ESM } });
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** In the page: mha-wasm on `threads`, its rows with and without the attention returned, in turns. */
function mhaInPage({ threads, prompt, promptIds, newTokens, samples, activations }) {
  return (async () => {
    const file = document.querySelector('#gguf').files[0];
    const t0 = performance.now();
    const stage = (what) => (globalThis.benchStage = what);
    stage('importing mha-wasm');
    const { createAttention } = await import('/src/js/model-entry.mjs');
    stage('createAttention');
    const engine = await createAttention({ threads });
    try {
      stage('loadModel');
      const model = await engine.loadModel([file], { activations });
      const loadMs = performance.now() - t0;
      const inputIds = Int32Array.from(promptIds);
      const tokenized = Array.from((await model.tokenizer.encode(prompt)).inputIds);
      const generate = async (n, returnAttention) => {
        stage(`generate ${n} token(s)${returnAttention ? ', attention returned' : ''}`);
        // The cache emptied first: generate() keeps what it holds of the prompt, which would make the call for
        // 1 token a step rather than a prefill (wllama is run with cache_prompt: false).
        await model.reset();
        const t = performance.now();
        const r = await model.generate({ inputIds }, { maxNewTokens: n, minNewTokens: n, returnAttention });
        return { ms: performance.now() - t, ids: Array.from(r.outputIds).slice(inputIds.length) };
      };
      const check = await generate(newTokens, false);
      const rows = { attention: { one: [], all: [] }, none: { one: [], all: [] } };
      let sameIdsWithAttention = true;
      for (let i = 0; i < samples; i++)
        for (const [key, returnAttention] of [
          ['attention', true],
          ['none', false],
        ]) {
          rows[key].one.push((await generate(1, returnAttention)).ms);
          const all = await generate(newTokens, returnAttention);
          rows[key].all.push(all.ms);
          sameIdsWithAttention &&= all.ids.every((x, j) => x === check.ids[j]);
        }
      stage('memoryStats');
      const heapBytes = (await engine.memoryStats()).models?.heapBytes;
      model.dispose();
      return {
        variant: engine.variant,
        loadMs,
        tokenized,
        ids: check.ids,
        sameIdsWithAttention,
        rows,
        heapBytes,
      };
    } finally {
      engine.dispose();
    }
  })();
}

/** In the page: wllama on `threads`. */
function wllamaInPage({ threads, prompt, newTokens, samples }) {
  return (async () => {
    const file = document.querySelector('#gguf').files[0];
    const t0 = performance.now();
    const stage = (what) => (globalThis.benchStage = what);
    stage('importing wllama');
    const { Wllama } = await import('/wllama/index.js');
    const wllama = new Wllama({ default: '/wllama/wasm/wllama.wasm' }, { suppressNativeLog: true });
    try {
      stage('loadModel');
      await wllama.loadModel([file], { n_threads: threads, n_ctx: 512, n_gpu_layers: 0 });
      const loadMs = performance.now() - t0;
      const settings = { temperature: 0, ignore_eos: true, cache_prompt: false };
      const complete = async (input, n, extra = {}) => {
        stage(`createCompletion of ${n} token(s)`);
        const t = performance.now();
        const r = await wllama.createCompletion({ prompt: input, max_tokens: n, ...settings, ...extra });
        return { ms: performance.now() - t, r };
      };
      // The ids, with their logprobs: the prompt as text, tokenized by llama.cpp (wllama takes no ids).
      const check = (await complete(prompt, newTokens, { n_probs: 1 })).r;
      const rows = { one: [], all: [] };
      const timings = [];
      for (let i = 0; i < samples; i++) {
        rows.one.push((await complete(prompt, 1)).ms);
        const all = await complete(prompt, newTokens);
        rows.all.push(all.ms);
        timings.push(all.r.timings);
      }
      return {
        multithread: wllama.isMultithread(),
        threads: wllama.getNumThreads(),
        loadMs,
        promptTokens: check.timings?.prompt_n ?? check.usage?.prompt_tokens,
        ids: check.choices[0].logprobs?.content?.map((c) => c.id) ?? [],
        rows,
        timings,
      };
    } finally {
      stage('exit');
      await wllama.exit();
    }
  })();
}

const RUNNERS = { 'mha-wasm': mhaInPage, wllama: wllamaInPage };

/** `promise`'s value, or `late()`'s when it has none after `ms`: a hung page is reported, not waited for. */
async function within(promise, ms, late) {
  let timer;
  const expired = new Promise((resolve) => {
    timer = setTimeout(resolve, ms);
  }).then(late);
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `engine` ('mha-wasm' | 'wllama') on `file` in a fresh Chromium:
 * the page's result plus { peakRssBytes } (the renderer's VmHWM), or { failed }
 * (with the step the page was at when it gave no answer within `timeoutMs`).
 */
export async function runInChromium(serverUrl, engine, file, args, { timeoutMs }) {
  const browser = await launchChromium();
  try {
    const { page, problems } = await openBlankPage(browser.context, serverUrl);
    await page.evaluate(() => {
      const input = Object.assign(document.createElement('input'), { type: 'file', id: 'gguf' });
      document.body.append(input);
    });
    await page.setInputFiles('#gguf', path.resolve(file));
    const run = RUNNERS[engine];
    const evaluated = page
      .evaluate(`(${run.toString()})(${JSON.stringify(args)})`)
      .catch((error) => ({ failed: String(error.message).split('\n')[0] }));
    const result = await within(evaluated, timeoutMs, async () => {
      const stage = await within(
        page.evaluate(() => globalThis.benchStage),
        5000,
        () => 'unknown: the page did not answer',
      );
      return { failed: `no answer in ${timeoutMs / 1000} s; the page was at: ${stage}` };
    });
    return { ...result, peakRssBytes: rendererPeakBytes(), problems: problems.slice(0, 5) };
  } finally {
    await browser.close();
  }
}
