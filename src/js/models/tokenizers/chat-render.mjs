// A chat template rendered as transformers' apply_chat_template(tokenize=False)
// renders it (utils/chat_template_utils.py, render_jinja_template), by
// @huggingface/jinja: a Jinja lexer, parser and interpreter in JavaScript,
// with trim_blocks and lstrip_blocks as transformers sets them. A template is
// the checkpoint's data: the interpreter evaluates its expressions over its
// own values (no eval, no Function, no host object but what is passed in), so
// rendering runs no code of the file. It runs where the tokenizer runs
// (serve.mjs, in its bounded worker: a template that loops for ever is stopped
// with the tokenizer's time limit). The caller's side is chat/template.mjs.
import { Environment, Interpreter, Template } from '@huggingface/jinja';
import { ArgumentRangeError } from '../../errors.mjs';
import { SPECIAL_ROLES, tokenContent } from './special-roles.mjs';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
].concat(['November', 'December']);
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const pad = (n, width = 2) => String(n).padStart(width, '0');

/**
 * Python's datetime.strftime(format) in the C locale (what transformers' strftime_now gives on a server): the
 * library's own strftime_now names months in the browser's locale ("12月"), so templates get this one. A
 * directive it does not know is left as it is, as glibc does.
 */
export function strftime(date, format) {
  const hour12 = date.getHours() % 12 || 12;
  const start = new Date(date.getFullYear(), 0, 1);
  const dayOfYear = Math.round((new Date(date.getFullYear(), date.getMonth(), date.getDate()) - start) / 864e5) + 1;
  const directives = {
    a: () => DAYS[date.getDay()].slice(0, 3),
    A: () => DAYS[date.getDay()],
    b: () => MONTHS[date.getMonth()].slice(0, 3),
    B: () => MONTHS[date.getMonth()],
    d: () => pad(date.getDate()),
    '-d': () => String(date.getDate()),
    e: () => String(date.getDate()).padStart(2, ' '),
    m: () => pad(date.getMonth() + 1),
    '-m': () => String(date.getMonth() + 1),
    y: () => pad(date.getFullYear() % 100),
    Y: () => String(date.getFullYear()),
    H: () => pad(date.getHours()),
    I: () => pad(hour12),
    M: () => pad(date.getMinutes()),
    S: () => pad(date.getSeconds()),
    p: () => (date.getHours() < 12 ? 'AM' : 'PM'),
    j: () => pad(dayOfYear, 3),
    '%': () => '%',
  };
  return format.replace(/%(-?[a-zA-Z%])/g, (all, d) => (directives[d] ? directives[d]() : all));
}

/**
 * The template text `config` (tokenizer_config.json's object) holds for a call: `chat_template` a string, or
 * the named-list form [{ name, template }] picked as transformers' get_chat_template picks ('tool_use' with
 * tools, else 'default'; `choice` a name of the list, or a template's own text): { text, given (the caller's
 * own text) }. Throws an Error naming `file` when there is none to use.
 */
export function chooseTemplate(config, file, choice, hasTools) {
  const stored = config.chat_template;
  if (Array.isArray(stored)) {
    const named = new Map();
    for (const entry of stored)
      if (entry && typeof entry.name === 'string' && typeof entry.template === 'string')
        named.set(entry.name, entry.template);
    const fromFile = (name) => ({ text: named.get(name), given: false });
    if (choice !== null && named.has(choice)) return fromFile(choice);
    if (choice !== null) return { text: choice, given: true };
    if (hasTools && named.has('tool_use')) return fromFile('tool_use');
    if (named.has('default')) return fromFile('default');
    throw new ArgumentRangeError(
      `chatTemplate: ${file} holds several chat templates and none named 'default'; name one of ` +
        `${[...named.keys()].map((n) => `'${n}'`).join(', ')}`,
    );
  }
  if (choice !== null) return { text: choice, given: true };
  if (typeof stored === 'string') return { text: stored, given: false };
  throw new Error(`${file}: no chat_template`);
}

// Python's range(stop) and range(start, stop[, step]), as Jinja gives it.
function range(start, stop, step = 1) {
  if (stop === undefined) [start, stop] = [0, start];
  if (step === 0) throw new Error('range() step must not be zero');
  const out = [];
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(i);
  return out;
}
// The names every template has (the library's Template.render declares the same).
const GLOBALS = { false: false, true: true, none: null, False: false, True: true, None: null, range };

// What marks the end of the final message with continueFinalMessage (transformers' continue_final_message_tag).
const CONTINUE_TAG = 'CONTINUE_FINAL_MESSAGE_TAG ';

/**
 * transformers' continue_final_message: `messages` with the tag after the final message's `field` (its last
 * text part when it is a list), and the text to look for; an ArgumentRangeError where transformers refuses.
 */
function markFinal(messages, field, template) {
  const copy = structuredClone(messages);
  const last = copy.at(-1);
  let final = last[field];
  const where = `continueFinalMessage: the final message`;
  if (final === undefined || final === null)
    throw new ArgumentRangeError(`${where} has no ${JSON.stringify(field)} to continue`);
  if (!template.includes(field))
    throw new ArgumentRangeError(
      `continueFinalMessage: ${JSON.stringify(field)} is not a field the chat template reads`,
    );
  if (Array.isArray(final)) {
    const part = final.findLast((p) => p && typeof p === 'object' && 'text' in p);
    if (!part) throw new ArgumentRangeError(`${where} has no text part to continue`);
    final = part.text;
    part.text = `${part.text}${CONTINUE_TAG}`;
  } else last[field] = `${final}${CONTINUE_TAG}`;
  return { copy, final: String(final) };
}

// The rendered text cut where the final message ends, as transformers cuts it (its trailing spaces kept when the
// template kept them).
function cutAtFinal(rendered, final) {
  const tag = CONTINUE_TAG.trim();
  if (!rendered.includes(final.trim()) || !rendered.includes(tag))
    throw new ArgumentRangeError(
      'continueFinalMessage: the final message does not appear in the chat after applying the chat template',
    );
  const at = rendered.lastIndexOf(tag);
  return rendered.slice(at, at + CONTINUE_TAG.length) === CONTINUE_TAG
    ? rendered.slice(0, at)
    : rendered.slice(0, at).trimEnd();
}

// A template's raise_exception: the messages are what it refuses, so the caller's argument.
class TemplateRefusal extends ArgumentRangeError {}

/**
 * The text of a chat: `request` { template (a name, a template's text, or null: the file's), file (where the
 * template was read, and its field, for messages; default `tokenizerFile`'s chat_template), continueFinal (the final message's field to end
 * the text with, open: transformers' continue_final_message; null: none), context:
 * { messages, tools, documents, add_generation_prompt, …variables } } over `config`'s template, with its
 * special tokens (transformers' special_tokens_map: bos_token … mask_token, the strings tokenizer_config.json
 * gives) under the caller's variables. A template that does not parse is an Error naming the file; one that
 * calls raise_exception an ArgumentRangeError with its words (the messages are refused).
 */
export function renderChat(config, tokenizerFile, request) {
  const { template: choice, context, file = tokenizerFile, field = 'chat_template', continueFinal = null } = request;
  const { text, given } = chooseTemplate(config, file, choice, context.tools !== null && context.tools !== undefined);
  // A template's fault is the file's, or the caller's when the caller gave it (chatTemplate).
  const fault = (what, error) =>
    given
      ? new ArgumentRangeError(`chatTemplate: ${what} (${error?.message ?? error})`)
      : new Error(`${file}: ${field} ${what} (${error?.message ?? error})`);
  let template;
  try {
    template = new Template(text);
  } catch (error) {
    throw fault('does not parse', error);
  }
  const special = {};
  for (const role of SPECIAL_ROLES) {
    const value = tokenContent(config[`${role}_token`]);
    if (value !== null) special[`${role}_token`] = value;
  }
  const { tools, documents, add_generation_prompt: addGenerationPrompt, ...variables } = context;
  let { messages } = context;
  let final = null;
  if (continueFinal !== null) ({ copy: messages, final } = markFinal(messages, continueFinal, text));
  try {
    // Template.render's environment, with transformers' raise_exception and strftime_now in place of the
    // library's (which it declares first, so that render() could not replace them).
    const env = new Environment();
    const names = {
      ...GLOBALS,
      raise_exception: (message) => {
        throw new TemplateRefusal(`messages: the chat template refuses them: ${message}`);
      },
      strftime_now: (format) => strftime(new Date(), String(format)),
      ...special,
      ...variables,
      messages,
      tools,
      documents,
      add_generation_prompt: addGenerationPrompt,
    };
    for (const [name, value] of Object.entries(names)) env.set(name, value);
    const rendered = new Interpreter(env).run(template.parsed).value;
    return final === null ? rendered : cutAtFinal(rendered, final);
  } catch (error) {
    if (final !== null && error instanceof ArgumentRangeError) throw error;
    if (error instanceof TemplateRefusal) throw error;
    throw fault('failed', error);
  }
}
