// The page's notes on how the designed heads are built (#about in
// web/index.html): every designed head of every mode, the single head
// included, has its construction there, in both languages; and the notes
// say that the heads split d_model (H·d_k = d_model).
import { readFileSync } from 'node:fs';
import en from '../../web/i18n/en.mjs';
import zh from '../../web/i18n/zh.mjs';
import { encoderSpec, decoderSpec } from '../../web/model/designed-heads.mjs';
import { crossSpec } from '../../web/model/cross-heads.mjs';

/** The message keys of the #about section's markup, in order. */
function aboutKeys() {
  const html = readFileSync('web/index.html', 'utf8');
  const section = html.slice(
    html.indexOf('<section id="about"'),
    html.indexOf('</section>', html.indexOf('id="about"')),
  );
  return [...section.matchAll(/data-i18n(?:-html)?="([^"]+)"/g)].map((m) => m[1]);
}

test('every designed head of every mode has its construction in the notes, in both languages', () => {
  const heads = [...encoderSpec().heads, 'single', ...decoderSpec().heads, ...crossSpec().heads];
  expect(heads).toHaveLength(8);
  const keys = aboutKeys();
  const text = (catalogue) => keys.map((k) => catalogue[k]).join('\n');
  // English names a head by its name, Chinese by its title: each in bold where its construction starts.
  const missing = (catalogue, name) => heads.filter((h) => !text(catalogue).includes(`<strong>${name(h)}</strong>`));
  expect(missing(en, (h) => h)).toEqual([]);
  expect(missing(zh, (h) => zh[`head.title.${h}`])).toEqual([]);
});

test('the notes say that the heads split d_model: d_k = d_v = d_model / H', () => {
  const keys = aboutKeys();
  for (const catalogue of [en, zh])
    expect(keys.map((k) => catalogue[k]).join('\n')).toContain('d_k = d_v = d_model / H');
});
