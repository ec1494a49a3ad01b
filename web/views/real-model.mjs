// "Real model" (真实模型): a Hugging Face checkpoint that the reader drops or
// picks, or names on the Hugging Face Hub (downloaded into this browser's
// Cache API), loaded by the engine (engine.loadModel, in its Worker; a
// reader's files are read in the browser and never leave it;
// views/real-model-load.mjs), run on the sentence, and shown as
// bertviz's model view: every layer × head as a thumbnail (views/model-grid.mjs);
// the chosen head opens large with the model's own tokens (views/model-head.mjs).
// The scores (model/real-model-scores.mjs) sort the heads and say, from the
// numbers only, where the focus token (the six 毒) looks. Its choices (head,
// order) are reported to the page's URL state. The tokens and menus
// around the heads, views/real-model-controls.mjs; what went wrong, in the
// reader's words, views/real-model-error.mjs. Which heads matter, by
// experiment on the text (every kind; a translation model's inside its view):
// views/heads-matter.mjs.
import { OKABE_ITO } from '../lib/palette.mjs';
import { fixed } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import { SENTENCE } from '../sentence.mjs';
import {
  ORDERS,
  allHeadScores,
  focusRows,
  rankHeads,
  repeatedTokens,
  scoreApplies,
  uniformScores,
} from '../model/real-model-scores.mjs';
import { articleMap, articleRecords } from '../model/real-article.mjs';
import { articleNotes } from './real-article.mjs';
import { predictionFit } from '../model/predictions.mjs';
import { ArticleView } from './real-article.mjs';
import { HeadTools } from './real-head-tools.mjs';
import { ModelGrid, summaryItems } from './model-grid.mjs';
import { ModelHead } from './model-head.mjs';
import { ModelLoader } from './real-model-load.mjs';
import { fillControls, tokenList } from './real-model-controls.mjs';
import { TranslationView } from './translation.mjs';
import { PredictionsView } from './predictions.mjs';
import { ErrorBox, otherError } from './real-model-error.mjs';
import { HeadsMatter } from './heads-matter.mjs';

/** The longest sentence the text box takes (the model's positions are checked by the engine). */
export const MAX_TEXT = 200;
const COLOR = OKABE_ITO.blue;

export class RealModelView {
  #engine = null;
  #model = null;
  #busy = false;
  /** The last run: { tokens, records, attention, numLayers, numHeads, causal, ms } or null. */
  #run = null;
  #focus = null;
  #heads = [];
  #baseline = null;
  /** The thumbnails (views/model-grid.mjs) and the chosen head, large (views/model-head.mjs). */
  #grid;
  #head;
  /** The files and the name the model comes from, and the status line (views/real-model-load.mjs). */
  #loader;
  /** The run in the article's terms (views/real-article.mjs), and what it measured for the chosen head's table. */
  #article;
  #articleScores = { closest: null, role: null };
  /** The chosen head's head view, neuron view, hidden special tokens and export (views/real-head-tools.mjs). */
  #tools;
  /** A translation model's view (views/translation.mjs). */
  #translation;
  /** The next token or a [MASK]'s fill (views/predictions.mjs). */
  #predictions;
  #loadedNote = null;
  /** What went wrong, in the reader's words (views/real-model-error.mjs). */
  #error;
  /** Which heads matter (views/heads-matter.mjs). */
  #matter;

  /**
   * @param {HTMLElement} section the #real-model section of index.html
   * @param {{ head?: { layer: number, head: number } | null, order?: string,
   *   onChange?: (patch: { realHead?: object, realOrder?: string }) => void }} options
   *   head, order: the choice to show first (from the link); onChange: called when the reader changes them
   */
  constructor(section, { head = null, order = 'grid', onChange = () => {} } = {}) {
    const $ = (selector) => section.querySelector(selector);
    this.section = section;
    this.onChange = onChange;
    this.selected = head;
    this.order = ORDERS.includes(order) ? order : 'grid';
    this.el = {
      forward: $('#real-forward'),
      error: $('#real-error'),
      form: $('#real-run'),
      text: $('#real-text'),
      submit: $('#real-run button[type="submit"]'),
      tokens: $('.real-tokens'),
      body: $('.real-body'),
      order: $('#real-order'),
      focus: $('#real-focus'),
      help: $('.real-help'),
      summary: $('.real-summary'),
      gridCaption: $('.real-grid-caption'),
      grid: $('.real-grid'),
      heatmap: $('.real-heatmap'),
      scores: $('.real-scores'),
      whereTitle: $('.real-where-title'),
      where: $('.real-where'),
      article: $('.real-article'),
      predictions: $('.real-predictions'),
    };
    const { el: e } = this;
    e.text.maxLength = MAX_TEXT;
    e.text.value = SENTENCE;
    this.#grid = new ModelGrid(
      { grid: e.grid, caption: e.gridCaption },
      {
        color: COLOR,
        onPreview: (h) => this.#showHead(h),
        onLeave: () => this.#showHead(this.selected),
        onChoose: (h) => this.#choose(h),
      },
    );
    this.#head = new ModelHead(
      { heatmap: e.heatmap, scores: e.scores, whereTitle: e.whereTitle, where: e.where },
      COLOR,
    );
    this.#article = new ArticleView(e.article, { onChoose: (h) => this.#choose(h) });
    this.#tools = new HeadTools(section, {
      onChoose: (h) => this.#choose(h),
      onHide: () => {
        this.#head.forget();
        this.#showHead(this.selected);
      },
      onLock: (query) => this.#head.heatmap?.markRow(query),
      heatmapSvg: () => this.#head.heatmap?.svg ?? null,
      about: () => ({ model: this.#model?.config.modelType ?? 'model', variant: this.#engine.variant }),
    });
    this.#error = new ErrorBox(e.error);
    this.#loader = new ModelLoader(section, {
      error: this.#error,
      canLoad: () => Boolean(this.#engine) && !this.#busy,
      setInputs: (enabled) => this.#setInputs(enabled),
      begin: () => {
        this.#busy = true;
        this.#setInputs(false);
        this.#clear();
        const old = this.#model;
        this.#model = null;
        old?.dispose();
      },
      end: async (model) => {
        this.#model = model;
        this.#busy = false;
        this.#setInputs(true);
        if (model) await this.#compute();
      },
    });
    this.#predictions = new PredictionsView(e.predictions, {
      append: (text) => {
        e.text.value += text;
        this.#compute();
      },
      mask: () => {
        // The second 毒 of the sentence (the verb of 用毒毒毒蛇) as the model's mask token.
        const mask = this.#model?.specialTokens.mask;
        if (!mask) return;
        const chars = [...SENTENCE];
        chars[2] = mask.token;
        e.text.value = chars.join('');
        this.#compute();
      },
      text: () => e.text.value,
    });
    this.#translation = new TranslationView($('.mt'), {
      text: () => e.text.value,
      onBusy: (busy) => this.#setInputs(!busy),
      onError: (key, error) => this.#error.show(key, otherError(error)),
      // Which heads matter analyses the text translated last (its own button's translation too).
      onTranslated: (text) => this.#matter.show(this.#model, { text, note: this.#translation.note }),
    });
    this.#matter = new HeadsMatter($('.heads-matter'), {
      onBusy: (busy) => {
        this.#busy = busy;
        this.#setInputs(!busy);
        this.#translation.hold(busy);
      },
      onError: (key, error) => this.#error.show(key, otherError(error)),
      onChoose: (group, head) =>
        group === 'encoder' || group === 'decoder' ? this.#choose(head) : this.#translation.showHead(group, head),
      variant: () => this.#engine.variant,
    });
    this.#setInputs(false);
    this.#listen();
  }

  #listen() {
    const { el: e } = this;
    e.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.#compute();
    });
    e.order.addEventListener('change', () => {
      this.order = e.order.value;
      this.onChange({ realOrder: this.order });
      e.summary.replaceChildren(...summaryItems(this.#heads, this.#baseline, this.order));
      this.#arrangeGrid();
    });
    e.focus.addEventListener('change', () => {
      this.#focus = e.focus.value;
      this.#score();
      this.#drawAll();
    });
  }

  /** The engine is ready: loading is possible from now on. */
  enable(engine) {
    this.#engine = engine;
    this.#loader.enable(engine);
    this.#setInputs(true);
  }

  /** Writes every text again in the page's (new) language. */
  relabel() {
    this.#loader.relabel();
    this.#translation.relabel();
    this.#predictions.relabel();
    this.#error.relabel();
    this.#matter.relabel();
    if (this.#loadedNote) this.#writeForward();
    if (this.#run) {
      this.#head.forget();
      this.#drawAll();
    }
  }

  #setInputs(enabled) {
    const { el: e } = this;
    this.#loader.setEnabled(enabled);
    e.text.disabled = !enabled || !this.#model;
    e.submit.disabled = !enabled || !this.#model;
    this.#matter?.setEnabled(enabled);
  }

  /** Empties the view (a new model is loading): nothing of the previous model stays on screen. */
  #clear() {
    this.#run = null;
    this.#tools.reset();
    this.#loadedNote = null;
    this.#grid.clear();
    this.#head.clear();
    this.#article.clear();
    this.el.body.hidden = true;
    this.el.tokens.replaceChildren();
    this.el.forward.textContent = '';
    this.#translation.hide();
    this.#predictions.show(null);
    this.#matter.hide();
    delete this.section.dataset.ready;
  }

  /** Runs the model on the text box's sentence and draws it. */
  async #compute() {
    const model = this.#model;
    if (!model || this.#busy || this.#translation.busy) return;
    const { el: e } = this;
    if (model.config.kind === 'encoder-decoder') {
      // A translation model translates the sentence (views/translation.mjs) instead of showing its encoder alone.
      e.body.hidden = true;
      this.#error.hide();
      this.#translation.show(model);
      this.#translation.matterSlot.append(this.#matter.root);
      await this.#translation.translate(e.text.value);
      if (model === this.#model) this.section.dataset.ready = 'true';
      return;
    }
    this.#translation.hide();
    this.el.predictions.after(this.#matter.root);
    this.#busy = true;
    this.#setInputs(false);
    delete this.section.dataset.ready;
    try {
      const start = performance.now();
      // With its head's logits when it has one: the next token (a decoder), or each [MASK]'s fill (a BERT's).
      const { hasLogits, kind } = model.config;
      // With every head's queries and keys for the neuron view (a few floats per token and head).
      const result = await model.run(e.text.value, {
        returnAttention: true,
        returnLogits: hasLogits,
        returnQueryKey: true,
        returnHeadOutputs: true,
      });
      const ms = performance.now() - start;
      if (model !== this.#model) return; // another model was loaded meanwhile
      const maskId = model.specialTokens.mask?.id;
      const { numLayers, numHeads, causal } = model.config;
      // Whether the model's own predictions of the text beat chance (null: no output head to measure with).
      const fit = hasLogits
        ? predictionFit({
            logits: result.logits,
            vocab: model.config.vocabSize,
            inputIds: result.inputIds,
            special: result.special,
            causal,
          })
        : null;
      this.#predictions.show(
        hasLogits && (kind === 'decoder' || maskId !== undefined)
          ? {
              kind: kind === 'decoder' ? 'decoder' : 'masked',
              logits: result.logits,
              vocab: model.config.vocabSize,
              inputIds: result.inputIds,
              tokens: result.tokens,
              maskId,
              pieces: (ids) => model.pieces(ids),
              decode: (ids) => model.decode(ids),
              model,
              // Measured no better than chance: the list is said to be no finding (views/predictions.mjs).
              untrained: !fit?.better,
            }
          : null,
      );
      // The tokens read against the article's sentence (null for another text): its numbers, roles and targets.
      // (A [MASK] on one of its characters keeps it the sentence: the mask token stands for what it hides.)
      const article = articleMap(
        result.tokens,
        result.special,
        e.text.value,
        maskId === undefined ? null : model.specialTokens.mask.token,
      );
      this.#run = {
        tokens: result.tokens,
        // Which tokens are special: the model's tokenizer says (never guessed from their text).
        special: result.special,
        article,
        text: e.text.value,
        records: articleRecords(result.tokens, article, t('gloss.tokens')),
        attention: result.attention,
        numLayers,
        numHeads,
        fit,
        query: result.query,
        key: result.key,
        numKVHeads: model.config.numKVHeads,
        headDim: model.config.headDim,
        queryKeyScale: result.queryKeyScale,
        // What each head writes from each token, for the heatmap's norm-weighted view (views/model-head.mjs).
        valueNorms: result.headOutputs[kind].valueNorms,
        causal,
        ms,
      };
      this.#error.hide();
      // Which heads matter needs an output head, and a BERT a [MASK] to fill; the page's flag on the checkpoint.
      if (hasLogits)
        this.#matter.show(model, {
          text: this.#run.text,
          note: articleNotes(this.#run, this.#run.text)[0].kind,
          ready: kind === 'decoder' || result.inputIds.includes(maskId),
        });
      else this.#matter.hide();
      this.#loadedNote = { tokens: result.tokens.length, ms };
      this.#writeForward();
      const repeated = repeatedTokens(result.tokens, result.special);
      if (this.#focus === null || (this.#focus !== '' && !repeated.some((r) => r.text === this.#focus)))
        this.#focus = repeated[0]?.text ?? '';
      this.#score();
      const { selected } = this;
      if (!selected || selected.layer >= numLayers || selected.head >= numHeads)
        this.selected = { ...rankHeads(this.#heads, 'same')[0] };
      this.selected = { layer: this.selected.layer, head: this.selected.head };
      this.#head.forget();
      this.#grid.clear();
      e.body.hidden = false;
      await this.#drawAll();
      this.section.dataset.ready = 'true';
    } catch (error) {
      this.#error.show('real.error.run', otherError(error));
    } finally {
      this.#busy = false;
      this.#setInputs(true);
    }
  }

  #writeForward() {
    const engine = this.#engine;
    this.el.forward.textContent = t('real.forward', {
      tokens: this.#loadedNote.tokens,
      ms: fixed(this.#loadedNote.ms, 1),
      variant: engine.variant,
      build: t(`status.build.${engine.variant}`),
      threads: t('status.threads', { n: engine.threads }),
    });
  }

  /** The scores of every head for the current focus, and the even-spread baseline. */
  #score() {
    const run = this.#run;
    if (!run) return;
    const rows = focusRows(run.tokens, this.#focus, run.special);
    this.#heads = allHeadScores(run, rows);
    this.#baseline = uniformScores(run.tokens, rows, run.special, run.causal);
  }

  async #drawAll() {
    if (!this.#run) return;
    // Sorted by a score this sentence has no key for (a link's rorder=special on GPT-2): by layer and head instead.
    if (this.order !== 'grid' && !scoreApplies(this.#baseline, this.order)) {
      this.order = 'grid';
      this.onChange({ realOrder: this.order });
    }
    // Records again: a new language's glosses and role words.
    this.#run.records = articleRecords(this.#run.tokens, this.#run.article, t('gloss.tokens'));
    this.el.tokens.replaceChildren(...tokenList(this.#run));
    this.#articleScores = this.#article.draw(this.#run, this.#run.text);
    fillControls(this.el, this.#run, { order: this.order, focus: this.#focus, baseline: this.#baseline });
    this.el.summary.replaceChildren(...summaryItems(this.#heads, this.#baseline, this.order));
    const run = this.#run;
    if (!(await this.#grid.draw(run, () => run === this.#run))) return;
    this.#arrangeGrid();
    this.#showHead(this.selected);
    this.#tools.draw(run, this.selected);
  }

  /** Places the thumbnails in the current order. */
  #arrangeGrid() {
    if (this.#run) this.#grid.arrange(this.#run, this.#heads, this.order, this.selected);
  }

  #choose(head) {
    this.selected = head;
    this.onChange({ realHead: head });
    this.#grid.markChosen(head);
    this.#showHead(head);
    if (this.#run) this.#tools.draw(this.#run, head);
  }

  /** Opens a head large: the heatmap with the model's tokens, its scores, and where each focus token looks. */
  #showHead(head) {
    if (!this.#run || !head) return;
    this.#head.show(
      this.#run,
      head,
      { heads: this.#heads, baseline: this.#baseline, focus: this.#focus, article: this.#articleScores },
      this.#tools.layerView(this.#run, head.layer),
    );
  }
}
