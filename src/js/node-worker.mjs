// The worker_threads Worker that runs an engine off Node's main thread
// (createAttention({ worker: true })): the same messages as the browser's
// engine worker (protocol.mjs), on a MessagePort.
import { parentPort, workerData } from 'node:worker_threads';
import { loadHost, EngineHost } from './node-host.mjs';
import { MESSAGES } from './protocol.mjs';
import { describeError } from './errors.mjs';

try {
  const host = await loadHost(workerData.plan, workerData.wasmBinary);
  parentPort.on('message', ({ type, id, method, args }) => {
    if (type !== MESSAGES.call) return;
    try {
      const result = host.call(method, args);
      parentPort.postMessage({ type: MESSAGES.result, id, result }, EngineHost.transferables(result));
    } catch (error) {
      parentPort.postMessage({ type: MESSAGES.result, id, error: describeError(error) });
    }
  });
  parentPort.postMessage({ type: MESSAGES.ready, threads: host.threads(), limits: host.limits() });
} catch (error) {
  parentPort.postMessage({ type: MESSAGES.failed, error: describeError(error) });
}
