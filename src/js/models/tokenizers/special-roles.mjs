// A tokenizer's special tokens by role, as transformers names them: the
// tokenizer_config.json fields bos_token, eos_token, unk_token, sep_token,
// pad_token, cls_token and mask_token (a string, or { content }; null is
// none), else the tokenizer class's defaults. `model.specialTokens.mask` is
// how a caller (the page's fill-the-mask view) finds [MASK] or <mask>
// without matching a token's text.

/** The roles, as model.specialTokens names them. */
export const SPECIAL_ROLES = Object.freeze(['bos', 'eos', 'unk', 'sep', 'pad', 'cls', 'mask']);

/** BertTokenizer's defaults (its tokenizer_class, or a vocab.txt folder), for the fields tokenizer_config.json leaves out. */
const BERT_ROLE_DEFAULTS = Object.freeze({
  unk_token: '[UNK]',
  sep_token: '[SEP]',
  pad_token: '[PAD]',
  cls_token: '[CLS]',
  mask_token: '[MASK]',
});

/**
 * The defaults of the tokenizer class a folder's tokenizer is (tokenizer_config.json's tokenizer_class; a
 * vocab.txt alone is BERT's), as transformers applies them to the fields the file leaves out.
 */
export function roleDefaults(config, file) {
  const type = typeof config.tokenizer_class === 'string' ? config.tokenizer_class : '';
  return /^Bert(Tokenizer|TokenizerFast)$/.test(type) || (file === 'vocab.txt' && !type) ? BERT_ROLE_DEFAULTS : {};
}

/** A *_token value's text: a string, or { content }; else null. */
export const tokenContent = (value) =>
  typeof value === 'string' ? value : value && typeof value.content === 'string' ? value.content : null;

/**
 * `specialTokens` ([{ id, token }], frozen) with each role the tokenizer has as
 * a property ({ id, token }): its text from `config` (tokenizer_config.json),
 * else `defaults`, and its id by `idOf(text)` (undefined: the tokenizer has no
 * such token, and the role is left out).
 */
export function withRoles(specialTokens, config, idOf, defaults = {}) {
  const out = [...specialTokens];
  for (const role of SPECIAL_ROLES) {
    const field = `${role}_token`;
    const text = tokenContent(Object.hasOwn(config, field) ? config[field] : defaults[field]);
    if (text === null || text === '') continue;
    const id = idOf(text);
    // Not enumerable: the list stays the list (JSON, spreads and deep equality see the tokens by id only).
    if (Number.isInteger(id)) Object.defineProperty(out, role, { value: Object.freeze({ id, token: text }) });
  }
  return Object.freeze(out);
}
