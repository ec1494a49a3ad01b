// The dedicated Worker that runs the engine in browsers, so the page's main
// thread never computes or blocks on the thread pool. A classic worker script,
// as the builds' glue is a classic factory script (CMakeLists.txt) that it
// loads with importScripts. The messages are those of src/js/protocol.mjs
// (MESSAGES), whose names this classic script cannot import; init brings the
// calls it may dispatch.
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

// A Worker must come from this worker's origin (or blob:); the pool's Workers
// run the glue, which, elsewhere (a CDN, through locateFile), is started by a
// same-origin blob that imports it.
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
    // Fetched here rather than by the glue, whose loader retries a failed fetch
    // synchronously (getBinarySync) and then compiles the error page.
    if (!wasmBinary) {
      const response = await fetch(urls.wasm);
      if (!response.ok)
        throw new Error(`mha-wasm: could not load ${urls.wasm}: HTTP ${response.status} ${response.statusText}`);
      wasmBinary = await response.arrayBuffer();
    }
    const module = await createMhaModule({
      mhaPoolSize: poolSize,
      // The pool's Workers run the glue, from here rather than from this worker's URL.
      mainScriptUrlOrBlob: sameOriginWorkerUrl(urls.glue),
      locateFile: (fileName) => urls.byName[fileName] ?? new URL(fileName, urls.glue).href,
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
