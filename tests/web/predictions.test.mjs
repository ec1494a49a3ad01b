// The real-model view's predictions (web/model/predictions.mjs): the most
// probable tokens of a row at a temperature, against softmax written out
// here, and the [MASK] positions of an input.
import { appendRefusal, escapeInvisible, positionsOf, topTokens } from '../../web/model/predictions.mjs';

test('the k most probable tokens, most probable first, at a temperature', () => {
  const row = Float32Array.of(1, 3, 2, 3, -1);
  const exp = (t) => Array.from(row, (v) => Math.exp(v / t));
  const p = (t, i) => exp(t)[i] / exp(t).reduce((a, b) => a + b, 0);
  const top = topTokens(row, 3);
  expect(top.map((t) => t.id)).toEqual([1, 3, 2]); // the tie 1 = 3: the lower id first
  top.forEach((t) => expect(t.probability).toBeCloseTo(p(1, t.id), 14));
  const hot = topTokens(row, 2, 2);
  expect(hot.map((t) => t.id)).toEqual([1, 3]);
  expect(hot[0].probability).toBeCloseTo(p(2, 1), 12);
  expect(hot[0].probability).toBeLessThan(topTokens(row, 1)[0].probability); // a higher temperature flattens
  expect(() => topTokens(row, 2, 0)).toThrow(RangeError);
});

test('the positions of a token in the input', () => {
  expect(positionsOf(Int32Array.of(2, 4, 7, 4), 4)).toEqual([1, 3]);
  expect(positionsOf([1, 2], 9)).toEqual([]);
});

test('a token that adds nothing visible is written as its code and not appended silently', () => {
  expect(escapeInvisible('a\u000bb\u200d')).toBe('a⟨U+000B⟩b⟨U+200D⟩');
  expect(escapeInvisible('毒蛇 there')).toBe('毒蛇 there');
  expect(appendRefusal(' there')).toBe(null);
  expect(appendRefusal('毒')).toBe(null);
  expect(appendRefusal('\u000b')).toBe('invisible');
  expect(appendRefusal('\uFFFD')).toBe('partial');
  expect(appendRefusal('')).toBe('empty');
});
