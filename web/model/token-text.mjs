// Which characters of a text each of a model's tokens stands for, read from
// the tokens' readable pieces (src/js/models/tokenizers/tokenizer.mjs) left to
// right against the text: the real views number and label a checkpoint's
// tokens by the sentence's characters with it (model/real-article.mjs), and
// the real translation its source pieces (model/translation.mjs). Pure.
//
// What the pieces hold besides the text: WordPiece's continuation "##",
// SentencePiece's word start "▁" and the byte-level space; full-width forms
// folded by the tokenizer (NFKC: "，" is the piece ","; BERT's lowercasing);
// a character cut into byte pieces, shown as that character numbered ("毒₁",
// "毒₂", "毒₃": the pieces after the first stand for the character the
// first began); and unknown tokens ([UNK], <unk>, or any piece that does not
// spell the text where it stands), which stand for the characters up to
// where the next piece resumes. Spaces in the text are no token's.

const SUBSCRIPT = /^[\u2080-\u2089]$/u;
const MARKERS = /^(##)|[\u2581 ]/gu;
const UNKNOWN = /^(\[UNK\]|<unk>|<UNK>)$/u;

const fold = (s) => s.normalize('NFKC').toLowerCase();

/**
 * A piece's segments: runs of plain characters as one segment { text, piece: 0 },
 * each character with a piece number as its own { text, piece } (piece 1, 2, …).
 */
function segments(token) {
  const out = [];
  for (const ch of token.replace(MARKERS, '')) {
    const last = out[out.length - 1];
    if (SUBSCRIPT.test(ch) && last) {
      // The piece number belongs to the character before it, which becomes a segment of its own.
      if (last.piece === 0 && [...last.text].length > 1) {
        const chars = [...last.text];
        last.text = chars.slice(0, -1).join('');
        out.push({ text: chars.at(-1), piece: 0 });
      }
      out[out.length - 1].piece = out[out.length - 1].piece * 10 + (ch.codePointAt(0) - 0x2080);
    } else if (last && last.piece === 0) last.text += ch;
    else out.push({ text: ch, piece: 0 });
  }
  return out.filter((s) => s.text.trim() !== '');
}

/**
 * @param {string[]} tokens a run's readable pieces
 * @param {ArrayLike<number>} special 1 per special position ([CLS], </s> …: no character's)
 * @param {string} text what the model was given
 * @returns {{ chars: string[], cover: number[][], pieces: number[], unknown: boolean[], complete: boolean }}
 *   chars: the text's characters (code points); cover[i]: the indices into
 *   chars that token i stands for, in order; pieces[i]: its piece number
 *   within a character cut into bytes (0: none); unknown[i]: it stood for
 *   what it did not spell; complete: every character but spaces is some token's
 */
export function alignToText(tokens, special, text) {
  const chars = [...String(text)];
  const folded = chars.map(fold);
  const visible = chars.flatMap((_, i) => (folded[i].trim() === '' ? [] : [i]));
  const parts = tokens.map((token, i) => (UNKNOWN.test(token) ? null : special[i] ? [] : segments(String(token))));
  const cover = tokens.map(() => []);
  const pieces = tokens.map(() => 0);
  const unknown = tokens.map(() => false);
  // The visible characters from `from` that spell `want`: the index after them, or -1.
  const spell = (from, want) => {
    let got = '';
    let k = from;
    while (k < visible.length && got.length < want.length) got += folded[visible[k++]];
    return got === want ? k : -1;
  };
  let at = 0; // into visible
  for (let i = 0; i < tokens.length; i++) {
    const segs = parts[i];
    if (segs && !segs.length) continue; // special, or a lone ▁
    const start = at;
    const got = [];
    let ok = Boolean(segs);
    for (const { text: want, piece } of segs ?? []) {
      if (piece > 1) {
        // The rest of the character the previous piece began.
        if (at === 0 || folded[visible[at - 1]] !== fold(want)) {
          ok = false;
          break;
        }
        got.push(visible[at - 1]);
        pieces[i] = piece;
        continue;
      }
      const end = spell(at, fold(want));
      if (end < 0) {
        ok = false;
        break;
      }
      for (let k = at; k < end; k++) got.push(visible[k]);
      at = end;
      if (piece === 1) pieces[i] = 1;
    }
    if (ok) {
      cover[i] = [...new Set(got)];
      continue;
    }
    // Unknown: the characters up to where the next piece with text spells the text again (or to the end).
    at = start;
    pieces[i] = 0;
    unknown[i] = true;
    const next = parts.slice(i + 1).find((p) => p?.length && p[0].piece <= 1)?.[0].text;
    let stop = visible.length;
    if (next)
      for (let k = at + 1; k < visible.length; k++)
        if (spell(k, fold(next)) >= 0) {
          stop = k;
          break;
        }
    cover[i] = visible.slice(at, stop);
    at = Math.max(at, stop);
  }
  return { chars, cover, pieces, unknown, complete: at === visible.length };
}
