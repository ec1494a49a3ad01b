// The real-model view's reading in the article's terms (model/real-article.mjs):
// how the model's tokens stand for the sentence's characters (one numbering
// with the designed heads, byte pieces, shared and unknown tokens), whether
// the model was made for this language and whether its heads look anywhere
// (a random checkpoint) or predict the text better than chance (measured, never
// read off the size), and, for each designed head, the real heads closest
// to it, or that none is; then which head best tells the six 毒 apart.
// Every sentence here is written from the numbers.
import { captionedTable, el } from '../lib/dom.mjs';
import { t } from '../lib/i18n.mjs';
import { fixed } from '../lib/format.mjs';
import { SENTENCE } from '../sentence.mjs';
import { bestRoleShare, closestHeads, duTokens, headEvenness, vocabularyFit } from '../model/real-article.mjs';

/** The notes on how the model reads the sentence: [{ kind, text }], each from the run's numbers. */
export function articleNotes(run, text) {
  const notes = [];
  const say = (kind, params = {}) => notes.push({ kind, text: t(`real.article.${kind}`, params) });
  const map = run.article;
  const evenness = headEvenness(run);
  // Trained or not is measured, never read off the size: near-uniform heads, else the model's own predictions of
  // the text against chance (model/predictions.mjs, predictionFit), or that there is nothing to measure it with.
  if (evenness.nearUniform) say('random', { even: evenness.even, count: evenness.count });
  else if (!run.fit) say('unmeasured');
  else say(run.fit.better ? 'predicts' : 'chance', fitParams(run.fit));
  // SentencePiece's word-start mark, shown as the tokens hold it, is said once wherever it appears.
  const wordStart = () => run.tokens?.some((token) => token.includes('▁')) && say('wordStart');
  if (!map) {
    say(String(text).replace(/\s/gu, '') === SENTENCE ? 'unread' : 'other', { sentence: SENTENCE });
    wordStart();
    return notes;
  }
  say('numbering');
  const fit = vocabularyFit(map);
  if (fit.foreign) say('foreign', { split: fit.bytes + fit.unknown, total: fit.total });
  if (fit.bytes) say('bytes', { n: fit.bytes, total: fit.total });
  if (fit.merged) say('merged', { n: fit.merged, total: fit.total });
  if (fit.unknown) say('unknown', { n: fit.unknown, total: fit.total });
  wordStart();
  return notes;
}

export class ArticleView {
  /**
   * @param {HTMLElement} box the view's container (.real-article)
   * @param {{ onChoose: (head: { layer: number, head: number }) => void }} options a real head's button opens it
   */
  constructor(box, { onChoose }) {
    this.box = box;
    this.onChoose = onChoose;
  }

  clear() {
    this.box.replaceChildren();
  }

  /**
   * Writes the reading of `run` (its `article` map, or null) for the text the model ran on.
   * @returns {{ closest: object[] | null, role: object | null }} the numbers written, for the chosen head's table
   */
  draw(run, text) {
    const parts = [el('h3', { textContent: t('real.article.title') })];
    parts.push(el('ul', { className: 'real-article-notes' }, ...articleNotes(run, text).map(noteItem)));
    if (!run.article) {
      this.box.replaceChildren(...parts);
      return { closest: null, role: null };
    }
    const closest = closestHeads(run, run.article);
    const role = bestRoleShare(run, run.article);
    parts.push(this.#closestTable(closest, run.causal), this.#roleLine(role, duTokens(run.article)));
    this.box.replaceChildren(...parts);
    return { closest, role };
  }

  #headButton(h) {
    const button = el('button', { type: 'button', className: 'link', textContent: t('real.layerHead', h) });
    button.dataset.layer = h.layer;
    button.dataset.head = h.head;
    button.addEventListener('click', () => this.onChoose({ layer: h.layer, head: h.head }));
    return button;
  }

  #closestTable(closest, causal) {
    const table = el('table', { className: 'real-closest-table' });
    const header = table.createTHead().insertRow();
    for (const key of ['designed', 'looks', 'best', 'even', 'verdict'])
      header.append(el('th', { scope: 'col', textContent: t(`real.closest.${key}`) }));
    const body = table.createTBody();
    for (const c of closest) {
      const row = body.insertRow();
      row.dataset.head = c.name;
      row.dataset.found = String(c.found);
      row.append(el('th', { scope: 'row', textContent: t(`head.title.${c.name}`) }));
      row.insertCell().textContent = t(`real.closest.looks.${c.name}`);
      const best = row.insertCell();
      if (c.rows) {
        c.best.forEach((h, i) => {
          if (i) best.append(t('list.join'));
          best.append(this.#headButton(h), ` ${fixed(h.score)}`);
        });
        row.insertCell().textContent = fixed(c.baseline);
        row.insertCell().textContent = c.found
          ? t('real.closest.found', { reached: c.reached, count: c.heads.length, threshold: fixed(c.bar.threshold) })
          : t('real.closest.none', { value: fixed(c.best[0].score), threshold: fixed(c.bar.threshold) });
      } else {
        const cell = row.insertCell();
        cell.colSpan = 3;
        best.textContent = '—';
        cell.textContent = t(causal ? 'real.closest.unseenCausal' : 'real.closest.unseen');
      }
    }
    return captionedTable(t('real.closest.caption'), table);
  }

  // The question asked as the tokens allow: six 毒 of their own, or fewer when 毒蛇/毒死 are single tokens.
  #roleLine(role, du) {
    const lead = du.shared ? t('real.roleShare.leadShared', du) : t('real.roleShare.lead');
    if (!role?.best)
      return el('p', { className: 'real-role-share', textContent: `${lead} ${t('real.roleShare.none')}` });
    const { best, blind } = role;
    const p = el('p', { className: 'real-role-share' });
    p.dataset.share = String(best.share);
    p.dataset.alone = String(du.alone);
    p.append(
      lead,
      ' ',
      this.#headButton(best),
      ' ',
      t(best.share >= 2 * blind ? 'real.roleShare.tells' : 'real.roleShare.blurs', {
        share: fixed(best.share),
        blind: fixed(blind),
      }),
    );
    return p;
  }
}

// A probability given by its log as "1 / n", n to two significant digits (never in exponent notation below 1e21).
const oneIn = (logP) => `1 / ${Number(Math.exp(-logP).toPrecision(2))}`;

/** A prediction measure's numbers as the notes write them. */
export function fitParams(fit) {
  return {
    count: fit.count,
    mean: fixed(fit.meanLogProb, 2),
    chance: fixed(fit.chance, 2),
    p: oneIn(fit.meanLogProb),
    even: oneIn(fit.chance),
  };
}

function noteItem({ kind, text }) {
  const li = el('li', { textContent: text });
  li.dataset.note = kind;
  if (
    kind === 'random' ||
    kind === 'chance' ||
    kind === 'unmeasured' ||
    kind === 'foreign' ||
    kind === 'other' ||
    kind === 'unread'
  )
    li.className = 'warning';
  return li;
}
