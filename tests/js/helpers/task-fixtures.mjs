// What the task-head suites (tasks.test.mjs, tasks-pieces.test.mjs) share: the fixtures of tests/fixtures/tasks
// (tests/tools/make_task_fixtures.py, make_piece_task_fixtures.py), their tolerances, and positions as the
// engine counts them.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const TASKS = fileURLToPath(new URL('../../fixtures/tasks/', import.meta.url));

/** A task fixture's expected.json. */
export const expected = (name) => JSON.parse(readFileSync(path.join(TASKS, name, 'expected.json'), 'utf8'));

/** |got − want| ≤ abs + rel·|want| everywhere (logits and embeddings: float32 against float64 through two layers). */
export function close(got, want, what, abs = 2e-5, rel = 1e-4) {
  expect([what, got.length]).toEqual([what, want.length]);
  for (let i = 0; i < want.length; i++)
    if (!(Math.abs(got[i] - want[i]) <= abs + rel * Math.abs(want[i])))
      throw new Error(`${what}[${i}]: got ${got[i]}, want ${want[i]}`);
}

/** A probability within 1e-5 (the pipelines round to float32). */
export const near = (got, want, what) => close([got], [want], what, 1e-5, 0);

/** Python's character positions in `text` as UTF-16 ones (the engine's: text.slice(start, end)). */
export function utf16(text) {
  const unit = [0];
  for (const ch of text) unit.push(unit.at(-1) + ch.length);
  return (i) => (i === null || i === undefined ? i : unit[i]);
}
