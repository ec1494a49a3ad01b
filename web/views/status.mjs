// The status line: which build runs the engine, on how many threads, whether
// the page is cross-origin isolated (what threads need), and how long the last
// computation took.
import { language, t } from '../lib/i18n.mjs';
import { fixed } from '../lib/format.mjs';

export function engineText(engine) {
  const isolated = globalThis.crossOriginIsolated === true;
  const build = t(`status.build.${engine.variant}`);
  return t('status.engine', {
    variant: engine.variant,
    build,
    threads: t('status.threads', { n: engine.threads }),
    note: t(isolated ? 'status.isolated' : 'status.notIsolated'),
  });
}

/** The status after a run, or (run null) after a sentence with nothing to compute. */
export function showStatus(element, engine, run) {
  if (!run) {
    element.textContent = t('status.empty', { engine: engineText(engine) });
    return;
  }
  const time = run.finishedAt.toLocaleTimeString(language() === 'zh' ? 'zh-CN' : 'en-GB', { hour12: false });
  element.textContent = t('status.last', {
    engine: engineText(engine),
    calls: t('status.calls', { n: run.engineCalls }),
    ms: fixed(run.elapsedMs, 2),
    time,
  });
}
