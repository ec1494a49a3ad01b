// Named columns, so that every number of X, Q, K, V and the weights can be
// traced to the feature it stands for. Pure: no DOM, no engine.

/**
 * The columns of a matrix as consecutive named blocks (one-hot groups).
 * new Layout([['char', ['用', '毒']], ['position', ['0', '1']]]) has 4 columns:
 * char 用, char 毒, position 0, position 1.
 */
export class Layout {
  #blocks = new Map();
  /** One label per column, "block:label", in order. */
  labels = [];

  /** @param {[string, ReadonlyArray<string>][]} blocks */
  constructor(blocks, width) {
    for (const [name, labels] of blocks) {
      this.#blocks.set(name, { start: this.labels.length, labels });
      this.labels.push(...labels.map((l) => `${name}:${l}`));
    }
    if (width !== undefined) {
      if (this.labels.length > width)
        throw new RangeError(`Layout: ${this.labels.length} columns do not fit in ${width}`);
      while (this.labels.length < width) this.labels.push('unused');
    }
  }

  get width() {
    return this.labels.length;
  }

  /** The blocks in order: [{ name, size }]. */
  get blocks() {
    return [...this.#blocks].map(([name, { labels }]) => ({ name, size: labels.length }));
  }

  /** The column of `index` within block `name`. */
  column(name, index) {
    const block = this.#blocks.get(name);
    if (!block) throw new RangeError(`Layout: no block "${name}"`);
    if (!(index >= 0 && index < block.labels.length))
      throw new RangeError(`Layout: block "${name}" has no index ${index}`);
    return block.start + index;
  }

  size(name) {
    return this.#blocks.get(name).labels.length;
  }

  blockLabels(name) {
    return this.#blocks.get(name).labels;
  }
}

/** A row-major rows × layout.width matrix with a one-hot writer. */
export function featureMatrix(rows, layout) {
  const data = new Float32Array(rows * layout.width);
  return {
    data,
    /** Sets row's column (block, index) to value (default 1). */
    set(row, block, index, value = 1) {
      data[row * layout.width + layout.column(block, index)] = value;
    },
  };
}

/**
 * A projection matrix in the engine's layout, [dModel, numHeads * width]
 * (wQ, wK: width dK; wV: width dV): column c of head h is matrix column
 * h * width + c. Each head's columns are written by saying which feature of X
 * they read, so the construction reads as "this head compares these features".
 */
export class Projection {
  /**
   * @param {Layout} input the layout of X's columns
   * @param {string[]} heads the heads' names, in order
   * @param {number} width dK or dV
   */
  constructor(input, heads, width) {
    this.input = input;
    this.heads = heads;
    this.width = width;
    this.matrix = new Float32Array(input.width * heads.length * width);
    /** labels[h][c]: what column c of head h holds ("" while unused). */
    this.labels = heads.map(() => Array(width).fill(''));
  }

  /** Column `column` of head `head` reads X's feature (block, index) with weight `gain`. */
  read(head, column, block, index, gain = 1, label) {
    const h = this.heads.indexOf(head);
    if (h < 0) throw new RangeError(`Projection: no head "${head}"`);
    if (!(column >= 0 && column < this.width))
      throw new RangeError(`Projection: head "${head}" has no column ${column} (width ${this.width})`);
    const row = this.input.column(block, index);
    this.matrix[row * this.heads.length * this.width + h * this.width + column] += gain;
    this.labels[h][column] ||= label ?? `${block}:${this.input.blockLabels(block)[index]}`;
  }

  /** Columns first … first + size(block) − 1 of head `head` copy X's block, times gain. */
  copy(head, block, first, gain = 1) {
    for (let i = 0; i < this.input.size(block); i++) this.read(head, first + i, block, i, gain);
  }

  /** Multiplies every entry of head `head` (all heads if omitted) by factor. */
  scale(factor, head) {
    const h = head === undefined ? -1 : this.heads.indexOf(head);
    const stride = this.heads.length * this.width;
    this.matrix.forEach((v, i) => {
      if (h < 0 || Math.floor((i % stride) / this.width) === h) this.matrix[i] = v * factor;
    });
    return this;
  }

  /** Column labels of every head side by side, "head/label" ("" for unused columns). */
  get columnLabels() {
    return this.labels.flatMap((cols, h) => cols.map((l) => (l ? `${this.heads[h]}/${l}` : '')));
  }
}

/**
 * wO, [numHeads * dV, dModel]: places each head's dV columns into its own
 * block of output columns, so concat · wO keeps every head's view apart.
 * @returns {{ matrix: Float32Array, labels: string[] }} labels: one per output column
 */
export function placeHeads(heads, vLabels, dModel) {
  const dV = vLabels[0].length;
  const matrix = new Float32Array(heads.length * dV * dModel);
  const labels = Array(dModel).fill('unused');
  let out = 0;
  heads.forEach((head, h) =>
    vLabels[h].forEach((label, c) => {
      if (!label) return; // a zero column of V: nothing to carry
      if (out >= dModel) throw new RangeError(`placeHeads: more used V columns than dModel ${dModel}`);
      matrix[(h * dV + c) * dModel + out] = 1;
      labels[out++] = `${head}/${label}`;
    }),
  );
  return { matrix, labels };
}
