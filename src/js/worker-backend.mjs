// A backend whose engine lives in a Worker: a browser's Web Worker
// (browser.mjs, engine-worker.js) or Node's worker_threads Worker (node.mjs,
// node-worker.mjs). Each call is a message (protocol.mjs) answered by one
// message with the same id; the worker handles one message at a time, so
// calls run in order, never mixed.
import { MESSAGES } from './protocol.mjs';
import { codedError, rebuildError } from './errors.mjs';

export { rebuildError };

export class WorkerBackend {
  #port;
  #pending = new Map();
  #nextId = 0;

  /**
   * port: { post(message, transfer), listen(onMessage, onError), terminate(), busy?(isBusy) }:
   * the Worker as its platform has it; busy(true) while a call is pending
   * (Node: keep the process alive for it), busy(false) when none is.
   */
  constructor(port) {
    this.#port = port;
    port.listen(
      (data) => {
        const pending = this.#pending.get(data.id);
        if (!pending) return;
        this.#pending.delete(data.id);
        if (this.#pending.size === 0) port.busy?.(false);
        if (data.error) pending.reject(rebuildError(data.error));
        else pending.resolve(data.result);
      },
      (message) =>
        this.#failAll(codedError('WorkerFailed', `mha-wasm: the engine worker failed: ${message ?? 'unknown error'}`)),
    );
    port.busy?.(false);
  }

  /**
   * Posts a call. `transfer`: ArrayBuffers of `args` that move to the worker
   * instead of being copied (detached here); only buffers the package itself
   * made for this call (the loader's weight chunks), never a caller's.
   */
  call(method, args, transfer = []) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#port.busy?.(true);
      this.#port.post({ type: MESSAGES.call, id, method, args }, transfer);
    });
  }

  dispose() {
    this.#port.terminate(); // ends the engine and its pthread workers
    this.#failAll(codedError('Disposed', 'mha-wasm: this engine was disposed during the call'));
  }

  #failAll(error) {
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }
}
