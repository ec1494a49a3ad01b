// A Hugging Face token goes to the configured endpoint and nowhere else
// (sources/hub.mjs checkHubOptions and hubHeaders): not to the origin of a
// model's URL that is not the endpoint's, not to where the endpoint
// redirects (another origin: the CDN, a mirror), not over plain http unless
// the endpoint is loopback — for every way a token is given (options.token,
// HF_TOKEN, HUGGING_FACE_HUB_TOKEN, the token file `huggingface-cli login`
// writes, HF_TOKEN_PATH) and every way a URL is given (a URL, a string).
// Listeners: two local servers that speak the Hub's HTTP
// (tests/tools/hub-server.mjs) on two origins, the endpoint and "another
// host", each with its CDN; for hosts that must not be reached at all
// (http://hub.example), fetch is replaced by a recorder that answers 401.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { HubServer, folderFiles } from '../tools/hub-server.mjs';
import { isolatedHubHome } from './helpers/hub-home.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const PUBLIC = 'mha-wasm-tests/hf-roberta';
const GATED = 'mha-wasm-tests/gated-bert';
const TOKEN = 'hf_secret';

let endpoint; // the configured endpoint's server
let other; // a server on another origin
let engine;
let hub; // the suite's own Hub home (isolatedHubHome)
const freshCache = () => hub.freshCache();
const repos = () => ({
  [PUBLIC]: { files: folderFiles(path.join(MODELS, 'hf-roberta')) },
  [GATED]: { files: folderFiles(path.join(MODELS, 'bert-zh')), gated: true },
});
const clear = () => {
  endpoint.requests.length = 0;
  other.requests.length = 0;
};
const authorized = (server) => server.requests.filter((r) => r.authorization !== undefined);

beforeAll(async () => {
  hub = isolatedHubHome('hub-token');
  endpoint = await new HubServer({ repos: repos(), tokens: [TOKEN] }).start();
  other = await new HubServer({ repos: repos(), tokens: [TOKEN] }).start();
  engine = await createAttention({ threads: 1 });
});

afterAll(async () => {
  engine?.dispose();
  await endpoint?.stop();
  await other?.stop();
  hub?.restore();
});

beforeEach(clear);

// Each way a token reaches loadModel: { options } to pass, and what to set up and undo.
const WAYS = {
  'options.token': { options: { token: TOKEN } },
  HF_TOKEN: { env: { HF_TOKEN: TOKEN } },
  HUGGING_FACE_HUB_TOKEN: { env: { HUGGING_FACE_HUB_TOKEN: TOKEN } },
  "the token file (huggingface-cli login's $HF_HOME/token)": { file: () => path.join(process.env.HF_HOME, 'token') },
  HF_TOKEN_PATH: { file: () => path.join(hub.home, 'elsewhere', 'my-token'), env: { HF_TOKEN_PATH: 'file' } },
};

/** Runs `body(options)` with the token given the way `way` says, then undoes it. */
async function withToken(way, body) {
  const { options = {}, env = {}, file } = WAYS[way];
  const tokenFile = file?.();
  if (tokenFile) {
    mkdirSync(path.dirname(tokenFile), { recursive: true });
    writeFileSync(tokenFile, `${TOKEN}\n`);
  }
  for (const [name, value] of Object.entries(env)) process.env[name] = value === 'file' ? tokenFile : value;
  try {
    return await body(options);
  } finally {
    for (const name of Object.keys(env)) delete process.env[name];
    if (tokenFile) rmSync(tokenFile);
  }
}

describe.each(Object.keys(WAYS))('a token given by %s', (way) => {
  test('reaches the endpoint, and only there', async () => {
    await withToken(way, async (options) => {
      const model = await engine.loadModel(GATED, { endpoint: endpoint.url, cacheDir: freshCache(), ...options });
      model.dispose();
    });
    const hub = endpoint.requests.filter((r) => r.port === 'hub');
    expect(hub.length).toBeGreaterThan(0);
    expect(hub.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
    // The weights come from the endpoint's CDN (another origin): without the token.
    expect(endpoint.requests.filter((r) => r.port === 'cdn').length).toBeGreaterThan(0);
    expect(endpoint.requests.filter((r) => r.port === 'cdn' && r.authorization !== undefined)).toEqual([]);
  });

  test.each([
    ['a URL', (url) => new URL(url)],
    ['a string URL', (url) => url],
  ])(
    'never reaches another origin named by %s: a public model loads without it, a gated one says why',
    async (_, as) => {
      // The endpoint as an option, and as HF_ENDPOINT.
      for (const setEndpoint of [
        (o) => ({ ...o, endpoint: endpoint.url }),
        (o) => ((process.env.HF_ENDPOINT = endpoint.url), o),
      ])
        await withToken(way, async (options) => {
          try {
            clear();
            const model = await engine.loadModel(
              as(`${other.url}/${PUBLIC}`),
              setEndpoint({ ...options, cacheDir: freshCache() }),
            );
            model.dispose();
            await expect(
              engine.loadModel(
                as(`${other.url}/${GATED}/tree/main`),
                setEndpoint({ ...options, cacheDir: freshCache() }),
              ),
            ).rejects.toThrow(
              `${GATED} is a gated model: accept its conditions on ${other.url}/${GATED} while logged in; no token was sent: ` +
                `the token is sent to the endpoint (${endpoint.url}) only, and the URL names ${other.url}; ` +
                `to send it there, set options.endpoint to ${other.url}`,
            );
          } finally {
            delete process.env.HF_ENDPOINT;
          }
          expect(other.requests.length).toBeGreaterThan(0);
          expect(authorized(other)).toEqual([]);
          expect(endpoint.requests).toEqual([]);
        });
    },
  );
});

test('a URL of the endpoint itself carries the token; naming its origin as the endpoint sends it there', async () => {
  for (const source of [new URL(`${endpoint.url}/${GATED}`), `${endpoint.url}/${GATED}/tree/main`])
    (await engine.loadModel(source, { endpoint: endpoint.url, token: TOKEN, cacheDir: freshCache() })).dispose();
  (
    await engine.loadModel(`${other.url}/${GATED}`, { endpoint: other.url, token: TOKEN, cacheDir: freshCache() })
  ).dispose();
  expect(authorized(endpoint).length).toBeGreaterThan(0);
  expect(authorized(other).length).toBeGreaterThan(0);
  expect(authorized(endpoint).every((r) => r.port === 'hub')).toBe(true);
});

test("a redirect to another origin (the file list, a file's HEAD, a file) never carries the token", async () => {
  const cacheDir = freshCache();
  // The endpoint sends its file list, a small file's metadata and the file itself to the other server.
  endpoint.fail(`/api/models/${GATED}/revision/main`, 302, 1, {
    location: `${other.url}/api/models/${GATED}/revision/main?blobs=true`,
  });
  endpoint.fail(`/${GATED}/resolve/${endpoint.commitOf(GATED)}/config.json`, 302, 1, {
    location: `${other.url}/${GATED}/resolve/${other.commitOf(GATED)}/config.json`,
  });
  // Followed or not, a load fails or succeeds: what matters is where the token went.
  await engine.loadModel(GATED, { endpoint: endpoint.url, token: TOKEN, cacheDir }).then(
    (model) => model.dispose(),
    () => {},
  );
  expect(other.requests.length).toBeGreaterThan(0);
  expect(authorized(other)).toEqual([]);
  expect(authorized(endpoint).length).toBeGreaterThan(0);
});

describe('hosts no test may reach, through a recording fetch', () => {
  let asked;
  let realFetch;
  beforeEach(() => {
    asked = [];
    realFetch = globalThis.fetch;
    globalThis.fetch = async (url, init = {}) => {
      asked.push({ url: String(url), authorization: new Headers(init.headers).get('authorization') });
      return new Response('no', { status: 401, headers: { 'x-error-code': 'GatedRepo' } });
    };
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  test.each([
    ['http://hub.example', null],
    ['http://10.1.2.3:8080', null],
    ['http://127.0.0.5:9', `Bearer ${TOKEN}`],
    ['http://localhost:9', `Bearer ${TOKEN}`],
    ['http://[::1]:9', `Bearer ${TOKEN}`],
    ['https://hub.example', `Bearer ${TOKEN}`],
  ])('an endpoint %s gets the authorization %s', async (url, expected) => {
    for (const [source, options] of [
      [GATED, { endpoint: url, token: TOKEN }],
      [`${url}/${GATED}`, { endpoint: url, token: TOKEN }],
    ]) {
      await expect(engine.loadModel(source, { ...options, cacheDir: freshCache() })).rejects.toThrow(
        expected ? /the token given has no access yet/ : /no token was sent: the token is never sent over plain http/,
      );
    }
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((a) => a.url.startsWith(`${url}/`) && a.authorization === expected)).toBe(true);
  });

  test('HF_TOKEN with an http HF_ENDPOINT that is not loopback: withheld', async () => {
    process.env.HF_TOKEN = TOKEN;
    process.env.HF_ENDPOINT = 'http://mirror.example';
    try {
      await expect(engine.loadModel(GATED, { cacheDir: freshCache() })).rejects.toThrow(
        'no token was sent: the token is never sent over plain http (http://mirror.example): use an https endpoint',
      );
    } finally {
      delete process.env.HF_TOKEN;
      delete process.env.HF_ENDPOINT;
    }
    expect(asked.map((a) => a.authorization)).toEqual([null]);
  });
});

test.each([
  ['https://huggingface.co/', TypeError, `source: expected a Hub model's URL`],
  ['http://hub.example/a b', TypeError, `source: expected a Hub model's URL`],
])('a string URL that names no repo (%s) is refused', async (source, type, message) => {
  const loading = engine.loadModel(source, { cacheDir: freshCache() });
  await expect(loading).rejects.toThrow(type);
  await expect(loading).rejects.toThrow(message);
});
