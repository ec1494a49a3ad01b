// Node: a checkpoint's tokenizer in a worker thread (tokenizer-worker.mjs)
// with a heap limit, each call bounded in time by bounded-host.mjs: a
// tokenizer that grows a text without end or whose regex backtracks for ever
// is stopped and the call rejects with an Error naming the file; the next
// call starts a fresh worker. The worker never keeps the process alive when
// no call is waiting.
import { Worker } from 'node:worker_threads';
import { workerExecArgv } from '../../node-host.mjs';
import { TOKENIZER_LIMITS, boundedTokenizerHost } from './bounded-host.mjs';

// A worker thread as bounded-host.mjs takes it.
function workerPort({ heapMb }) {
  const worker = new Worker(new URL('./tokenizer-worker.mjs', import.meta.url), {
    execArgv: workerExecArgv(),
    resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 32 },
  });
  return {
    post: (message) => worker.postMessage(message),
    listen(onMessage, onError) {
      worker.on('message', onMessage);
      worker.once('error', (error) =>
        onError({ message: error?.message ?? String(error), outOfMemory: error?.code === 'ERR_WORKER_OUT_OF_MEMORY' }),
      );
    },
    terminate: () => worker.terminate().catch(() => {}),
    busy: (isBusy) => (isBusy ? worker.ref() : worker.unref()),
  };
}

/**
 * A tokenizer host (createTokenizer's `host`) for `json` (tokenizer.json's
 * object, or a Marian tokenizer's MarianFiles) and `config`, in a worker
 * thread bounded by `limits` ({ seconds per call, heapMb }).
 */
export function nodeTokenizerHost(json, config, file, limits = TOKENIZER_LIMITS) {
  return boundedTokenizerHost(workerPort, json, config, file, limits);
}
