// "Real translation" (真实翻译): a translation model (an encoder-decoder such
// as Helsinki-NLP/opus-mt-zh-en) loaded in the real-model view translates the
// sentence in the page (model.generate in the engine's Worker: greedy or beam
// search, the English appearing token by token), and shows
// - the cross-attention as an alignment: for each English token, where each
//   head of each layer looks among the Chinese pieces (a layer × head grid of
//   thumbnails; one head, a layer's mean or every head's mean large), and
//   which of the six 毒 it weighs most; and the encoder's self-attention and
//   the decoder's masked self-attention of the same run, in the same grid and
//   heatmap (views/translation-attention.mjs);
// - heads switched off (per head and layer, or presets: keep head h only;
//   views/translation-heads.mjs) and the sentence translated again, with both
//   scores and how the alignment of the first translation's words moved.
// This module runs the translations and writes their text, scores and the
// comparison. Every number is the engine's; the text says what is model and
// what is not.
import { el } from '../lib/dom.mjs';
import { fixed } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import { mountView } from '../lib/mount.mjs';
import {
  ATTENTION_GROUPS,
  crossWeights,
  sequenceLogProb,
  specialFlags,
  topPieceChanges,
} from '../model/translation.mjs';
import { translationNotes } from '../model/translation-notes.mjs';
import { HeadSwitches } from './translation-heads.mjs';
import { TranslationAttention } from './translation-attention.mjs';

/** The translation's controls, output, head switches and attention views; index.html holds the empty .mt. */
const MARKUP = /* HTML */ `
  <h3 id="mt-title" data-i18n="mt.title"></h3>
  <p class="explain" data-i18n-html="mt.explain"></p>
  <form id="mt-run" class="bar mt-run">
    <label
      ><span data-i18n="mt.beams"></span>
      <select id="mt-beams"></select
    ></label>
    <button type="submit" data-i18n="mt.translate"></button>
  </form>
  <p class="mt-output" aria-live="polite" translate="no" lang="en"></p>
  <p id="mt-status" class="status" role="status"></p>
  <ol class="mt-candidates"></ol>
  <ul class="mt-notes real-article-notes"></ul>
  <h4 data-i18n="mt.heads.title"></h4>
  <p class="help" data-i18n-html="mt.heads.explain"></p>
  <div class="bar mt-mask-bar">
    <label
      ><span data-i18n="mt.heads.group"></span>
      <select id="mt-mask-group"></select
    ></label>
    <label
      ><span data-i18n="mt.heads.preset"></span>
      <select id="mt-mask-preset"></select
    ></label>
    <button id="mt-mask-run" type="button" data-i18n="mt.heads.run"></button>
  </div>
  <div class="mt-mask" role="group" data-i18n-attr="aria-label:mt.heads.grid"></div>
  <p class="mt-compare" aria-live="polite"></p>
  <p class="caveat" data-i18n-html="mt.heads.caveat"></p>
  <div class="mt-matter"></div>
  <h4 data-i18n="mt.attention.title"></h4>
  <p class="mt-shown" role="status"></p>
  <div class="bar mt-attention-bar">
    <label
      ><span data-i18n="mt.attention.group"></span>
      <select id="mt-group"></select
    ></label>
    <label
      ><span data-i18n="mt.attention.which"></span>
      <select id="mt-which"></select
    ></label>
  </div>
  <p class="mt-grid-caption explain"></p>
  <div class="real-grid-box">
    <div class="real-grid mt-grid" role="group" data-i18n-attr="aria-label:mt.attention.grid"></div>
  </div>
  <div class="mt-heatmap"></div>
  <h4 data-i18n="mt.du.title"></h4>
  <p class="help" data-i18n-html="mt.du.explain"></p>
  <div class="mt-du"></div>
`;

const BEAMS = [1, 2, 4, 6];
const MASK_GROUPS = ['all', ...ATTENTION_GROUPS];

/** How many tokens a translation produced, the special ones (</s>) not counted. */
const producedTokens = (specialTokens, outputIds) =>
  specialFlags(specialTokens, outputIds.subarray(1)).filter((f) => !f).length;

/** The pieces of a decoded sequence as text: ▁ is a space. */
const joinPieces = (pieces) => pieces.join('').replaceAll('▁', ' ').trim();

export class TranslationView {
  #model = null;
  #busy = false;
  /** The last translation with every head: { text, input, generated, forced } (see #translate). */
  #base = null;
  /** What the attention views show: the last translation, or the one with heads off. */
  #shown = null;
  #heads;
  #attention;
  #status = null;

  /**
   * @param {HTMLElement} root the .mt element of the real-model section
   * @param {{ text: () => string, onBusy: (busy: boolean) => void, onError: (key: string, error: unknown) => void,
   *   onTranslated?: (text: string) => void }} hooks
   *   the sentence to translate (the section's text box), and what the section does while busy, on an error, and
   *   after a translation with every head (of `text`)
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.el = mountView(root, MARKUP, {
      form: '#mt-run',
      beams: '#mt-beams',
      output: '.mt-output',
      status: '#mt-status',
      candidates: '.mt-candidates',
      notes: '.mt-notes',
      maskGroup: '#mt-mask-group',
      maskPreset: '#mt-mask-preset',
      maskRun: '#mt-mask-run',
      mask: '.mt-mask',
      compare: '.mt-compare',
      group: '#mt-group',
      which: '#mt-which',
      gridCaption: '.mt-grid-caption',
      grid: '.mt-grid',
      heatmap: '.mt-heatmap',
      du: '.mt-du',
      shown: '.mt-shown',
    });
    const $ = (selector) => root.querySelector(selector);
    /** Where the real-model view puts "Which heads matter" (views/heads-matter.mjs) for a translation model. */
    this.matterSlot = $('.mt-matter');
    const { el: e } = this;
    this.#heads = new HeadSwitches({ maskGroup: e.maskGroup, maskPreset: e.maskPreset, mask: e.mask });
    this.#attention = new TranslationAttention({
      group: e.group,
      which: e.which,
      gridCaption: e.gridCaption,
      grid: e.grid,
      heatmap: e.heatmap,
      du: e.du,
    });
    e.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.translate(this.hooks.text());
    });
    e.maskRun.addEventListener('click', () => this.#translateMasked());
  }

  /** A translation model was loaded: the controls for its sizes; nothing translated yet. */
  show(model) {
    if (model === this.#model) return; // the same model: its masks and results stay
    this.#model = model;
    this.#base = this.#shown = null;
    this.#attention.show(null);
    this.#heads.reset(model.config);
    this.root.hidden = false;
    this.#clearResults();
    this.relabel();
    this.#setEnabled(true);
  }

  /** No translation model (another kind, or none). */
  hide() {
    this.#model = null;
    this.#base = this.#shown = null;
    this.#attention.show(null);
    this.#heads.forget();
    this.root.hidden = true;
    this.#clearResults();
  }

  get busy() {
    return this.#busy;
  }

  /** The page's flag on the checkpoint, from the translation with every head (model/translation-notes.mjs). */
  get note() {
    return this.#base ? translationNotes(this.#base.generated).kind : 'unmeasured';
  }

  /** Another part of the section runs the model: the controls wait (busy), or are free again. */
  hold(busy) {
    if (this.#model) this.#setEnabled(!busy);
  }

  /** Opens one head of a group ('encoder', 'decoder', 'cross') in the attention views. */
  showHead(group, head) {
    if (this.#shown) this.#attention.showHead(group, head);
  }

  /** Writes every text again in the page's (new) language. */
  relabel() {
    if (!this.#model) return;
    const { el: e } = this;
    const beams = e.beams.value || '4';
    e.beams.replaceChildren(
      ...BEAMS.map((n) => new Option(n === 1 ? t('mt.beams.greedy') : t('mt.beams.n', { n }), String(n))),
    );
    e.beams.value = beams;
    const group = e.maskGroup.value || 'all';
    e.maskGroup.replaceChildren(...MASK_GROUPS.map((g) => new Option(t(`mt.group.${g}`), g)));
    e.maskGroup.value = group;
    this.#attention.relabel();
    this.#heads.relabel();
    this.#writeStatus();
    if (this.#shown) {
      this.#writeResult();
      this.#writeNotes();
      this.#drawAttention();
    }
  }

  #setEnabled(enabled) {
    for (const control of [this.el.beams, this.el.maskRun, this.el.form.querySelector('button')])
      control.disabled = !enabled || !this.#model;
  }

  #clearResults() {
    const { el: e } = this;
    e.output.textContent = '';
    e.candidates.replaceChildren();
    e.notes.replaceChildren();
    e.compare.textContent = '';
    e.shown.textContent = '';
    this.#attention.clear();
    this.#status = null;
    e.status.textContent = '';
    delete this.root.dataset.ready;
  }

  #writeStatus() {
    if (this.#status) this.el.status.textContent = t(this.#status[0], this.#status[1]);
  }

  #drawAttention() {
    this.#attention.show(this.#shown, this.#model.specialTokens);
    const masked = this.#shown !== this.#base;
    this.el.shown.textContent = masked ? t('mt.shown.masked', this.#shown.kept) : t('mt.shown.all');
    this.el.shown.classList.toggle('warning', masked);
  }

  /**
   * Translates `text` with every head, the English growing as each token is
   * decided; then draws its attention.
   */
  async translate(text) {
    const model = this.#model;
    if (!model || this.#busy) return;
    this.#clearResults();
    const run = await this.#generate(text, null);
    if (!run || model !== this.#model) return;
    this.#base = this.#shown = run;
    this.#writeResult();
    this.#writeNotes();
    this.#drawAttention();
    this.root.dataset.ready = 'true';
    this.hooks.onTranslated?.(text);
  }

  // One generation (heads off as `masks` says, or all), shown as it grows:
  // { text, masks, generated (generate()'s result), headOutputs (run()'s), ms }, or null after an error.
  async #generate(text, masks) {
    const model = this.#model;
    const { el: e } = this;
    this.#busy = true;
    this.#setEnabled(false);
    this.hooks.onBusy(true);
    const numBeams = Number(e.beams.value) || 4;
    this.#status = ['mt.translating', { beams: numBeams }];
    this.#writeStatus();
    try {
      const start = performance.now();
      const generated = await model.generate(text, {
        numBeams,
        numReturnSequences: numBeams,
        returnAttention: true,
        ...(masks && { headMask: masks }),
        // The full translation grows in the main output; one with heads off in the comparison.
        onToken: ({ tokens }) => {
          if (model === this.#model) (masks ? e.compare : e.output).textContent = joinPieces(tokens.slice(1));
        },
      });
      const ms = performance.now() - start;
      // What each head writes from each token, for the heatmaps' norm-weighted view (views/translation-attention.mjs):
      // one run over the ids generate() fed back, as its attention is.
      const fed = generated.outputIds.subarray(0, generated.outputIds.length - 1);
      const { headOutputs } = await model.run(
        { inputIds: generated.inputIds, decoderInputIds: fed },
        { returnAttention: false, returnHeadOutputs: true, ...(masks && { headMask: masks }) },
      );
      return { text, masks, generated, headOutputs, ms };
    } catch (error) {
      this.hooks.onError('mt.error', error);
      return null;
    } finally {
      this.#busy = false;
      this.#setEnabled(true);
      this.hooks.onBusy(false);
    }
  }

  /**
   * The translation with every head, its score and its candidates (a run with heads off never replaces them: it
   * is written in the comparison, and the maps below say which run they draw).
   */
  #writeResult() {
    const run = this.#base;
    const g = run.generated;
    const { el: e } = this;
    e.output.textContent = g.text ?? joinPieces(g.tokens.slice(1));
    this.#status = [
      'mt.done',
      {
        tokens: producedTokens(this.#model.specialTokens, g.outputIds),
        ms: fixed(run.ms, 0),
        score: fixed(g.score, 3),
        search: g.candidates.length > 1 ? t('mt.search.beam', { n: g.candidates.length }) : t('mt.search.greedy'),
      },
    ];
    this.#writeStatus();
    e.candidates.replaceChildren(
      ...(g.candidates.length > 1
        ? g.candidates.map((c, i) =>
            el('li', { textContent: t('mt.candidate', { i: i + 1, text: c.text ?? '', score: fixed(c.score, 3) }) }),
          )
        : []),
    );
  }

  // What the page can say of the checkpoint (measured on the translation with every head), and the source's pieces.
  #writeNotes() {
    const notes = translationNotes(this.#base.generated);
    const item = (kind, text) => {
      const li = el('li', { textContent: text });
      li.dataset.note = kind;
      if (kind !== 'source') li.className = 'warning';
      return li;
    };
    const pieces = notes.source.map((p) => `「${p}」`).join('');
    this.el.notes.replaceChildren(
      item(notes.kind, t(`mt.note.${notes.kind}`, notes)),
      item('source', t('mt.note.source', { n: notes.source.length, pieces })),
    );
  }

  /** Translates again with the heads switched off, and compares with the translation with every head. */
  async #translateMasked() {
    const model = this.#model;
    if (!model || this.#busy) return;
    const text = this.hooks.text();
    if (!this.#base || this.#base.text !== text) await this.translate(text);
    if (!this.#base || model !== this.#model) return;
    const masks = this.#heads.headMask();
    const kept = this.#heads.kept();
    const run = await this.#generate(text, masks);
    if (!run || model !== this.#model) return;
    run.kept = { kept: kept.reduce((n, k) => n + k.kept, 0), all: kept.reduce((n, k) => n + k.all, 0) };
    this.#shown = run;
    this.#writeResult();
    this.#drawAttention();
    await this.#compare(run);
  }

  // The first translation's words under these heads (teacher-forced): its log-probability, and how many of its
  // words now look mostly at another piece.
  async #compare(run) {
    const base = this.#base.generated;
    const ids = base.outputIds;
    const forced = await this.#model.run(
      { inputIds: base.inputIds, decoderInputIds: ids.subarray(0, ids.length - 1) },
      { returnLogits: true, ...(run.masks && { headMask: run.masks }) },
    );
    const vocab = this.#model.config.vocabSize;
    const S = base.inputIds.length;
    // Row t of the cross-attention is the query that chose output token t + 1: a row is left out when the token
    // it chose is special (</s>), so the rows are the tokens the status counts.
    const special = specialFlags(this.#model.specialTokens, ids.subarray(1));
    const moved = topPieceChanges(
      crossWeights(base.attentions.cross, 'mean'),
      crossWeights(forced.attentions.cross, 'mean'),
      S,
      special,
    );
    const all = this.#model.config;
    this.el.compare.textContent = t('mt.compare', {
      kept: run.kept.kept,
      all: run.kept.all,
      before: this.#base.generated.text ?? '',
      after: run.generated.text ?? '',
      same: run.generated.text === this.#base.generated.text ? t('mt.compare.same') : t('mt.compare.different'),
      logp: fixed(sequenceLogProb(forced.logits, vocab, ids), 3),
      logpAll: fixed(sequenceLogProb(this.#base.forcedLogits ?? (await this.#baseLogits()), vocab, ids), 3),
      moved: moved.changed,
      words: moved.rows.length,
      layers: all.decoderLayers,
    });
  }

  // The first translation's own logits with every head (for its log-probability), computed once.
  async #baseLogits() {
    const g = this.#base.generated;
    const ids = g.outputIds;
    const r = await this.#model.run(
      { inputIds: g.inputIds, decoderInputIds: ids.subarray(0, ids.length - 1) },
      { returnAttention: false, returnLogits: true },
    );
    this.#base.forcedLogits = r.logits;
    return r.logits;
  }
}
