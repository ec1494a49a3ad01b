// Task heads, embeddings and pipeline() as a TypeScript program meets them (tsc --noEmit only). Each line under a
// ts-expect-error directive is a call or a field the runtime refuses or never returns (src/js/models/tasks/).
import { createAttention, pipeline } from 'mha-wasm/model';
import type { EncoderModel, FillMaskItem, LabelScore, TaskHead, TokenEntity, TokenGroup } from 'mha-wasm/model';

/** true when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(check: Equal<A, B>) => check;

export async function heads(): Promise<void> {
  const engine = await createAttention();
  const bert = await engine.loadModel('org/sentiment', { kind: 'encoder' });
  same<typeof bert.config.taskHead, TaskHead | null>(true);
  const labels: readonly string[] | null = bert.config.labels;
  void labels;
  // A decoder's and an encoder-decoder's config: no task head read, null at run time.
  const gpt = await engine.loadModel('gpt2', { kind: 'decoder' });
  same<typeof gpt.config.taskHead, null>(true);
  const mt = await engine.loadModel('org/opus-mt', { kind: 'encoder-decoder' });
  same<typeof mt.config.sentenceTransformers, null>(true);
  same<typeof mt.config.labels, null>(true);
  const c = await bert.classify('a fine day');
  same<typeof c.labels, LabelScore[]>(true);
  void [c.taskLogits, c.attention, c.attentions.encoder, c.inputIds];
  // @ts-expect-error: hidden states only when asked for
  void c.hiddenStates;
  const quiet = await bert.classify('a', { returnAttention: false, returnHiddenStates: true });
  void quiet.hiddenStates;
  // @ts-expect-error: no attention when returnAttention is false
  void quiet.attention;
  const tokens = await bert.classifyTokens({ text: 'a', textPair: 'b' });
  void tokens.labels[0].index;
  // @ts-expect-error: entities only with an aggregationStrategy
  void tokens.entities;
  const grouped = await bert.classifyTokens('a', { aggregationStrategy: 'first' });
  same<typeof grouped.entities, TokenGroup[]>(true);
  const each = await bert.classifyTokens('a', { aggregationStrategy: 'none' });
  same<typeof each.entities, TokenEntity[]>(true);
  const a = await bert.answer({ question: 'who?', context: 'the snake' }, { maxAnswerLength: 5 });
  const span: [number, number] = a.tokenSpan;
  const where: [number | null, number | null] = [a.start, a.end];
  void [a.answer, a.score, a.startLogits, a.endLogits, span, where];
  // @ts-expect-error start is null where the engine does not place the tokens
  const start: number = a.start;
  void start;
  // @ts-expect-error: a question needs its context
  await bert.answer({ question: 'who?' });
  const e = await bert.embed('a', { pooling: 'cls', normalize: true });
  void [e.embedding, e.pooling];
  // @ts-expect-error: not a pooling
  await bert.embed('a', { pooling: 'sum' });
  const any = await engine.loadModel('some/model');
  // @ts-expect-error: task heads are an encoder's: which kind is this?
  await any.classify('a');
  if (any.kind === 'encoder') same<typeof any, EncoderModel>(true);
  const gpt2 = await engine.loadModel('openai-community/gpt2', { kind: 'decoder' });
  // @ts-expect-error: a decoder has no embed()
  await gpt2.embed('a');
}

export async function pipelines(): Promise<void> {
  const classify = await pipeline('text-classification', 'org/sentiment');
  const one = await classify('a');
  same<typeof one, LabelScore[]>(true);
  void (await classify('a', { topK: null }));
  const many = await classify(['a', 'b']);
  same<typeof many, LabelScore[][]>(true);
  const ner = await pipeline('token-classification', 'org/ner', { revision: 'main' });
  const entities: TokenEntity[] = await ner('a', { ignoreLabels: [] });
  void entities;
  const groups: TokenGroup[] = await ner('a', { aggregationStrategy: 'simple' });
  void [groups[0].entity_group, groups[0].start];
  const perInput: TokenGroup[][] = await ner(['a', 'b'], { aggregationStrategy: 'max', ignoreLabels: [] });
  void perInput;
  // @ts-expect-error: transformers' names are lower case
  await ner('a', { aggregationStrategy: 'FIRST' });
  // @ts-expect-error: groups have no token index
  void (await ner('a', { aggregationStrategy: 'average' }))[0].index;
  const fill = await pipeline('fill-mask', 'org/bert');
  const filled: FillMaskItem[] | FillMaskItem[][] = await fill('a [MASK]', { topK: 3 });
  void filled;
  const qa = await pipeline('question-answering', 'org/qa');
  const { answer, score } = await qa('who?', 'the snake');
  void [answer, score];
  // @ts-expect-error: question and context, two strings
  await qa({ question: 'who?', context: 'the snake' });
  const features = await pipeline('feature-extraction', 'org/st', { engine: await createAttention() });
  const { data, dims } = await features('a', { pooling: 'mean', normalize: true });
  void [data, dims, features.model, features.task];
  features.dispose();
  const mt = await pipeline('translation', 'Helsinki-NLP/opus-mt-zh-en');
  const [{ translation_text }] = await mt('你好', { numBeams: 2 });
  void translation_text;
  const gen = await pipeline('text-generation', 'openai-community/gpt2');
  const [{ generated_text }] = await gen('Once', { maxNewTokens: 5, returnFullText: false });
  void generated_text;
  // @ts-expect-error: not a task
  await pipeline('summarization', 'org/x');
  // @ts-expect-error: the task decides the kind
  await pipeline('translation', 'org/x', { kind: 'decoder' });
}
