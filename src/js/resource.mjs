// What layers, trainers and models share: an object in an engine's wasm
// memory, reached through the engine's calls (engine.mjs).
import { codedError } from './errors.mjs';

// Keys private to the package (not exported by its entries), so that layers,
// trainers and models show only their documented methods.
export const CALL = Symbol('call');
export const DETACH = Symbol('detach');

// An object in the engine's memory, filed
// under `id` by the EngineHost, freed by `disposeCall`, and unusable once it
// or its engine is disposed (onDispose tells the engine it is gone). Its
// calls go through `call(method, args)`, the engine's.
export class EngineResource {
  #call;
  #id;
  #what;
  #disposeCall;
  #onDispose;
  #waiting = 0; // calls whose arguments are not ready yet
  #turn = Promise.resolve(); // sent when the last of them is

  constructor(call, id, what, disposeCall, onDispose) {
    this.#call = call;
    this.#id = id;
    this.#what = what;
    this.#disposeCall = disposeCall;
    this.#onDispose = onDispose;
  }

  // call(method, [id, ...args()]) while the resource lives. It is asked
  // again after `args` has read the caller's arguments, whose getters may have
  // disposed it.
  // `args` may resolve later (a model's text is tokenized off the thread):
  // the resource is asked again once it has, and its calls still reach the
  // engine in the order they were made (a prefill's text, then a step's ids).
  [CALL](method, args = () => []) {
    this.#live();
    const checked = args();
    if (typeof checked?.then !== 'function' && this.#waiting === 0) {
      this.#live();
      return this.#call(method, [this.#id, ...checked]);
    }
    this.#waiting++;
    // [promise]: sent once the earlier calls are, the call's own result not awaited here.
    const sent = Promise.all([this.#turn, checked]).then(
      ([, resolved]) => {
        this.#waiting--;
        this.#live();
        return [this.#call(method, [this.#id, ...resolved])];
      },
      (error) => {
        this.#waiting--;
        throw error;
      },
    );
    this.#turn = sent.then(
      () => {},
      () => {},
    );
    return sent.then(([result]) => result);
  }

  #live() {
    if (!this.#call) throw codedError('Disposed', `mha-wasm: this ${this.#what} was disposed (or its engine was)`);
  }

  /** Frees it in the engine's memory. Idempotent; later calls reject. */
  dispose() {
    if (!this.#call) return;
    // Rejects only when the engine is being disposed too, which frees everything.
    this.#call(this.#disposeCall, [this.#id]).catch(() => {});
    this.#onDispose();
    this[DETACH]();
  }

  // Forgets the engine (it is going away and frees everything).
  [DETACH]() {
    this.#call = undefined;
  }
}
