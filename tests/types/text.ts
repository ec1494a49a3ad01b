// The text of a generation (textDelta, result.text) and model.tokenizer, as a TypeScript program uses them;
// type-checked only. Lines marked @ts-expect-error are misuse the declarations must reject.
import { createAttention } from 'mha-wasm/model';
import type { Encoding, GenerationStep, ModelTokenizer, TokenReport } from 'mha-wasm/model';

export async function text(): Promise<void> {
  const engine = await createAttention();
  const model = await engine.loadModel('Qwen/Qwen2.5-0.5B', { kind: 'decoder' });
  // Streaming text: each step's delta; the steps joined are result.text.
  let streamed = '';
  for await (const s of model.generateSteps('The cat', { maxNewTokens: 8 })) streamed += s.textDelta ?? '';
  const g = await model.generate('The cat', {
    maxNewTokens: 8,
    onToken: (r: TokenReport) => void (streamed += r.textDelta ?? ''),
    onStep: (s: GenerationStep) => void s.textDelta?.length,
  });
  const whole: string = `The cat${g.text ?? ''}` + streamed;
  void whole;

  // The tokenizer without the model.
  const tokenizer: ModelTokenizer | null = model.tokenizer;
  if (!tokenizer) return;
  const e: Encoding = await tokenizer.encode(['a question', 'its context'], {
    truncation: true,
    maxLength: 16,
    padding: 'max_length',
  });
  const ids: Int32Array = e.inputIds;
  const mask: Uint8Array = e.attentionMask;
  const types: Int32Array | undefined = e.tokenTypeIds;
  const n: number = await tokenizer.countTokens('用毒毒毒蛇', { addSpecialTokens: false });
  const back: string = await tokenizer.decode(ids, { skipSpecialTokens: true });
  const pad: number | undefined = tokenizer.specialTokens.pad?.id;
  void [mask, types, n, back, pad];
  // With returnOffsets: the offsets are there (typed [start, end] pairs); without, they may not be.
  const placed = await tokenizer.encode('用毒毒毒蛇', { returnOffsets: true });
  const first: [number, number] = placed.offsets[0];
  void first;
  // @ts-expect-error without returnOffsets, offsets may be missing
  const none: Array<[number, number]> = e.offsets;
  void none;
  // @ts-expect-error returnOffsets is a boolean
  await tokenizer.encode('a', { returnOffsets: 'yes' });
  await model.run('a long text', { truncation: true, maxLength: 128 });
  // @ts-expect-error a pair is two texts, not three
  await tokenizer.encode(['a', 'b', 'c']);
  // @ts-expect-error padding is a boolean or one of transformers' strategies
  await tokenizer.encode('a', { padding: 'left' });
  // @ts-expect-error truncation is a boolean ('longest_first')
  await tokenizer.encode('a', { truncation: 'longest_first' });
  // @ts-expect-error a step continues a text: no truncation
  await model.step('a', { truncation: true });
}
