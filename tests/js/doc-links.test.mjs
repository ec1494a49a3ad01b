// The repository's Markdown (README.md, ARCHITECTURE.md, CONTRIBUTING.md and docs/*.md) links to files and headings
// that exist: a relative link names a file (from the Markdown file's folder), its #anchor a heading of that file as
// GitHub makes anchors; a link into this repository on GitHub (…/mha-wasm/mha-wasm/tree/main/path) names a tracked
// path. The API reference moved from the README into docs/ across files, so a link left pointing at the old place
// fails here. tests/pack checks the README's links against the tarball.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TREE = 'https://github.com/mha-wasm/mha-wasm/tree/main/';
const FILES = [
  'README.md',
  'ARCHITECTURE.md',
  'CONTRIBUTING.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks (a `](` inside code is not a link). */
const prose = (text) => text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');

/** GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces to '-', repeats -1, -2 …. */
function anchors(file) {
  const seen = new Map();
  const out = new Set();
  for (const [, title] of prose(readFileSync(path.join(ROOT, file), 'utf8')).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = title
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n ? `${slug}-${n}` : slug);
  }
  return out;
}

/** Every link target of a Markdown file ([text](target) and ![alt](target)), outside code blocks. */
const links = (file) =>
  [...prose(readFileSync(path.join(ROOT, file), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);

const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n');

test('the Markdown files are the ones this test reads: README, ARCHITECTURE, CONTRIBUTING and the API reference', () => {
  expect(FILES).toEqual(expect.arrayContaining(['docs/api-attention.md', 'docs/api-errors.md', 'docs/api-models.md']));
  // The README's table of contents links every file of the API reference.
  const readme = links('README.md');
  expect(FILES.filter((f) => /^docs\/api-/.test(f) && !readme.includes(f))).toEqual([]);
});

test.each(FILES)('%s: every relative link names a file, and its #anchor a heading there', (file) => {
  const broken = [];
  for (const target of links(file)) {
    if (/^[a-z]+:/i.test(target)) continue;
    const [where, anchor] = target.split('#');
    const to = where ? path.relative(ROOT, path.resolve(ROOT, path.dirname(file), where)) : file;
    if (!existsSync(path.join(ROOT, to))) broken.push(`${target}: no file ${to}`);
    else if (anchor !== undefined && to.endsWith('.md') && !anchors(to).has(anchor))
      broken.push(`${target}: no heading #${anchor} in ${to}`);
  }
  expect(broken).toEqual([]);
});

test.each(FILES)('%s: every link into the repository on GitHub names a path it tracks', (file) => {
  const paths = links(file)
    .filter((target) => target.startsWith(TREE))
    .map((target) =>
      target
        .slice(TREE.length)
        .replace(/[#?].*$/, '')
        .replace(/\/$/, ''),
    );
  expect(paths.filter((p) => !tracked.some((f) => f === p || f.startsWith(`${p}/`)))).toEqual([]);
});
