// A checkpoint's tokenizer in a worker of its own, each call (encode,
// decode) bounded in time: a tokenizer.json whose regex backtracks for ever,
// or a Marian tokenizer's SentencePiece model that does as much, is stopped
// and the call rejects with an Error naming the file; the next call starts a
// fresh worker. The same for Node (node-host.mjs: a worker thread, with a
// heap limit too) and browsers (browser.mjs: a Web Worker of
// dist/mha-model-tokenizer.js, whose memory check.mjs bounds before it
// runs). The worker's side is serve.mjs.
import { PROBE_TEXT } from './encode.mjs';
import { MarianFiles } from './marian.mjs';
import { ArgumentRangeError, codedError } from '../../errors.mjs';

/** An error of the tokenizer of `file` (code BadTokenizer). */
const tokenizerError = (file, message) => codedError('BadTokenizer', message, { file });

/** The bounds of a tokenizer's work: seconds per call (and for starting), megabytes of heap (where it can be set). */
export const TOKENIZER_LIMITS = Object.freeze({ seconds: 10, heapMb: 256 });

/**
 * A tokenizer host for `json` (tokenizer.json's object, or a Marian
 * tokenizer's MarianFiles) and `config` (tokenizer_config.json's), started
 * and tried on a probe text: resolves to { growth (check.mjs's bound),
 * encode(text, textPair, options) → Promise<{ ids, typeIds }>, decode(ids,
 * options) → Promise<string>, render(chat) → Promise<string> (a chat
 * template, chat-render.mjs), dispose() }. `start(limits)` starts a worker
 * that serves a tokenizer (serve.mjs) and gives its port: { post(message),
 * listen(onMessage, onError({ message, outOfMemory? })), terminate(),
 * busy?(isBusy) (whether a call waits on it) }.
 */
export async function boundedTokenizerHost(start, json, config, file, limits = TOKENIZER_LIMITS) {
  const spec = json instanceof MarianFiles ? { kind: 'marian', files: json.files } : { kind: 'tokenizer.json', json };
  const host = new BoundedTokenizer(start, spec, config, file, limits);
  try {
    await host.encode(PROBE_TEXT, undefined, {});
  } catch (error) {
    host.dispose();
    throw error;
  }
  return host;
}

class BoundedTokenizer {
  #start;
  #spec;
  #config;
  #file;
  #limits;
  #port = null;
  #ready = null;
  #pending = new Map();
  #next = 0;
  #disposed = false;
  /** check.mjs's bound on the text growth, once a worker has made the tokenizer. */
  growth = null;

  constructor(start, spec, config, file, limits) {
    this.#start = start;
    this.#spec = spec;
    this.#config = config;
    this.#file = file;
    this.#limits = limits;
  }

  // The worker, started when a call needs it: resolves once its tokenizer is made.
  #open() {
    if (this.#ready) return this.#ready;
    const file = this.#file;
    const { seconds, heapMb } = this.#limits;
    let port;
    try {
      port = this.#start(this.#limits);
    } catch (error) {
      return Promise.reject(
        tokenizerError(file, `${file}: could not start the tokenizer's worker (${error?.message ?? error})`),
      );
    }
    this.#port = port;
    this.#ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#stop(port, tokenizerError(file, `${file}: the tokenizer took more than ${seconds} s to start`));
      }, seconds * 1000);
      let made = false;
      port.listen(
        (message) => {
          if (made) return this.#answer(message);
          made = true;
          clearTimeout(timer);
          if (message.ready) {
            this.growth = message.growth;
            resolve(port);
          } else {
            const error = tokenizerError(file, message.message);
            this.#stop(port, error);
            reject(error);
          }
        },
        (failure) => {
          clearTimeout(timer);
          const reason = failure.outOfMemory
            ? tokenizerError(
                file,
                `${file}: the tokenizer used more than its ${heapMb} MB of memory on this text ` +
                  '(a normalizer or pre-tokenizer that grows it without end?), so it was stopped',
              )
            : tokenizerError(file, `${file}: the tokenizer failed (${failure.message})`);
          this.#stop(port, reason);
          reject(reason);
        },
      );
      port.post({ init: { spec: this.#spec, config: this.#config, file } });
    });
    // A start that fails is reported by the call that waits for it.
    this.#ready.catch(() => {});
    return this.#ready;
  }

  #answer({ id, result, error, argument }) {
    const call = this.#pending.get(id);
    if (!call) return;
    this.#pending.delete(id);
    clearTimeout(call.timer);
    if (!this.#pending.size) this.#port?.busy?.(false);
    if (argument) call.reject(new ArgumentRangeError(error));
    else if (error !== undefined && call.file)
      call.reject(tokenizerError(call.file, error)); // the renderer's words name the template's file
    else if (error !== undefined)
      call.reject(tokenizerError(this.#file, `${this.#file}: the tokenizer failed on ${call.subject} (${error})`));
    else call.resolve(result);
  }

  // Ends the worker; every call waiting on it rejects with `reason`; the next call starts another.
  #stop(port, reason) {
    if (this.#port !== port) return;
    this.#port = null;
    this.#ready = null;
    port.terminate();
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

  /** A chat template rendered (chat-render.mjs's request: { template, file, context }). */
  render(chat) {
    const why = '(a template that loops without end?)';
    return this.#call({ method: 'render', chat }, 'rendering', 'the chat template', chat.file ?? this.#file, why);
  }

  // `file`: the file a failure is about when it is not the tokenizer's (a chat template's); `why`: the likely cause
  // of a call that runs past the limit.
  async #call(
    message,
    doing,
    subject,
    file = null,
    why = '(a normalizer or pre-tokenizer regex that backtracks without end?)',
  ) {
    // Disposed: no fresh worker for a call that comes after (model.tokenizer outlives nothing).
    if (this.#disposed) throw codedError('Disposed', `${this.#file}: the model was disposed`);
    const port = await this.#open();
    const { seconds } = this.#limits;
    return new Promise((resolve, reject) => {
      const id = this.#next++;
      const timer = setTimeout(
        () =>
          this.#stop(
            port,
            tokenizerError(
              this.#file,
              `${this.#file}: ${doing} ${subject} took more than ${seconds} s, so the tokenizer was stopped ${why}`,
            ),
          ),
        seconds * 1000,
      );
      this.#pending.set(id, { resolve, reject, timer, subject, file });
      port.busy?.(true);
      port.post({ id, ...message });
    });
  }

  dispose() {
    this.#disposed = true;
    if (this.#port) this.#stop(this.#port, codedError('Disposed', `${this.#file}: the model was disposed`));
  }
}
