// Numbers in the page's text: the one place the views' number formats live. Pure.

/** "1 run", "3 runs". */
export const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** 3000 → "3,000". */
export const thousands = (n) => n.toLocaleString('en');

/** A share as "93.2 %". */
export const percent = (x) => `${(100 * x).toFixed(1)} %`;

/** A number with a fixed count of decimals: 0.12345 → "0.123" (digits 3), 2 → "2.000". */
export const fixed = (x, digits = 3) => x.toFixed(digits);

/**
 * A number as the engine gave it, to `digits` significant digits; integers
 * exactly: 0.123456789 → "0.12346", 1234.5678 → "1234.6", 3 → "3".
 */
export const precise = (x, digits = 5) => (Number.isInteger(x) ? String(x) : x.toPrecision(digits));
