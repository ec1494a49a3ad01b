// The dedicated Worker that runs the engine in browsers, so the page's main
// thread never computes or blocks on the thread pool. A classic worker script:
// Emscripten 3.1.6's glue and pthread workers load with importScripts.
// Messages: init { urls, threads, poolSize, wasmBinary } → ready | failed;
//           call { id, method, args } → { id, result } | { id, error },
//           method being one of EngineHost's (engine-host.js).
/* eslint-env worker */
/* global createMhaModule, MhaEngineHost */
'use strict';

let host;

self.onmessage = (event) => {
  const message = event.data;
  if (message.type === 'init') init(message);
  else if (message.type === 'call') call(message);
};

function describeError(error) {
  return { name: error?.name ?? 'Error', message: String(error?.message ?? error) };
}

async function init({ urls, threads, poolSize, wasmBinary }) {
  try {
    for (const url of [urls.host, urls.glue]) {
      try {
        importScripts(url);
      } catch (error) {
        throw new Error(`mha-wasm: could not load ${url} (${error.message})`);
      }
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
    host = new MhaEngineHost(module, threads);
    self.postMessage({ type: 'ready', threads: host.threads() });
  } catch (error) {
    self.postMessage({ type: 'failed', error: describeError(error) });
  }
}

function call({ id, method, args }) {
  try {
    if (method === 'constructor' || typeof MhaEngineHost.prototype[method] !== 'function')
      throw new Error(`mha-wasm: unknown engine call ${method}`);
    const result = host[method](...args);
    self.postMessage({ type: 'result', id, result }, MhaEngineHost.transferables(result));
  } catch (error) {
    self.postMessage({ type: 'result', id, error: describeError(error) });
  }
}
