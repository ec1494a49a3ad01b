// The status line: which build runs the engine, on how many threads, whether
// the page is cross-origin isolated (what threads need), and how long the last
// computation took.
import { plural } from '../lib/format.mjs';

export function engineText(engine) {
  const isolated = globalThis.crossOriginIsolated === true;
  const build = { 'threaded-simd': 'threaded SIMD', simd: 'SIMD', scalar: 'scalar' }[engine.variant] ?? engine.variant;
  const threads = plural(engine.threads, 'thread');
  const note = isolated
    ? 'cross-origin isolated'
    : 'not cross-origin isolated (no COOP/COEP headers), so single-thread SIMD';
  return `Engine: ${engine.variant} (${build}), ${threads} · ${note}`;
}

export function showStatus(element, engine, run) {
  const time = run.finishedAt.toLocaleTimeString('en-GB', { hour12: false });
  element.textContent =
    `${engineText(engine)} · last computation: ${plural(run.engineCalls, 'engine call')} in ` +
    `${run.elapsedMs.toFixed(2)} ms at ${time}`;
}
