// The dedicated Worker that runs the engine in browsers, so the page's main
// thread never computes or blocks on the thread pool. A classic worker script:
// Emscripten 3.1.6's glue and pthread workers load with importScripts.
// Messages: init { urls, threads, poolSize, wasmBinary } → ready | failed;
//           run { id, call } → { id, result } | { id, error }.
/* eslint-env worker */
/* global createMhaModule */
'use strict';

let engine;

self.onmessage = (event) => {
  const message = event.data;
  if (message.type === 'init') init(message);
  else if (message.type === 'run') run(message);
};

async function init({ urls, threads, poolSize, wasmBinary }) {
  try {
    try {
      importScripts(urls.glue);
    } catch (error) {
      throw new Error(`mha-wasm: could not load ${urls.glue} (${error.message})`);
    }
    // Fetched here rather than by the glue, whose 3.1.6 loader retries a failed
    // fetch synchronously and then compiles the error page.
    if (!wasmBinary) {
      const response = await fetch(urls.wasm);
      if (!response.ok) throw new Error(`mha-wasm: could not load ${urls.wasm}: HTTP ${response.status} ${response.statusText}`);
      wasmBinary = await response.arrayBuffer();
    }
    const module = await createMhaModule({
      mhaPoolSize: poolSize,
      // pthread workers load the glue from here, not from this worker's URL.
      mainScriptUrlOrBlob: urls.glue,
      locateFile: (fileName) => urls.byName[fileName] ?? new URL(fileName, urls.glue).href,
      wasmBinary,
    });
    engine = new module.Engine(threads);
    self.postMessage({ type: 'ready', threads: engine.threads() });
  } catch (error) {
    self.postMessage({ type: 'failed', error: { name: error?.name ?? 'Error', message: String(error?.message ?? error) } });
  }
}

function run({ id, call }) {
  try {
    const result = engine.multiHeadAttention(call);
    const transfer = [result.output.buffer];
    if (result.attention) transfer.push(result.attention.buffer);
    if (result.projections) for (const m of Object.values(result.projections)) transfer.push(m.buffer);
    self.postMessage({ type: 'result', id, result }, transfer);
  } catch (error) {
    self.postMessage({ type: 'result', id, error: { name: error?.name ?? 'Error', message: String(error?.message ?? error) } });
  }
}
