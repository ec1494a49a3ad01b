// The real-model view's way in by name (views/real-model.mjs): a Hugging Face
// model name, suggestions with their download sizes (computed from the
// Hub's own file lists, fetched when the reader asks for them; a GGUF
// suggestion's is its file's), the
// Hub to ask (those the page's server allows: /hub-endpoints.json, its CSP),
// a token for gated models (kept in this tab only), and the note saying
// which hosts the page contacts and why. Loading, progress and cancel are the
// view's.
import { t } from '../lib/i18n.mjs';
import { modelEntry } from '../lib/package.mjs';
import { formatBytes } from '../model/real-model-files.mjs';
import { SUGGESTED_MODELS, suggestionDownload, suggestionKey } from '../model/hub-models.mjs';

// The package's public entry for models (listModelFiles, parseModelName, DEFAULT_HUB_ENDPOINT): the
// page's engine comes from it too (app.mjs), so it is there by the time a reader submits a name.
let entry;
const models = async () => (entry ??= await modelEntry());

/** The Hubs the page's server lets it reach (web/server.mjs); a static host without the file: huggingface.co. */
export async function hubEndpoints() {
  const { DEFAULT_HUB_ENDPOINT: DEFAULT_ENDPOINT } = await models();
  try {
    const response = await fetch('hub-endpoints.json', { cache: 'no-cache' });
    if (!response.ok) return [DEFAULT_ENDPOINT];
    const { endpoints } = await response.json();
    return Array.isArray(endpoints) && endpoints.every((e) => typeof e === 'string') ? endpoints : [DEFAULT_ENDPOINT];
  } catch {
    return [DEFAULT_ENDPOINT];
  }
}

export class ModelHubInput {
  #endpoints = [];
  /** endpoint → Map(suggestionKey → { bytes, exact } | { error, absent? }) of the suggestions' sizes, once asked. */
  #sizes = new Map();
  #onName;
  /** The GGUF file of the suggestion last clicked, while the name field still holds its repo. */
  #file = null;
  /** The suggestions' buttons and their size labels, in SUGGESTED_MODELS' order. */
  #buttons = [];

  /**
   * @param {HTMLElement} section the #real-model section
   * @param {{ onName: (request: { repo: string, file?: string, endpoint: string, token?: string }) => void }} options
   */
  constructor(section, { onName }) {
    const $ = (selector) => section.querySelector(selector);
    this.#onName = onName;
    this.el = {
      form: $('#real-hub'),
      name: $('#real-name'),
      load: $('#real-hub-load'),
      cancel: $('#real-cancel'),
      suggestions: $('.real-suggestions'),
      sizes: $('.real-sizes'),
      askSizes: $('#real-sizes'),
      endpoint: $('#real-endpoint'),
      token: $('#real-token'),
      hosts: $('.real-hosts'),
    };
    const { el: e } = this;
    e.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.#submit(e.name.value.trim());
    });
    e.name.addEventListener('input', () => (this.#file = null));
    // The Hub is asked for the suggestions' sizes only when the reader asks.
    e.askSizes.addEventListener('click', () => this.#askSizes());
    e.endpoint.addEventListener('change', () => {
      this.#writeHosts();
      this.#drawSuggestions();
    });
  }

  /** Shows the form for `endpoints` (none: the page's server allows no Hub, and the form says so). */
  setEndpoints(endpoints) {
    this.#endpoints = endpoints;
    const { el: e } = this;
    e.endpoint.replaceChildren(
      ...endpoints.map((url) => Object.assign(document.createElement('option'), { value: url, textContent: url })),
    );
    this.el.form.hidden = false;
    this.relabel();
  }

  get endpoint() {
    return this.el.endpoint.value;
  }

  setEnabled(enabled) {
    const { el: e } = this;
    e.name.disabled = e.load.disabled = !enabled || !this.#endpoints.length;
    for (const button of e.suggestions.querySelectorAll('button')) button.disabled = e.load.disabled;
  }

  /** Shows the cancel button while a load by name runs; `onCancel` is called when it is pressed. */
  showCancel(onCancel) {
    const { cancel } = this.el;
    cancel.hidden = !onCancel;
    cancel.onclick = onCancel ? () => onCancel() : null;
  }

  relabel() {
    this.#writeHosts();
    this.#drawSuggestions();
  }

  #submit(text) {
    // At once (the view's error and progress are reset in the same task as the click).
    if (!entry) return void models().then(() => this.#submit(text));
    const repo = entry.parseModelName(text)?.repo;
    if (!repo) {
      this.el.name.setCustomValidity(t('real.hub.badName', { name: text }));
      this.el.name.reportValidity();
      return;
    }
    this.el.name.setCustomValidity('');
    const token = this.el.token.value.trim();
    const file = this.#file?.repo === repo ? this.#file.file : undefined;
    this.#onName({ repo, ...(file ? { file } : {}), endpoint: this.endpoint, ...(token ? { token } : {}) });
  }

  #writeHosts() {
    const { el: e } = this;
    if (!this.#endpoints.length) {
      e.hosts.textContent = t('real.hub.none');
      return;
    }
    // The hosts as code, never translated: the message around them is.
    const values = { '{endpoint}': this.endpoint, '{allowed}': this.#endpoints.join(', ') };
    const text = t('real.hub.hosts', { endpoint: '{endpoint}', allowed: '{allowed}' });
    e.hosts.replaceChildren(
      ...text
        .split(/(\{endpoint\}|\{allowed\})/)
        .map((part) =>
          Object.hasOwn(values, part)
            ? Object.assign(document.createElement('span'), { translate: false, textContent: values[part] })
            : part,
        ),
    );
  }

  // The buttons are made once and written again in place: a redraw under the pointer would swallow a click.
  #drawSuggestions() {
    const { el: e } = this;
    if (!this.#buttons.length)
      for (const { repo, file } of SUGGESTED_MODELS) {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'real-suggestion';
        const name = Object.assign(document.createElement('span'), { textContent: repo, translate: false });
        name.className = 'real-suggestion-name';
        const size = document.createElement('span');
        size.className = 'real-suggestion-size';
        button.append(name, ' ');
        if (file) {
          const gguf = Object.assign(document.createElement('span'), { textContent: file, translate: false });
          gguf.className = 'real-suggestion-file';
          button.append(gguf, ' ');
        }
        button.append(size);
        button.addEventListener('click', () => {
          e.name.value = repo;
          this.#file = file ? { repo, file } : null;
          this.#submit(repo);
        });
        const li = document.createElement('li');
        li.append(button);
        e.suggestions.append(li);
        this.#buttons.push({ button, size });
      }
    const sizes = this.#sizes.get(this.endpoint);
    SUGGESTED_MODELS.forEach((suggestion, i) => {
      const { button, size } = this.#buttons[i];
      const known = sizes?.get(suggestionKey(suggestion));
      button.disabled = e.load.disabled;
      button.title = t(suggestion.note);
      size.textContent = !known
        ? t('real.hub.size.unknown')
        : known.error
          ? t(known.absent ? 'real.hub.size.absent' : 'real.hub.size.error')
          : t(known.exact ? 'real.hub.size' : 'real.hub.size.about', { size: formatBytes(known.bytes) });
      size.title = known?.error ?? '';
    });
    e.sizes.textContent = sizes ? t('real.hub.sizes.from', { endpoint: this.endpoint }) : t('real.hub.sizes.when');
    e.askSizes.hidden = Boolean(sizes);
  }

  /** Each suggestion's download (the files the loader reads, or its GGUF file), from its repo's file list. */
  #askSizes() {
    const endpoint = this.endpoint;
    if (!endpoint || this.#sizes.has(endpoint)) return;
    const sizes = new Map();
    this.#sizes.set(endpoint, sizes);
    const lists = new Map(); // repo → its file list (asked once for the suggestions that share it)
    for (const suggestion of SUGGESTED_MODELS) {
      const { repo, file } = suggestion;
      if (!lists.has(repo))
        lists.set(
          repo,
          models().then(({ listModelFiles }) => listModelFiles(repo, { endpoint })),
        );
      lists
        .get(repo)
        .then((list) => {
          // The Hub answered, but the repo has not what the suggestion loads: said so, not as unreachable.
          const none = t(file ? 'real.hub.size.noFile' : 'real.hub.size.none', { file });
          sizes.set(suggestionKey(suggestion), suggestionDownload(suggestion, list) ?? { error: none, absent: true });
        })
        .catch((error) => sizes.set(suggestionKey(suggestion), { error: error.message }))
        .finally(() => {
          if (this.endpoint === endpoint) this.#drawSuggestions();
        });
    }
    this.#drawSuggestions();
  }
}
