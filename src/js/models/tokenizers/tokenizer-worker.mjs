// Node: the worker thread a checkpoint's tokenizer runs in (node-host.mjs
// starts it with a heap limit, bounded-host.mjs stops it when a call takes
// too long), so that a tokenizer that runs away costs an Error, never the
// process.
import { parentPort } from 'node:worker_threads';
import * as library from '@huggingface/tokenizers';
import { serveTokenizer } from './serve.mjs';

serveTokenizer(
  { post: (message) => parentPort.postMessage(message), listen: (f) => parentPort.on('message', f) },
  library,
);
