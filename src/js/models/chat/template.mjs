// model.applyChatTemplate(): a conversation's messages as the text (and ids)
// that transformers' tokenizer.apply_chat_template(messages, tools, documents,
// chat_template, add_generation_prompt, tokenize, **kwargs) gives, from the
// checkpoint's own template (tokenizer_config.json's chat_template, a string or
// the named list; a GGUF file's tokenizer.chat_template). The arguments are
// checked here; the template is rendered where the tokenizer runs, bounded in
// time (tokenizers/chat-render.mjs), and the text tokenized as transformers
// does, with no special tokens added (the template writes them).
import { describe, rejectUnknown } from '../../checks.mjs';
import { ArgumentRangeError, ArgumentTypeError, codedError } from '../../errors.mjs';

const OPTIONS = new Set([
  'addGenerationPrompt',
  'continueFinalMessage',
  'tokenize',
  'tools',
  'documents',
  'chatTemplate',
  'variables',
]);
// Names the template is given by transformers itself: a variable may not replace them.
const RESERVED = new Set(['messages', 'tools', 'documents', 'add_generation_prompt', 'raise_exception']);
/** How deep a message's or tool's JSON may nest (a template walks it; the worker's message copies it). */
const MAX_DEPTH = 32;

// A JSON value (what a template and the worker's message take), or a TypeError naming `where`.
function checkJson(value, where, depth = 0) {
  if (depth > MAX_DEPTH) throw new ArgumentRangeError(`${where}: nested more than ${MAX_DEPTH} deep`);
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ArgumentTypeError(`${where}: expected a finite number, got ${value}`);
    return;
  }
  if (Array.isArray(value)) return value.forEach((v, i) => checkJson(v, `${where}[${i}]`, depth + 1));
  // A plain object of any realm (an iframe's, the test runner's): its prototype is an Object.prototype, or null.
  const proto = typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  if (proto === null || (proto && Object.getPrototypeOf(proto) === null)) {
    for (const [key, v] of Object.entries(value)) checkJson(v, `${where}.${key}`, depth + 1);
    return;
  }
  throw new ArgumentTypeError(
    `${where}: expected a JSON value (string, number, boolean, null, array, object), got ${describe(value)}`,
  );
}

/**
 * `messages` checked: a non-empty array of { role: string, content?: string | array | null, …JSON fields
 * (tool_calls, name …) }, as transformers' templates read them. Returns a plain copy.
 */
export function checkMessages(messages, what = 'messages') {
  if (!Array.isArray(messages) || messages.length === 0)
    throw new ArgumentTypeError(
      `${what}: expected a non-empty array of { role, content } ({ role: 'user', content: 'Hi' }), got ${describe(messages)}`,
    );
  return messages.map((message, i) => {
    const where = `${what}[${i}]`;
    if (!message || typeof message !== 'object' || Array.isArray(message))
      throw new ArgumentTypeError(`${where}: expected { role, content }, got ${describe(message)}`);
    if (typeof message.role !== 'string' || message.role === '')
      throw new ArgumentTypeError(
        `${where}.role: expected a string ('system', 'user', 'assistant', 'tool'), got ${describe(message.role)}`,
      );
    const { content } = message;
    if (content !== undefined && content !== null && typeof content !== 'string' && !Array.isArray(content))
      throw new ArgumentTypeError(
        `${where}.content: expected a string (or an array of parts, or null), got ${describe(content)}`,
      );
    checkJson(message, where);
    return structuredClone(message);
  });
}

/**
 * applyChatTemplate's options checked: { addGenerationPrompt (default false), continueFinalMessage (default
 * false; true: 'content', or a field's name), tokenize (default false), tools
 * (JSON schemas), documents, chatTemplate (a name of the file's list, or a template's text), variables (more
 * names for the template: date_string …) }. Returns { tokenize, request: the renderer's { template, context } }.
 */
export function checkChatOptions(options, what = 'applyChatTemplate') {
  if (options === undefined) options = {};
  if (!options || typeof options !== 'object' || Array.isArray(options))
    throw new ArgumentTypeError(
      `${what} options: expected { addGenerationPrompt, tokenize, tools, documents, chatTemplate, variables }, got ${describe(options)}`,
    );
  rejectUnknown(options, OPTIONS, what);
  const { addGenerationPrompt = false, tokenize = false, tools = null, documents = null } = options;
  const { chatTemplate = null, variables = {}, continueFinalMessage = false } = options;
  if (typeof continueFinalMessage !== 'boolean' && (typeof continueFinalMessage !== 'string' || !continueFinalMessage))
    throw new ArgumentTypeError(
      `continueFinalMessage: expected a boolean, or the name of the final message's field to continue, got ${describe(continueFinalMessage)}`,
    );
  if (continueFinalMessage !== false && addGenerationPrompt)
    throw new ArgumentTypeError(
      'addGenerationPrompt, continueFinalMessage: give one of them (a new assistant message, or the final one continued)',
    );
  for (const [name, value] of [
    ['addGenerationPrompt', addGenerationPrompt],
    ['tokenize', tokenize],
  ])
    if (typeof value !== 'boolean') throw new ArgumentTypeError(`${name}: expected a boolean, got ${describe(value)}`);
  for (const [name, value] of [
    ['tools', tools],
    ['documents', documents],
  ]) {
    if (value !== null && !Array.isArray(value))
      throw new ArgumentTypeError(`${name}: expected an array of JSON objects, got ${describe(value)}`);
    if (value) checkJson(value, name);
  }
  if (chatTemplate !== null && (typeof chatTemplate !== 'string' || chatTemplate === ''))
    throw new ArgumentTypeError(
      `chatTemplate: expected the name of one of the file's templates, or a template's text, got ${describe(chatTemplate)}`,
    );
  if (!variables || typeof variables !== 'object' || Array.isArray(variables))
    throw new ArgumentTypeError(`variables: expected an object of names for the template, got ${describe(variables)}`);
  checkJson(variables, 'variables');
  for (const name of Object.keys(variables))
    if (RESERVED.has(name))
      throw new ArgumentRangeError(`variables.${name}: set by applyChatTemplate itself (its own argument or option)`);
  return {
    tokenize,
    request: {
      template: chatTemplate,
      continueFinal: continueFinalMessage === true ? 'content' : continueFinalMessage || null,
      context: { ...variables, tools, documents, add_generation_prompt: addGenerationPrompt },
    },
  };
}

/** The model's tokenizer with a chat template, or an Error coded NoChatTemplate naming what it lacks. */
export function chatTokenizer(inner, what) {
  const { tokenizer, config } = inner;
  if (!tokenizer)
    throw codedError(
      'NoChatTemplate',
      `${what}: this ${config.modelType} checkpoint has no tokenizer, so no chat template (give the ids yourself)`,
    );
  if (!tokenizer.chatTemplate || !tokenizer.render)
    throw codedError(
      'NoChatTemplate',
      `${what}: this ${config.modelType} checkpoint has no chat template (tokenizer_config.json has no chat_template; ` +
        "a base model, not an instruct one?); pass chatTemplate: a template's text",
      { file: 'tokenizer_config.json' },
    );
  return tokenizer;
}

/**
 * The rendered text of checked `messages` with checked options' `request` (checkChatOptions), and with
 * `tokenize` its ids: { text, inputIds? }.
 */
export async function renderMessages(inner, messages, { tokenize, request }, what = 'applyChatTemplate') {
  const tokenizer = inner.tokenizer;
  // A template the caller gives needs only the tokenizer; the file's own needs the file to hold one.
  if (request.template === null || !tokenizer?.render) chatTokenizer(inner, what);
  const text = await tokenizer.render({
    ...request,
    ...tokenizer.chatTemplate,
    context: { ...request.context, messages },
  });
  if (!tokenize) return { text };
  const { ids } = await tokenizer.encode(text, undefined, { addSpecialTokens: false });
  return { text, inputIds: Int32Array.from(ids) };
}

/** model.applyChatTemplate(messages, options): the text, or with tokenize { text, inputIds, tokens }. */
export async function applyChatTemplate(inner, messages, options) {
  const checked = checkChatOptions(options);
  const list = checkMessages(messages);
  const out = await renderMessages(inner, list, checked);
  if (!checked.tokenize) return out.text;
  return { ...out, tokens: inner.pieces(out.inputIds) };
}
