// The real-model view's way in for a checkpoint (views/real-model.mjs): the
// folder and file pickers and the drop zone, which hand the view what the
// reader gave ([{ path, size, file }], lib/dropped-files.mjs), and the
// progress bar while the weights stream into the engine.
import { t } from '../lib/i18n.mjs';
import { carriesFiles, droppedFiles, inputFiles } from '../lib/dropped-files.mjs';
import { formatBytes } from '../model/real-model-files.mjs';

export class ModelFilesInput {
  #frame = 0; // the animation frame that draws the latest progress, if one is due
  #last = null;

  /**
   * @param {HTMLElement} section the #real-model section, where files may be dropped
   * @param {{ canLoad: () => boolean, onEntries: (entries: object[]) => void, onError: (error: unknown) => void }} options
   *   canLoad: whether a drop is taken now; onEntries: the files given; onError: a drop that could not be read
   */
  constructor(section, { canLoad, onEntries, onError }) {
    const $ = (selector) => section.querySelector(selector);
    this.el = {
      drop: $('.real-drop'),
      folder: $('#real-folder'),
      files: $('#real-files'),
      box: $('.real-progress'),
      progress: $('#real-progress'),
      text: $('#real-progress-text'),
    };
    const { el: e } = this;
    for (const input of [e.folder, e.files])
      input.addEventListener('change', () => {
        const entries = inputFiles(input);
        input.value = '';
        onEntries(entries);
      });
    section.addEventListener('dragover', (event) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = canLoad() ? 'copy' : 'none';
      e.drop.classList.add('over');
    });
    section.addEventListener('dragleave', (event) => {
      if (!section.contains(event.relatedTarget)) e.drop.classList.remove('over');
    });
    section.addEventListener('drop', (event) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      e.drop.classList.remove('over');
      if (!canLoad()) return;
      droppedFiles(event.dataTransfer).then(onEntries, onError);
    });
  }

  /** Whether the pickers and the drop zone take files. */
  setEnabled(enabled) {
    this.el.folder.disabled = !enabled;
    this.el.files.disabled = !enabled;
    this.el.drop.classList.toggle('disabled', !enabled);
  }

  /** Shows an empty progress bar; returns the onProgress for engine.loadModel, drawn once per frame. */
  startProgress() {
    const { el: e } = this;
    e.progress.value = 0;
    e.progress.max = 1;
    e.text.textContent = '';
    e.box.hidden = false;
    return (p) => {
      this.#last = p;
      if (this.#frame) return;
      this.#frame = requestAnimationFrame(() => {
        this.#frame = 0;
        const last = this.#last;
        e.progress.max = last.totalBytes || 1;
        e.progress.value = last.loadedBytes;
        e.text.textContent = t(last.phase === 'download' ? 'real.progress.download' : 'real.progress', {
          file: last.file,
          loaded: formatBytes(last.loadedBytes),
          total: formatBytes(last.totalBytes),
        });
      });
    };
  }

  /** Stops drawing the progress (full when `loaded`) and hides it. */
  endProgress(loaded) {
    cancelAnimationFrame(this.#frame);
    this.#frame = 0;
    if (loaded) this.el.progress.value = this.el.progress.max;
    this.el.box.hidden = true;
  }
}
