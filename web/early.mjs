// The first module the page runs (index.html: async, before app.mjs): it starts the engine — the
// 'mha-wasm/model' entry's modules, its worker, its .wasm — while the page's own ~190 modules are still
// loading, rather than after them (ready in 1.5–1.9 s here, from 2.0–2.3 s). app.mjs awaits the same
// engine and reports a failure on the page.
import { startPageEngine } from './lib/package.mjs';

startPageEngine().catch(() => {});
