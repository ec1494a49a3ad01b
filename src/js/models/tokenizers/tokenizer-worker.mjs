// Node: the worker thread a checkpoint's tokenizer runs in (node-host.mjs
// starts it with a heap limit and stops it when a call takes too long), so
// that a tokenizer.json whose normalizer grows without end or whose regex
// backtracks for ever, or a SentencePiece model that makes a text grow,
// costs an Error, never the process.
import { parentPort, workerData } from 'node:worker_threads';
import { Tokenizer } from '@huggingface/tokenizers';
import { makeRunner } from './encode.mjs';

const { spec, config } = workerData;
let runner;
try {
  runner = makeRunner(spec, config, Tokenizer);
  parentPort.postMessage({ ready: true });
} catch (error) {
  parentPort.postMessage({ ready: false, error: String(error?.message ?? error) });
}

parentPort.on('message', ({ id, method, text, textPair, ids, options }) => {
  try {
    const result =
      method === 'decode' ? runner.decode(ids, options) : runner.encode(text, textPair ?? undefined, options);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error?.message ?? error) });
  }
});
