// The special tokens by role (model.specialTokens.mask, .eos …: tokenizer_config.json's
// *_token, else the tokenizer class's defaults; src/js/models/tokenizers/special-roles.mjs)
// against transformers' own tokenizers: each fixture's reference.json holds the ids
// transformers' tokenizer gave for its roles (tok.mask_token_id, tok.eos_token_id …),
// for BERT (tokenizer.json and vocab.txt alone), RoBERTa, XLM-R, CamemBERT, GPT-2,
// Llama, Qwen2, Qwen3 and MarianMT.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { SPECIAL_ROLES } from '../../src/js/models/tokenizers/special-roles.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const FOLDERS = readdirSync(MODELS).filter((name) => existsSync(path.join(MODELS, name, 'reference.json')));
const reference = (name) => JSON.parse(readFileSync(path.join(MODELS, name, 'reference.json'), 'utf8'));

let engine;
beforeAll(async () => {
  engine = await createAttention({ threads: 1 });
});
afterAll(() => engine?.dispose());

test('the fixtures cover every role', () => {
  const covered = new Set(FOLDERS.flatMap((name) => Object.keys(reference(name).specialTokens ?? {})));
  expect(SPECIAL_ROLES.filter((role) => !covered.has(role))).toEqual([]);
});

test.each(FOLDERS.filter((name) => reference(name).specialTokens))(
  "%s: each role's id is transformers' tokenizer's",
  async (name) => {
    const want = reference(name).specialTokens;
    const model = await engine.loadModel(path.join(MODELS, name));
    try {
      const roles = SPECIAL_ROLES.filter((role) => role in want);
      expect(roles.length).toBeGreaterThan(0);
      expect(Object.fromEntries(roles.map((role) => [role, model.specialTokens[role]?.id]))).toEqual(
        Object.fromEntries(roles.map((role) => [role, want[role]])),
      );
      // A role is one of the special tokens by id, and its text is the tokenizer's piece for that id.
      for (const role of roles) expect(model.specialTokens).toContainEqual(model.specialTokens[role]);
    } finally {
      model.dispose();
    }
  },
);
