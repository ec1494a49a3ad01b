// The real-model view's loading (views/real-model.mjs shows what is loaded):
// a checkpoint from the reader's files (views/model-files-input.mjs: the
// pickers, drop zone and progress bar; which files are the checkpoint is the
// package's rule, pickModelFiles of 'mha-wasm/model') or by name from the
// Hugging Face Hub (views/model-hub-input.mjs), loaded by the engine with the
// previous model freed first; and the status line, which says what is being
// loaded and then what was (its sizes, how many of the files were read, or
// whether it was downloaded or in this browser's cache).
import { t } from '../lib/i18n.mjs';
import { modelEntry } from '../lib/package.mjs';
import { filesRead, formatBytes, totalBytes } from '../model/real-model-files.mjs';
import { loadErrorReason } from '../model/load-errors.mjs';
import { ModelFilesInput } from './model-files-input.mjs';
import { ModelHubInput, hubEndpoints } from './model-hub-input.mjs';

export class ModelLoader {
  #engine = null;
  /** The status line's message and parameters, so that a change of language can write it again. */
  #status = ['real.waiting', {}];
  /** The pickers, drop zone and progress bar (views/model-files-input.mjs). */
  #input;
  /** The name field, suggestions and Hub settings (views/model-hub-input.mjs). */
  #hub;

  /**
   * @param {HTMLElement} section the #real-model section of index.html
   * @param {{ error: import('./real-model-error.mjs').ErrorBox, canLoad: () => boolean,
   *   setInputs: (enabled: boolean) => void, begin: () => void, end: (model: object | null) => Promise<void> }} hooks
   *   error: where a load error is shown; canLoad: whether the engine is ready and the view idle; setInputs:
   *   the view's controls on or off; begin: a load starts (the view empties itself and frees its model);
   *   end: the model loaded (or null), once the status line says so
   */
  constructor(section, hooks) {
    this.hooks = hooks;
    this.el = { status: section.querySelector('#real-status') };
    this.#input = new ModelFilesInput(section, {
      canLoad: hooks.canLoad,
      onEntries: (entries) => this.#load(entries),
      onError: (error) => hooks.error.show('real.error.load', loadErrorReason(error)),
    });
    this.#hub = new ModelHubInput(section, { onName: (request) => this.#loadByName(request) });
    hubEndpoints().then((endpoints) => {
      this.#hub.setEndpoints(endpoints);
      hooks.setInputs(hooks.canLoad());
    });
    this.#writeStatus();
  }

  /** The engine is ready: loading is possible from now on. */
  enable(engine) {
    this.#engine = engine;
    this.#status = ['real.none', {}];
    this.#writeStatus();
  }

  /** Writes every text again in the page's (new) language. */
  relabel() {
    this.#hub.relabel();
    this.#writeStatus();
  }

  /** The pickers, drop zone and name field on or off. */
  setEnabled(enabled) {
    this.#input.setEnabled(enabled);
    this.#hub.setEnabled(enabled);
  }

  #writeStatus() {
    const [key, params] = this.#status;
    this.el.status.textContent = t(key, params);
  }

  /** Loads the checkpoint among the entries ([{ path, size, file }]); the previous model is freed first. */
  async #load(entries) {
    if (!this.hooks.canLoad()) return;
    if (!entries.length) {
      this.hooks.error.show('real.error.load', { kind: 'noFiles', params: {}, detail: '' });
      return;
    }
    // The previous load's error goes at once, before anything is awaited: what shows after is this load's.
    this.hooks.error.hide();
    // The page's engine came from this entry (app.mjs): it is there by the time a reader gives files.
    const { pickModelFiles } = await modelEntry();
    if (!this.hooks.canLoad()) return; // another load started meanwhile
    const picked = pickModelFiles(entries);
    // The weight files the loader reads, as it reports them: the load line counts what was read, not what was given.
    const weights = new Set();
    await this.#loadFrom(
      picked.files.map((f) => f.file),
      { onLoad: (p) => weights.add(p.file) },
      ['real.reading', {}],
      () => {
        const read = filesRead(picked, weights);
        return { key: 'real.loaded', params: { files: read.length, bytes: formatBytes(totalBytes(read)) } };
      },
    );
  }

  /** Downloads `repo` (its GGUF `file`) from the Hub (or this browser's cache) and loads it; cancel stops it. */
  async #loadByName({ repo, file, endpoint, token }) {
    if (!this.hooks.canLoad()) return;
    const controller = new AbortController();
    let downloaded = 0;
    const named = file ? `${repo}/${file}` : repo; // as the status line names it
    this.#hub.showCancel(() => controller.abort(new DOMException(t('real.cancelled'), 'AbortError')));
    try {
      await this.#loadFrom(
        repo,
        {
          endpoint,
          ...(file ? { file } : {}),
          ...(token ? { token } : {}),
          signal: controller.signal,
          onDownload: (p) => (downloaded = p.totalBytes),
        },
        ['real.asking', { endpoint, repo: named }],
        () => ({
          key: 'real.loadedHub',
          params: {
            repo: named,
            from: downloaded
              ? t('real.loadedHub.downloaded', { bytes: formatBytes(downloaded) })
              : t('real.loadedHub.cached'),
          },
        }),
      );
    } finally {
      this.#hub.showCancel(null);
    }
  }

  /** Frees the previous model and loads `source`; `loaded()` says what the status line writes after. */
  async #loadFrom(source, { onDownload, onLoad, ...options }, status, loaded) {
    this.hooks.error.hide();
    this.hooks.begin();
    const progress = this.#input.startProgress();
    const onProgress = (p) => {
      if (p.phase === 'download') onDownload?.(p);
      if (p.phase === 'load') onLoad?.(p);
      progress(p);
    };
    this.#status = status;
    this.#writeStatus();
    const start = performance.now();
    let model = null;
    try {
      model = await this.#engine.loadModel(source, { ...options, onProgress });
      const { modelType, numLayers, numHeads, hiddenSize, vocabSize } = model.config;
      const { key, params } = loaded();
      this.#status = [
        key,
        {
          type: modelType,
          layers: numLayers,
          heads: numHeads,
          hidden: hiddenSize,
          vocab: vocabSize,
          ...params,
          ms: Math.round(performance.now() - start),
        },
      ];
    } catch (error) {
      this.#status = ['real.none', {}];
      if (error?.name === 'AbortError') this.#status = ['real.cancelled', {}];
      else this.hooks.error.show('real.error.load', loadErrorReason(error));
    } finally {
      this.#input.endProgress(Boolean(model));
      this.#writeStatus();
    }
    await this.hooks.end(model);
  }
}
