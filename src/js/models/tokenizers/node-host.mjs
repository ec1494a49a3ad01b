// Node: a checkpoint's tokenizer in a worker thread (tokenizer-worker.mjs)
// with a heap limit, each call (encode, decode) bounded in time: a
// tokenizer.json that grows a text without end, or whose regex backtracks
// for ever, or a Marian tokenizer's SentencePiece model that does as much, is
// stopped and the call rejects with an Error naming the file; the next call
// starts a fresh worker. The worker never keeps the process alive when no
// call is waiting.
import { Worker } from 'node:worker_threads';
import { PROBE_TEXT } from './encode.mjs';
import { MarianFiles } from './marian.mjs';

/** The bounds of a tokenizer's work: seconds per call (and for starting), megabytes of heap. */
export const TOKENIZER_LIMITS = Object.freeze({ seconds: 10, heapMb: 256 });

/**
 * A tokenizer host for `json` (tokenizer.json's object, or a Marian
 * tokenizer's MarianFiles) and `config` (tokenizer_config.json's), started
 * and tried on a probe text: resolves to { encode(text, textPair, options) →
 * Promise<{ ids, typeIds }>, decode(ids, options) → Promise<string>,
 * dispose() }.
 */
export async function nodeTokenizerHost(json, config, file, limits = TOKENIZER_LIMITS) {
  const spec = json instanceof MarianFiles ? { kind: 'marian', files: json.files } : { kind: 'tokenizer.json', json };
  const host = new WorkerTokenizer(spec, config, file, limits);
  try {
    await host.encode(PROBE_TEXT, undefined, {});
  } catch (error) {
    host.dispose();
    throw error;
  }
  return host;
}

class WorkerTokenizer {
  #spec;
  #config;
  #file;
  #limits;
  #worker = null;
  #ready = null;
  #pending = new Map();
  #next = 0;

  constructor(spec, config, file, limits) {
    this.#spec = spec;
    this.#config = config;
    this.#file = file;
    this.#limits = limits;
  }

  // The worker, started when a call needs it: resolves once its Tokenizer is made.
  #start() {
    if (this.#ready) return this.#ready;
    const worker = new Worker(new URL('./tokenizer-worker.mjs', import.meta.url), {
      workerData: { spec: this.#spec, config: this.#config },
      // The process's flags but --input-type, which a worker's file refuses (node --input-type=module -e …).
      execArgv: process.execArgv.filter((arg) => !arg.startsWith('--input-type')),
      resourceLimits: { maxOldGenerationSizeMb: this.#limits.heapMb, maxYoungGenerationSizeMb: 32 },
    });
    this.#worker = worker;
    this.#ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#stop(worker, new Error(`${this.#file}: the tokenizer took more than ${this.#limits.seconds} s to start`));
      }, this.#limits.seconds * 1000);
      worker.once('message', (message) => {
        clearTimeout(timer);
        if (message.ready) resolve(worker);
        else {
          const error = new Error(`${this.#file}: not a tokenizer this package reads (${message.error})`);
          this.#stop(worker, error);
          reject(error);
        }
        worker.on('message', (m) => this.#answer(m));
      });
      worker.once('error', (error) => {
        clearTimeout(timer);
        const reason =
          error?.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new Error(
                `${this.#file}: the tokenizer used more than its ${this.#limits.heapMb} MB of memory on this text ` +
                  '(a normalizer or pre-tokenizer that grows it without end?), so it was stopped',
              )
            : new Error(`${this.#file}: the tokenizer failed (${error?.message ?? error})`);
        this.#stop(worker, reason);
        reject(reason);
      });
    });
    // A start that fails is reported by the call that waits for it.
    this.#ready.catch(() => {});
    return this.#ready;
  }

  #answer({ id, result, error }) {
    const call = this.#pending.get(id);
    if (!call) return;
    this.#pending.delete(id);
    clearTimeout(call.timer);
    if (!this.#pending.size) this.#worker?.unref();
    if (error !== undefined)
      call.reject(new Error(`${this.#file}: the tokenizer failed on ${call.subject} (${error})`));
    else call.resolve(result);
  }

  // Ends the worker; every call waiting on it rejects with `reason`; the next call starts another.
  #stop(worker, reason) {
    if (this.#worker !== worker) return;
    this.#worker = null;
    this.#ready = null;
    worker.terminate().catch(() => {});
    for (const call of this.#pending.values()) {
      clearTimeout(call.timer);
      call.reject(reason);
    }
    this.#pending.clear();
  }

  encode(text, textPair, options) {
    return this.#call({ method: 'encode', text, textPair: textPair ?? null, options }, 'tokenizing', 'this text');
  }

  decode(ids, options) {
    return this.#call({ method: 'decode', ids: Array.from(ids), options }, 'decoding', 'these ids');
  }

  async #call(message, doing, subject) {
    const worker = await this.#start();
    return new Promise((resolve, reject) => {
      const id = this.#next++;
      const timer = setTimeout(
        () =>
          this.#stop(
            worker,
            new Error(
              `${this.#file}: ${doing} ${subject} took more than ${this.#limits.seconds} s, so the tokenizer was stopped ` +
                '(a normalizer or pre-tokenizer regex that backtracks without end?)',
            ),
          ),
        this.#limits.seconds * 1000,
      );
      this.#pending.set(id, { resolve, reject, timer, subject });
      worker.ref();
      worker.postMessage({ id, ...message });
    });
  }

  dispose() {
    if (this.#worker) this.#stop(this.#worker, new Error(`${this.#file}: the model was disposed`));
  }
}
