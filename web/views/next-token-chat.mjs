// The chat box of the "下一个词 / Next token" view, for a decoder whose
// checkpoint has a chat template (model/next-token-chat.mjs runs it through
// the package's model.chat()): the conversation so far, a message box
// holding the page's sentence as the first message, the reply streamed as its
// tokens are decided, and the reply's tokens as buttons, each of which shows
// that token's attention in the step-by-step view's grid, heatmap and table
// (views/next-token-steps.mjs draws the records). Undo takes the last
// exchange back (its message returns to the box); "New conversation" starts
// again. Every token is the engine's greedy choice.
import { el } from '../lib/dom.mjs';
import { t } from '../lib/i18n.mjs';
import { mountView } from '../lib/mount.mjs';
import { tokenName } from '../lib/tokens.mjs';
import { CHAT_FIRST, ChatSteps, hasChatTemplate } from '../model/next-token-chat.mjs';
import { pieceLabel } from './top-tokens.mjs';
import { ErrorBox, otherError } from './real-model-error.mjs';

const MARKUP = /* HTML */ `
  <h4 data-i18n="chat.title"></h4>
  <p class="help" data-i18n="chat.help"></p>
  <p class="chat-caveat caveat" data-i18n="chat.caveat" hidden></p>
  <ol class="chat-log" data-i18n-attr="aria-label:chat.log.label"></ol>
  <form class="chat-form">
    <label class="chat-message"
      ><span data-i18n="chat.message"></span> <textarea id="chat-message" rows="2"></textarea>
    </label>
    <div class="bar chat-bar">
      <button id="chat-send" type="submit" data-i18n="chat.send"></button>
      <button id="chat-stop" type="button" data-i18n="chat.stop" hidden></button>
      <label
        ><span data-i18n="chat.max"></span> <input id="chat-max" type="number" min="1" max="256" step="1" value="32"
      /></label>
      <button id="chat-undo" type="button" data-i18n="chat.undo"></button>
      <button id="chat-new" type="button" data-i18n="chat.new"></button>
    </div>
  </form>
  <p id="chat-status" class="status" role="status"></p>
  <div class="chat-error error real-error" role="alert" hidden></div>
  <div class="chat-tokens-box" hidden>
    <p class="explain" data-i18n="chat.tokens"></p>
    <ol class="chat-tokens" data-i18n-attr="aria-label:chat.tokens.label"></ol>
  </div>
`;

export class ChatBox {
  #model = null;
  #chat = null; // ChatSteps of the conversation shown
  #epoch = 0; // a new model or conversation: a reply under way is dropped
  #busy = false;
  #held = false; // the step-by-step view is generating: no turn starts
  #stop = false;
  #status = ['chat.idle', {}];
  #error;
  /** The last reply's tokens: [{ id, piece, record? }] (the last one has no record: it was never fed). */
  #tokens = [];
  #shown = null; // the record drawn in the steps' view

  /**
   * @param {HTMLElement} root the .next-chat element
   * @param {{ draw: (record: object) => Promise<void> | void, busy: (on: boolean) => void, clear: () => void }} hooks
   *   draw: a reply token's record in the step-by-step view; busy: a turn starts or ends (the steps' buttons
   *   wait); clear: the step-by-step view back to its prompt (a turn starts: what it shows is not this turn's)
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.el = mountView(root, MARKUP, {
      caveat: '.chat-caveat',
      log: '.chat-log',
      form: '.chat-form',
      message: '#chat-message',
      send: '#chat-send',
      stop: '#chat-stop',
      max: '#chat-max',
      undo: '#chat-undo',
      clear: '#chat-new',
      status: '#chat-status',
      tokensBox: '.chat-tokens-box',
      tokens: '.chat-tokens',
    });
    const $ = (selector) => root.querySelector(selector);
    const { el: e } = this;
    this.#error = new ErrorBox($('.chat-error'));
    e.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.#send();
    });
    e.stop.addEventListener('click', () => (this.#stop = true));
    e.undo.addEventListener('click', () => this.#undo());
    e.clear.addEventListener('click', () => this.#begin());
    root.hidden = true;
  }

  /** A decoder (or null): the box shows when its checkpoint has a chat template; `untrained` adds the caveat. */
  async show(model, { untrained = false } = {}) {
    if (model === this.#model) return;
    this.#model = model;
    this.#end();
    this.#chat = null;
    this.root.hidden = true;
    this.el.caveat.hidden = !untrained;
    const epoch = ++this.#epoch;
    let template = false;
    try {
      template = Boolean(model) && (await hasChatTemplate(model));
    } catch (error) {
      if (epoch !== this.#epoch) return;
      this.root.hidden = false;
      this.#error.show('chat.error', otherError(error));
    }
    if (epoch !== this.#epoch || !template) return;
    this.root.hidden = false;
    this.#begin();
  }

  /** The step-by-step view generates (true) or is done: no turn starts meanwhile. */
  hold(on) {
    this.#held = on;
    this.#setEnabled();
  }

  relabel() {
    this.#writeStatus();
    this.#error.relabel();
    this.#drawLog();
    this.#drawTokens();
  }

  // A new conversation: nothing said, the sentence in the box.
  #begin() {
    if (!this.#model) return;
    this.#epoch++;
    this.#chat = new ChatSteps(this.#model);
    this.#end();
    this.#tokens = [];
    this.#shown = null;
    this.el.message.value = CHAT_FIRST;
    this.#status = ['chat.idle', {}];
    this.#error.hide();
    this.relabel();
    this.#setEnabled();
  }

  #end() {
    if (this.#busy) this.hooks.busy(false);
    this.#busy = false;
    this.#stop = false;
  }

  #setEnabled() {
    const { el: e } = this;
    const off = !this.#chat || this.#busy || this.#held;
    e.send.disabled = e.message.disabled = e.max.disabled = off;
    e.undo.disabled = off || !this.#chat?.messages.length;
    e.clear.disabled = !this.#chat || this.#held;
    e.stop.hidden = !this.#busy;
  }

  #writeStatus() {
    const [key, params] = this.#status;
    this.el.status.textContent = t(key, params);
  }

  #maxNewTokens() {
    const { max } = this.el;
    const n = Math.round(Number(max.value));
    const clamped = Math.min(Number(max.max), Math.max(Number(max.min), Number.isFinite(n) ? n : 1));
    max.value = String(clamped);
    return clamped;
  }

  async #send() {
    const chat = this.#chat;
    const content = this.el.message.value;
    if (!chat || this.#busy || this.#held || !content.trim()) return;
    const epoch = this.#epoch;
    this.hooks.clear();
    this.#busy = true;
    this.hooks.busy(true);
    this.#error.hide();
    this.#tokens = [];
    this.#shown = null;
    const reply = { role: 'assistant', content: '', streaming: true };
    this.#drawLog([{ role: 'user', content }, reply]);
    this.#drawTokens();
    this.#setEnabled();
    const start = performance.now();
    let facts = {};
    let last = performance.now();
    try {
      // The reply fits in the model's positions: fewer tokens than asked if only those fit, none if none do.
      const { length, room } = await chat.room(content);
      if (epoch !== this.#epoch) return;
      if (room < 1) throw Object.assign(new Error('full'), { full: { length, max: length + room } });
      const maxNewTokens = Math.min(this.#maxNewTokens(), room);
      facts.fewer = maxNewTokens < this.#maxNewTokens() ? t('chat.fewer', { room }) : '';
      for await (const out of chat.send(content, { maxNewTokens, stopped: () => this.#stop })) {
        if (epoch !== this.#epoch) return;
        if (out.kind === 'text') {
          if (out.step === 1) Object.assign(facts, { prefilled: out.prefilled, reused: out.reused });
          reply.content += out.textDelta ?? '';
          this.#tokens.push({ id: out.id, piece: this.#model.pieces([out.id])[0] });
          this.#status = ['chat.busy', { step: out.step }];
          this.#appendText(out.textDelta ?? '');
        } else {
          const token = this.#tokens[out.record.step - 1];
          token.record = { ...out.record, chat: true, ms: performance.now() - last };
          await this.#showRecord(token.record);
          if (epoch !== this.#epoch) return;
        }
        last = performance.now();
        this.#writeStatus();
        this.#drawTokens();
      }
      this.el.message.value = '';
      this.#status = [
        this.#stop ? 'chat.stopped' : 'chat.done',
        { tokens: this.#tokens.length, ms: Math.round(performance.now() - start), ...facts },
      ];
    } catch (error) {
      if (epoch !== this.#epoch) return;
      this.#status = ['chat.failed', {}];
      const full = error?.full && { kind: 'chatFull', params: error.full, detail: '' };
      this.#error.show('chat.error', full || otherError(error));
    } finally {
      if (epoch === this.#epoch) {
        this.#end();
        this.#writeStatus();
        this.#drawLog();
        this.#drawTokens();
        this.#setEnabled();
      }
    }
  }

  #undo() {
    if (!this.#chat || this.#busy) return;
    const content = this.#chat.undo();
    if (content !== null) this.el.message.value = content;
    this.#tokens = [];
    this.#shown = null;
    this.#error.hide();
    this.#status = ['chat.undone', {}];
    this.relabel();
    this.#setEnabled();
  }

  async #showRecord(record) {
    this.#shown = record;
    await this.hooks.draw(record);
  }

  // The conversation: its messages (or `messages`, while a turn streams: the last one grows).
  #drawLog(messages = this.#chat?.messages ?? []) {
    this.el.log.replaceChildren(
      ...messages.map((m) => {
        const item = el('li', { className: `chat-turn chat-${m.role}` });
        const text = el('p', { className: 'chat-text', translate: false, textContent: m.content ?? '' });
        item.append(el('span', { className: 'chat-role', textContent: t(`chat.role.${m.role}`) }), text);
        if (m.streaming) item.dataset.streaming = '';
        return item;
      }),
    );
  }

  #appendText(delta) {
    const text = this.el.log.querySelector('[data-streaming] .chat-text');
    if (text && delta) text.append(delta);
  }

  // The last reply's tokens: each a button that shows its attention (the last one's never computed: not fed).
  #drawTokens() {
    const { el: e } = this;
    e.tokensBox.hidden = !this.#tokens.length;
    e.tokens.replaceChildren(
      ...this.#tokens.map((token, i) => {
        const button = el('button', {
          type: 'button',
          translate: false,
          textContent: pieceLabel(token.piece),
          title: token.record
            ? tokenName({ text: token.piece, index: token.record.position })
            : t('chat.tokens.unfed', { token: pieceLabel(token.piece) }),
        });
        button.dataset.id = String(token.id);
        button.dataset.step = String(i + 1);
        if (token.record) {
          button.dataset.record = '';
          button.setAttribute('aria-pressed', String(token.record === this.#shown));
          button.addEventListener('click', () => this.#showRecord(token.record).then(() => this.#drawTokens()));
        } else button.disabled = true;
        return el('li', {}, button);
      }),
    );
  }
}
