// Numbers in the page's English text. Pure.

/** "1 run", "3 runs". */
export const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** 3000 → "3,000". */
export const thousands = (n) => n.toLocaleString('en');

/** A share as "93.2 %". */
export const percent = (x) => `${(100 * x).toFixed(1)} %`;
