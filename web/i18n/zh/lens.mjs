// 中文：“哪些头真正重要”里的 logit lens（views/logit-lens-view.mjs），解码器和翻译模型的解码器
// （mha-wasm/analysis logitLens），以及它说明了什么（model/logit-lens-text.mjs）。
export default {
  'lens.title': '逐层透镜：下一个词元在哪一层就定了？',
  'lens.explain':
    '把每一层在某个位置的隐藏状态当作最后一层来读：经过模型最后的归一化和输出头' +
    '（<span lang="en">nostalgebraist 2020, “interpreting GPT: the logit lens”</span>）。第 0 层只读词嵌入；最后一行就是模型自己的预测。' +
    '翻译模型的解码器读的是它自己的译文，逐个词元喂回去。词元里的“▁”和“Ġ”表示词前的空格。',
  'lens.run': '逐层读出（透镜）',
  'lens.position': '位置',
  'lens.trust': '这个检查点是随机的或测试用的小模型：各层的“猜测”只是噪声，不代表模型在做决定。',
  'lens.table.caption': '位置 {position} {token} 之后的逐层透镜：每层前 {n} 个词元',
  'lens.table.layer': '层',
  'lens.table.top': '该层的前几名',
  'lens.table.rank': '{token} 的名次',
  'lens.table.embeddings': '0（词嵌入）',
  'lens.table.last': '{layer}（输出）',
  'lens.table.n': '{layer}',
  'lens.table.rankOf': '第 {rank} 名 · {probability}',
  'lens.text.settled':
    '模型的预测 {token} 从第 {layer} 层（共 {layers} 层）起就是第一名（该层 {probability}），之后各层保持不变。',
  'lens.text.last': '模型的预测 {token} 只在最后一层（第 {layers} 层）才成为第一名。',
  'lens.text.first': '它在第 {layer} 层第一次排到第一，随后又被挤下，之后才稳定下来。',
  'lens.text.embeddings': '只看词嵌入时它排第 {rank} 名。',
  'matter.progress.lens': '逐层透镜：第 {done} / {total} 次运行',
};
