// The dedicated Worker that runs the engine in browsers, so the page's main
// thread never computes or blocks on the thread pool. A classic worker script:
// Emscripten 3.1.6's glue and pthread workers load with importScripts.
// The messages are those of src/js/protocol.mjs (MESSAGES), whose names this
// classic script cannot import; init brings the calls it may dispatch.
/* global createMhaModule, MhaEngineHost */
'use strict';

let host;
let messages; // MESSAGES of protocol.mjs, from the init message

self.onmessage = (event) => {
  const message = event.data;
  if (!messages) {
    messages = message.messages; // the first message is init
    init(message);
  } else if (message.type === messages.call) call(message);
};

// A Worker must come from this worker's origin (or blob:); the pthread worker
// script elsewhere (a CDN, through locateFile) is started by a same-origin
// blob that imports it.
function sameOriginWorkerUrl(url) {
  if (new URL(url).origin === self.location.origin) return url;
  return URL.createObjectURL(new Blob([`importScripts(${JSON.stringify(url)});`], { type: 'text/javascript' }));
}

// errors.mjs's describeError (a classic script cannot import it): the name, message, code and fields.
function describeError(error) {
  const out = { name: error?.name ?? 'Error', message: String(error?.message ?? error) };
  for (const name of ['code', 'file', 'field', 'repo', 'endpoint', 'value'])
    if (typeof error?.[name] === 'string') out[name] = error[name];
  return out;
}

async function init({ urls, threads, poolSize, wasmBinary, calls, build }) {
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
      if (!response.ok)
        throw new Error(`mha-wasm: could not load ${urls.wasm}: HTTP ${response.status} ${response.statusText}`);
      wasmBinary = await response.arrayBuffer();
    }
    // Emscripten 3.1.6's pthread worker script (NAME.worker.js) imports the
    // glue from mainScriptUrlOrBlob; 3.1.69's (the relaxed builds) is the
    // glue itself, so it must be same-origin as a Worker's script.
    const ownWorker = Object.keys(urls.byName).some((fileName) => fileName.endsWith('.worker.js'));
    const module = await createMhaModule({
      mhaPoolSize: poolSize,
      // pthread workers load the glue from here, not from this worker's URL.
      mainScriptUrlOrBlob: ownWorker ? urls.glue : sameOriginWorkerUrl(urls.glue),
      locateFile: (fileName) => {
        const url = urls.byName[fileName] ?? new URL(fileName, urls.glue).href;
        return fileName.endsWith('.worker.js') ? sameOriginWorkerUrl(url) : url;
      },
      wasmBinary,
    });
    try {
      host = new MhaEngineHost(module, threads, calls, build);
    } catch (error) {
      module.PThread?.terminateAllThreads();
      throw error;
    }
    self.postMessage({ type: messages.ready, threads: host.threads(), limits: host.limits() });
  } catch (error) {
    self.postMessage({ type: messages.failed, error: describeError(error) });
  }
}

function call({ id, method, args }) {
  try {
    const result = host.call(method, args);
    self.postMessage({ type: messages.result, id, result }, MhaEngineHost.transferables(result));
  } catch (error) {
    self.postMessage({ type: messages.result, id, error: describeError(error) });
  }
}
