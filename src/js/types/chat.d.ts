// Declarations of chat (src/js/index.d.ts re-exports them): a model's chat template
// (applyChatTemplate) and a decoder's conversation over its KV cache (chat), added to
// every model (ModelBase) and to decoders (DecoderModel) of types/models.d.ts by declaration merging.
import type { AttentionGroup } from './results.js';
import type { DecoderGenerationStep, GenerateStepsOptions } from './generation.js';

/** One message, as transformers' chat templates read them: a role, its content, and whatever else it carries. */
export interface ChatMessage {
  /** 'system', 'user', 'assistant', 'tool' … (a template may refuse a role, or an order of them). */
  role: string;
  /** The text (or an array of parts, or null beside tool_calls). */
  content?: string | ChatJson[] | null;
  /** Other fields a template reads (tool_calls, name, tool_call_id …), JSON values. */
  [field: string]: ChatJson | undefined;
}

/** A JSON value (what templates, tools and documents hold). */
export type ChatJson = string | number | boolean | null | ChatJson[] | { [key: string]: ChatJson };

export interface ChatTemplateOptions {
  /** Ends with the start of the assistant's turn (transformers' add_generation_prompt; default false). */
  addGenerationPrompt?: boolean;
  /**
   * Leaves the final message open, to be continued (transformers' continue_final_message): true for its content,
   * or the name of its field; not with addGenerationPrompt.
   */
  continueFinalMessage?: boolean | string;
  /** Also the ids, tokenized as transformers does (no special tokens added: the template writes them). */
  tokenize?: boolean;
  /** Tools as JSON schemas, for the templates that read them (transformers' tools). */
  tools?: { [key: string]: ChatJson }[];
  /** Documents for retrieval-augmented templates (transformers' documents). */
  documents?: { [key: string]: ChatJson }[];
  /** A name of the file's named templates ('tool_use'), or a template's own text; default the file's. */
  chatTemplate?: string;
  /**
   * More names for the template, as transformers' **kwargs (date_string, enable_thinking …), over the special
   * tokens (bos_token …); messages, tools, documents, add_generation_prompt and raise_exception are refused.
   */
  variables?: { [name: string]: ChatJson };
}

/** applyChatTemplate with tokenize: the text, its ids and their readable pieces. */
export interface ChatTemplateEncoding {
  text: string;
  inputIds: Int32Array;
  tokens: string[];
}

export interface ChatOptions {
  /** The system message the conversation starts with (or messages, not both). */
  system?: string;
  /** The history it starts with. */
  messages?: ChatMessage[];
  chatTemplate?: string;
  tools?: { [key: string]: ChatJson }[];
  documents?: { [key: string]: ChatJson }[];
  variables?: { [name: string]: ChatJson };
}

/** A step of a turn: generateSteps()'s, and at step 1 what the turn fed. */
export type ChatStep = DecoderGenerationStep & {
  /** Step 1: the ids fed before its token (the turn's new ids, or all after a rewind), and those the cache held. */
  prefilled?: number;
  reused?: number;
  attentions?: { decoder: AttentionGroup };
};

/** send()'s options: generateSteps()'s, and onStep (each step, awaited). */
export interface SendOptions extends GenerateStepsOptions {
  onStep?: (step: ChatStep) => void | Promise<void>;
}

export interface ChatTurn {
  /** The reply (the new ids decoded, special tokens skipped), as it joined the messages. */
  text: string | null;
  message: { role: 'assistant'; content: string | null };
  /** The rendered conversation's ids (with the generation prompt), and them followed by the reply's. */
  inputIds: Int32Array;
  outputIds: Int32Array;
  /** Ids fed for this turn before its first token, and ids the KV cache already held. */
  prefilled: number;
  reused: number;
  /** The sum of the chosen tokens' log-probabilities. */
  score: number;
}

/**
 * A decoder's conversation over its KV cache. Each turn renders the whole conversation with the chat template,
 * keeps the prefix of its ids the cache holds and feeds only the rest; where the rendering changes ids the
 * cache holds (a reply that tokenizes back to other ids, undo()), the cache is cut where they part
 * (model.rewind) and the rest fed. The model has one cache: another call on it (or another conversation) makes the next
 * turn prefill the whole conversation again.
 */
export interface Conversation {
  /** The conversation so far (frozen). */
  readonly messages: readonly Readonly<ChatMessage>[];
  /** The ids the model's cache holds for it (none when another call has used the cache since). */
  readonly cachedIds: Int32Array;
  /** The next turn, generated to the end. */
  send(content: string, options?: SendOptions): Promise<ChatTurn>;
  /** The next turn a step per next(); the turn joins the messages when the stream ends (or is stopped). */
  sendSteps(content: string, options?: GenerateStepsOptions): AsyncGenerator<ChatStep, void, undefined>;
  /** Takes the last exchange back (from the last user message on) and returns it. */
  undo(): readonly Readonly<ChatMessage>[];
  /** A conversation with these messages and settings; its first turn prefills its history. */
  fork(): Conversation;
}

declare module './models.js' {
  interface DecoderModel {
    /** A decoder's conversation over its KV cache (on another kind, a TypeError at run time). */
    chat(options?: ChatOptions): Conversation;
  }
  interface ModelBase {
    /**
     * The messages as the checkpoint's chat template (chat_template.jinja, else tokenizer_config.json's
     * chat_template; a GGUF file's
     * tokenizer.chat_template) renders them, as transformers' apply_chat_template(…, tokenize=False). No
     * template: an Error with code 'NoChatTemplate'.
     */
    applyChatTemplate(messages: ChatMessage[], options?: ChatTemplateOptions & { tokenize?: false }): Promise<string>;
    applyChatTemplate(
      messages: ChatMessage[],
      options: ChatTemplateOptions & { tokenize: true },
    ): Promise<ChatTemplateEncoding>;
  }
}
