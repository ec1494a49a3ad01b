// One head's attention weights as an HTML table, readable by screen readers:
// query tokens are the row headers, key tokens the column headers, each cell
// is shaded by its weight and shows it with 2 decimals. The cells are made
// once; show() only updates their text and shade (as Inspectus does), so
// changing the head does not rebuild the table.

// Above this weight a cell's shade is dark enough for light text (style.css: .strong).
const STRONG = 2 / 3;

/** A token as a header: the character, with its position under it (six 毒 look alike). */
function tokenHeader(token, index, scope) {
  const th = document.createElement('th');
  th.scope = scope;
  th.title = `${index} ${token.char}: ${token.gloss}`;
  const char = document.createElement('span');
  char.className = 'char';
  char.lang = 'zh-Hans';
  char.textContent = token.char;
  const position = document.createElement('span');
  position.className = 'position';
  position.textContent = String(index);
  th.append(char, position);
  return th;
}

export class AttentionTable {
  #table;
  #caption;
  /** @type {{ td: HTMLTableCellElement, lead: HTMLSpanElement, rest: Text }[][]} [query][key] */
  #cells;

  /** @param {ReadonlyArray<{ char: string, gloss: string }>} tokens query = key tokens (self-attention) */
  constructor(tokens) {
    this.#table = document.createElement('table');
    this.#table.className = 'attention';
    this.#caption = this.#table.createCaption();

    const corner = document.createElement('td');
    corner.className = 'corner';
    corner.innerHTML = '<span>key →</span><span>query ↓</span>';
    const headRow = this.#table.createTHead().insertRow();
    headRow.append(corner, ...tokens.map((t, k) => tokenHeader(t, k, 'col')));

    const body = this.#table.createTBody();
    this.#cells = tokens.map((token, q) => {
      const row = body.insertRow();
      row.append(tokenHeader(token, q, 'row'));
      return tokens.map((_, k) => {
        const td = row.insertCell();
        td.dataset.q = String(q);
        td.dataset.k = String(k);
        // "0.07" is drawn as ".07" on narrow screens (style.css hides .lead).
        const lead = document.createElement('span');
        lead.className = 'lead';
        const rest = document.createTextNode('');
        td.append(lead, rest);
        return { td, lead, rest };
      });
    });
  }

  /** The <table>, to be placed in the page once. */
  get element() {
    return this.#table;
  }

  /**
   * Shows one head.
   * @param {{ head: number, numHeads: number, weights: Float32Array }} view
   *   weights: that head's [seqLenQ, seqLenK] block of the engine's attention, row-major
   */
  show({ head, numHeads, weights }) {
    const table = this.#table;
    table.dataset.head = String(head);
    // A hue per head from its index and the count, so any number of heads gets distinct colours.
    table.style.setProperty('--hue', String(Math.round(250 + (360 * head) / numHeads) % 360));
    this.#caption.textContent =
      `Head ${head} of ${numHeads} (0–${numHeads - 1}): how much each query token (row) ` +
      'attends to each key token (column). Each row sums to 1.';
    const seqLenK = this.#cells[0].length;
    this.#cells.forEach((row, q) =>
      row.forEach(({ td, lead, rest }, k) => {
        const weight = weights[q * seqLenK + k];
        const [whole, fraction] = weight.toFixed(2).split('.');
        td.dataset.weight = String(weight);
        td.style.setProperty('--w', String(weight));
        td.classList.toggle('strong', weight > STRONG);
        td.classList.toggle('zero-lead', whole === '0');
        lead.textContent = whole;
        rest.data = `.${fraction}`;
      }),
    );
  }
}
