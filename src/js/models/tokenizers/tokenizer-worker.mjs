// Node: the worker thread a checkpoint's tokenizer runs in (node-host.mjs
// starts it with a heap limit and stops it when a call takes too long), so
// that a tokenizer.json whose normalizer grows without end or whose regex
// backtracks for ever costs an Error, never the process.
import { parentPort, workerData } from 'node:worker_threads';
import { Tokenizer } from '@huggingface/tokenizers';
import { makeEncoder } from './encode.mjs';

const { json, config } = workerData;
let encode;
try {
  encode = makeEncoder(new Tokenizer(json, config), json);
  parentPort.postMessage({ ready: true });
} catch (error) {
  parentPort.postMessage({ ready: false, error: String(error?.message ?? error) });
}

parentPort.on('message', ({ id, text, textPair, options }) => {
  try {
    parentPort.postMessage({ id, result: encode(text, textPair ?? undefined, options) });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error?.message ?? error) });
  }
});
