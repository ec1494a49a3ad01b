// The call protocol (src/js/protocol.mjs) against what carries it: every call
// is a method of EngineHost, every public method of EngineHost is a call, and
// EngineHost.call() runs those and nothing else.
import { createRequire } from 'node:module';
import { CALLS, MESSAGES } from '../../src/js/protocol.mjs';

const require = createRequire(import.meta.url);
const EngineHost = require('../../src/js/engine-host.js');

test('the calls are exactly the methods of EngineHost', () => {
  const methods = Object.getOwnPropertyNames(EngineHost.prototype).filter(
    (name) => name !== 'constructor' && name !== 'call' && name !== 'dispose',
  );
  expect(Object.values(CALLS).sort()).toEqual(methods.sort());
  for (const [key, name] of Object.entries(CALLS)) expect(key).toBe(name);
  expect(new Set(Object.values(MESSAGES)).size).toBe(Object.keys(MESSAGES).length);
});

test('EngineHost.call runs the calls of the protocol only', () => {
  // A host over a stand-in module: what matters is the dispatch, not the engine.
  const module = {
    Engine: class {
      threads() {
        return 3;
      }
    },
    limits: () => ({ maxElements: 7 }),
  };
  const host = new EngineHost(module, 3, Object.values(CALLS));
  expect(host.call(CALLS.threads, [])).toBe(3);
  expect(host.call(CALLS.limits, [])).toEqual({ maxElements: 7 });
  for (const name of ['constructor', 'call', 'dispose', 'trainer', 'toString', '__proto__', 'nope'])
    expect(() => host.call(name, [])).toThrow(`mha-wasm: unknown engine call ${name}`);
  // A host made with fewer calls refuses the others.
  const narrow = new EngineHost(module, 3, [CALLS.threads]);
  expect(() => narrow.call(CALLS.limits, [])).toThrow(/unknown engine call limits/);
});
