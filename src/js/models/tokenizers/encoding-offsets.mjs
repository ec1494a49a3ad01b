// An encoding's offsets, as transformers' return_offsets_mapping gives them: each token's [start, end) in the text
// it came from (the text or the pair's second text; UTF-16 units, text.slice(start, end)), [0, 0] for the special
// tokens the post-processor added and for padding. Each text is encoded alone (no special tokens, not truncated)
// and its tokens placed in it (word-offsets.mjs: BERT's WordPiece; piece-offsets.mjs: byte-level BPE and
// SentencePiece-style pieces); the encoding is then those texts' tokens in order, each cut short where truncation
// cut it, between the special tokens.
import { pieceOffsets } from './piece-offsets.mjs';
import { tokenOffsets } from './word-offsets.mjs';

/** Whether `tokenizer` (createTokenizer's) can place its tokens in a text. */
export const hasOffsets = (tokenizer) => Boolean(tokenizer?.wordPieces || tokenizer?.pieceOffsets);

// A text's tokens alone and where each is: { ids, offsets }, or null when they do not spell it.
async function textOffsets(tokenizer, text) {
  const { ids } = await tokenizer.encode(text, undefined, { addSpecialTokens: false });
  const tokens = tokenizer.tokenStrings(ids);
  const none = tokens.map(() => 0);
  const offsets = tokenizer.wordPieces
    ? tokenOffsets(tokenizer.wordPieces, text, tokens, none)
    : pieceOffsets(tokenizer.pieceOffsets, text, tokens, none);
  return offsets && { ids: Array.from(ids), offsets };
}

/**
 * [start, end] for each of `ids` (an encoding of `text`, and of `textPair` unless undefined), or null: a tokenizer
 * whose tokens are not placed here (hasOffsets), or tokens that do not spell the text (a special token typed in it).
 */
export async function encodingOffsets(tokenizer, text, textPair, ids) {
  if (!hasOffsets(tokenizer)) return null;
  const lists = [await textOffsets(tokenizer, text)];
  if (textPair !== undefined && textPair !== null) lists.push(await textOffsets(tokenizer, textPair));
  if (lists.some((list) => !list)) return null;
  const special = new Set(tokenizer.specialTokens.map((t) => t.id));
  const out = [];
  let [seq, at, started] = [0, 0, false];
  for (const id of ids) {
    const list = lists[seq];
    if (list && at < list.ids.length && list.ids[at] === id) {
      out.push(list.offsets[at++]);
      started = true;
    } else if (special.has(id)) {
      out.push([0, 0]);
      // A special token after a text's tokens: the next text's come next (the post-processor puts none inside one).
      if (started) [seq, at, started] = [seq + 1, 0, false];
    } else if (lists[seq + 1]?.ids[0] === id) {
      // The next text's first token with no special token before it (a template without one): this text ended,
      // cut short by truncation or whole.
      [seq, at, started] = [seq + 1, 1, true];
      out.push(lists[seq].offsets[0]);
    } else return null;
  }
  return out;
}
