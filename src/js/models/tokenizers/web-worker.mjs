// Browsers: the Web Worker a checkpoint's tokenizer runs in, off the page's
// thread (bounded-host.mjs stops it when a call takes too long; the page
// starts a fresh one for the next). Bundled with @huggingface/tokenizers into
// one classic script, dist/mha-model-tokenizer.js
// (scripts/build-tokenizer-worker.mjs): a worker resolves no bare import (a
// page's import map does not reach it), and a bundler copies a file it finds
// as new URL('…', import.meta.url) as it is, so the worker needs no other file.
import * as library from '@huggingface/tokenizers';
import { serveTokenizer } from './serve.mjs';

serveTokenizer(
  { post: (message) => self.postMessage(message), listen: (f) => (self.onmessage = ({ data }) => f(data)) },
  library,
);
