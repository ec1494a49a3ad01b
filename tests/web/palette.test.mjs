// One palette (lib/palette.mjs) for the SVG views and the CSS: the head hues
// are Okabe & Ito's, and style.css spells no colour of its own: every custom
// property it reads is the palette's, theme.mjs's fonts, or one a view sets.
import { readFileSync } from 'node:fs';
import { UI, headColor, settingColor, cssVariables } from '../../web/lib/palette.mjs';

// Okabe & Ito (2008), "Color Universal Design": the published values.
const BLUE = '#0072B2';
const VERMILLION = '#D55E00';
const BLUISH_GREEN = '#009E73';
const REDDISH_PURPLE = '#CC79A7';
const ORANGE = '#E69F00';
const SKY_BLUE = '#56B4E9';
const YELLOW = '#F0E442';
const BLACK = '#000000';

test('designed heads have fixed hues; the single head is reddish purple', () => {
  expect(['role', 'dependency', 'long-distance', 'single'].map((n) => headColor(n))).toEqual([
    BLUE,
    VERMILLION,
    BLUISH_GREEN,
    REDDISH_PURPLE,
  ]);
  expect(['previous-word', 'same-lemma', 'alignment'].map((n) => headColor(n))).toEqual([ORANGE, BLUE, BLUISH_GREEN]);
});

test('numbered heads take the hues in order, purple left out; past the seventh, grey', () => {
  const hues = Array.from({ length: 9 }, (_, h) => headColor(`head-${h}`, h));
  expect(hues).toEqual([BLUE, VERMILLION, BLUISH_GREEN, ORANGE, SKY_BLUE, YELLOW, BLACK, '#8c8c8c', '#8c8c8c']);
});

test('training settings: one head in the single head’s purple, two in blue, four in green', () => {
  expect([1, 2, 4].map(settingColor)).toEqual([REDDISH_PURPLE, BLUE, BLUISH_GREEN]);
});

test('every UI colour is a CSS custom property named in kebab case', () => {
  const vars = Object.fromEntries(cssVariables());
  expect(vars['--ink']).toBe(UI.ink);
  expect(vars['--ink-soft']).toBe(UI.inkSoft);
  expect(vars['--accent-wash-strong']).toBe(UI.accentWashStrong);
  expect(Object.keys(vars)).toHaveLength(Object.keys(UI).length);
  expect(Object.keys(vars).every((name) => /^--[a-z]+(-[a-z]+)*$/.test(name))).toBe(true);
});

test('the style sheets have no colour literal and read only custom properties that something sets', () => {
  // Every sheet index.html links, in its order.
  const html = readFileSync(new URL('../../web/index.html', import.meta.url), 'utf8');
  const sheets = [...html.matchAll(/<link rel="stylesheet" href="([\w-]+\.css)"/g)].map((m) => m[1]);
  expect(sheets.length).toBeGreaterThan(1);
  const css = sheets
    .map((sheet) => readFileSync(new URL(`../../web/${sheet}`, import.meta.url), 'utf8'))
    .join('\n')
    .replace(/\/\*[\s\S]*?\*\//g, '');
  expect(css.match(/#[0-9a-f]{3,8}\b|rgba?\(|hsla?\(/gi)).toBe(null);
  const read = new Set([...css.matchAll(/var\((--[\w-]+)/g)].map((m) => m[1]));
  const setInCss = [...css.matchAll(/(--[\w-]+)\s*:/g)].map((m) => m[1]);
  const setByTheme = ['--cjk', '--font']; // theme.mjs, from lib/tokens.mjs
  const setByViews = ['--head-color', '--setting-color', '--natural-width', '--cells', '--share'];
  const known = new Set([...cssVariables().map(([name]) => name), ...setInCss, ...setByTheme, ...setByViews]);
  expect([...read].filter((name) => !known.has(name))).toEqual([]);
  expect(read.has('--ink') && read.has('--font') && read.has('--cjk')).toBe(true);
});
