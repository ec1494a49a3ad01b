// Chat templates and conversations as a TypeScript program uses them; type-checked only.
// The lines marked as expected errors are misuse the declarations must reject.
import { createAttention } from 'mha-wasm/model';
import type { ChatMessage, ChatStep, ChatTemplateEncoding, ChatTurn, Conversation } from 'mha-wasm/model';

export async function chat(): Promise<void> {
  const engine = await createAttention();
  const model = await engine.loadModel('Qwen/Qwen2.5-0.5B-Instruct');
  const messages: ChatMessage[] = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: '用毒毒毒蛇，毒蛇会不会被毒毒死' },
  ];
  const text: string = await model.applyChatTemplate(messages, { addGenerationPrompt: true });
  const encoded: ChatTemplateEncoding = await model.applyChatTemplate(messages, {
    tokenize: true,
    variables: { date_string: '26 Jul 2024' },
  });
  const ids: Int32Array = encoded.inputIds;
  const open: string = await model.applyChatTemplate([...messages, { role: 'assistant', content: '因为' }], {
    continueFinalMessage: true,
  });
  void [text, ids, open];
  // @ts-expect-error a message needs its role
  await model.applyChatTemplate([{ content: 'Hi' }]);
  // @ts-expect-error with tokenize the result is not a string
  const wrong: string = await model.applyChatTemplate(messages, { tokenize: true });
  void wrong;

  // @ts-expect-error a conversation is a decoder's: narrow the kind first
  model.chat();
  const decoder = await engine.loadModel('Qwen/Qwen2.5-0.5B-Instruct', { kind: 'decoder' });
  const conversation: Conversation = decoder.chat({ system: 'Be brief.' });
  await decoder.rewind(decoder.past - 1);
  // @ts-expect-error rewind takes a count of positions
  await decoder.rewind('2');
  const turn: ChatTurn = await conversation.send('Hi', { maxNewTokens: 32, onStep: (s: ChatStep) => void s.id });
  const fed: number = turn.prefilled + turn.reused;
  let streamed = '';
  for await (const step of conversation.sendSteps('And then?', { maxNewTokens: 32 })) {
    streamed += step.textDelta ?? '';
    if (step.step === 1) void [step.prefilled, step.attentions?.decoder.shape];
  }
  const undone = conversation.undo();
  const fork: Conversation = conversation.fork();
  void [fed, streamed, undone.length, fork.messages.length, conversation.cachedIds.length];
  // @ts-expect-error the user's message is a string
  await conversation.send({ role: 'user', content: 'Hi' });
}
