// What layers, trainers and models share: an object in an engine's wasm
// memory, reached through the engine's calls (engine.mjs).

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
  [CALL](method, args = () => []) {
    this.#live();
    const checked = args();
    this.#live();
    return this.#call(method, [this.#id, ...checked]);
  }

  #live() {
    if (!this.#call) throw new Error(`mha-wasm: this ${this.#what} was disposed (or its engine was)`);
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
