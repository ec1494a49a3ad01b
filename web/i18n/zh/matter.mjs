// 中文：“哪些头真正重要”（views/heads-matter.mjs），在真实模型与真实翻译里：逐个关掉一个头，再一起关掉
// （mha-wasm/analysis），并写出数字说明了什么。
export default {
  'matter.title': '哪些头真正重要',
  'matter.explain':
    '这是实验，不是权重的图（<span lang="en">Michel</span> 等 2019，“十六个头真的比一个好吗？”）：模型先给自己在这段文字上的输出打分' +
    '（即<em>参照</em>：每个词元在前文条件下的对数概率之和）；然后每次只关掉一个头，再给参照打分。两者之差就是网格里的' +
    '数：为负，说明这个头帮了这个输出。接着按这个固定顺序，从最不重要的头开始一起关掉（<span lang="en">Michel</span> 等每一步重新计算基于' +
    '梯度的重要性；这里用一次消融，不需要梯度），每一步都让模型重新产生输出。',
  'matter.run': '哪些头真正重要？',
  'matter.cancel': '取消',
  'matter.length': '参照',
  'matter.length.next': '下一个词元',
  'matter.length.n': '接下来的 {n} 个词元',
  'matter.needMask': '填空模型要填 [MASK]：先在句子里放一个（上面填空的按钮会遮住一个“毒”）。',
  'matter.progress.start': '参照：所有头都在时模型自己的输出……',
  'matter.progress.importance': '每次关掉一个头：第 {done} / {total} 次运行',
  'matter.progress.pruning': '一起关掉若干头：第 {done} / {total} 个点（重新打分并重新输出）',
  'matter.cancelled': '已取消，没有结果。',
  'matter.done': '共运行 {passes} 次，用时 {seconds} 秒，在引擎（{variant}）里。',
  'matter.error': '分析失败。',
  'matter.ref.decoder': '贪心生成的续写',
  'matter.ref.encoder': '每个 [MASK] 最可能的填空',
  'matter.ref.encoder-decoder': '贪心翻译（1 束）',
  'matter.reference': '参照（{kind}）：“{output}”；所有头都在时它的对数概率：{score}。',
  'matter.group.encoder': '编码器',
  'matter.group.decoder': '解码器',
  'matter.group.cross': '交叉注意力',
  'matter.group.all': '所有头',
  'matter.grid.caption':
    '{group}：只关掉这一个头时，参照的对数概率的变化（行是层，列是头）。点一个头，在下面的视图里查看它。',
  'matter.grid.layer': '层 {layer}',
  'matter.grid.head': '头 {head}',
  'matter.grid.cell': '{head}：关掉它，变化 {delta}',
  'matter.legend.helps': '关掉它分数下降（它有帮助）',
  'matter.legend.hurts': '关掉它分数上升',
  'matter.curve.title': '从最不重要的头开始关掉',
  'matter.curve.line': '哪些头',
  'matter.curve.x': '关掉的头所占比例',
  'matter.curve.y': '对数概率',
  'matter.curve.aria': '{group}：参照的对数概率，从 {first}（不关头）到 {last}（全部关掉）',
  'matter.curve.first': '输出开始改变',
  'matter.table.caption': '{group}：每个点的分数和重新产生的输出',
  'matter.table.off': '关掉的头',
  'matter.table.score': '对数概率',
  'matter.table.output': '输出',
  'matter.table.changed': '第一次改变',
  'matter.table.count': '{share}（{n} 个）',
  'matter.table.duChanged': '“毒”的英文改变',
  'matter.curve.du': '“毒”的英文',
  'matter.text.du': ({ words, n, output }) =>
    `“毒”的英文（模型写这些词元时，所有头平均的交叉注意力最看重含“毒”的源词元——这是模型看向哪里，不是词对齐：${words}）在关掉 ${n} 个头时第一次改变：“${output}”。`,
  'matter.text.duKept':
    '“毒”的英文（模型写这些词元时，所有头平均的交叉注意力最看重含“毒”的源词元——这是模型看向哪里，不是词对齐：{words}）在这条线上不变，即使关掉全部 {total} 个头。',
  'matter.text.never': '即使关掉全部 {total} 个头，模型仍然给出“{output}”。',
  'matter.text.kept':
    '关掉 {total} 个头中的 {n} 个（{share}），这个模型的输出仍是“{output}”；关掉 {changedAt} 个（{changedShare}）时，' +
    '它给出“{changed}”。',
  'matter.text.fragile': ({ output, changedAt, total, changedShare, changed }) =>
    `${total} 个头里只要关掉 ${changedAt} 个（${changedShare}），输出“${output}”就变成“${changed}”。`,
  'matter.text.group': '{group}的头最重要：逐个关掉时，它们分数下降的中位数是 {median}（{others}）。',
  'matter.text.groupMedian': '{group} {median}',
  'matter.text.head': ({ head, drop, median, raise, count }) =>
    `${head} 最重要：只关掉它，分数下降 ${drop}（中位数：${median}）；${count} 个头里有 ${raise} 个，单独关掉反而让分数上升。`,
  'matter.trust.random':
    '上面的说明已经指出这个检查点没有训练过（随机，或预测不比瞎猜好）：这些数字只演示方法，说明不了一门语言需要哪些头。',
  'matter.trust.unmeasured':
    '本页没有测出这个检查点是否训练过：只有你知道它训练过时，这些数字才说明头的作用（随机的测试检查点的数字没有意义）。',
  'matter.trust.trained':
    '只有一段文字、一个参照：这里不重要的头，换一段文字可能就重要；关掉头的模型也不等于用更少的头训练出来的模型。',
  'matter.progress.more': '运行中……',
  'matter.progress.oneHead': '更少的头：第 {done} / {total} 次运行（打分，并重新输出）',
  'matter.progress.headsOff': '关掉这些头：第 {done} / {total} 次运行（打分，再重新输出）',
  'matter.progress.rollout': '展开：第 {done} / {total} 次运行',
  'matter.ready': '完成：结果在下面。',
  'matter.cancelledMore': '已取消：上面的分析不变。',
  'matter.few.title': '更少的头',
  'matter.few.explain':
    '<span lang="en">Michel</span> 等（2019，§4）把一层减到只剩最重要的一个头。这里的重要性就是网格里的数（只关掉这个头时的下降）：' +
    '每层留下去掉代价最大的那个头，先一次只减一层（见表），再所有层同时减；或者每组只留下它最重要的一个头。',
  'matter.few.layersButton': '每层一个头',
  'matter.few.singleButton': '只留最重要的头',
  'matter.few.layers.same':
    '所有层同时减到一个头（留下 {kept} / {total} 个头）：对数概率 {score}（所有头都在时 {reference}）；输出仍是“{output}”。',
  'matter.few.layers.changed':
    '所有层同时减到一个头（留下 {kept} / {total} 个头）：对数概率 {score}（所有头都在时 {reference}）；输出变成“{output}”。',
  'matter.few.table.caption': '一次只把一层减到它最重要的头，模型其余部分不变：对数概率（所有头都在时：{score}）',
  'matter.few.table.group': '组',
  'matter.few.table.layer': '层',
  'matter.few.table.kept': '留下的头',
  'matter.few.table.score': '对数概率',
  'matter.few.single.same': '{group}只留 {head}（本组其余头关掉，其他组不变）：对数概率 {score}；输出仍是“{output}”。',
  'matter.few.single.changed':
    '{group}只留 {head}（本组其余头关掉，其他组不变）：对数概率 {score}；输出变成“{output}”。',
  'matter.few.singleAll.same': '每组同时只留它的一个头：对数概率 {score}；输出仍是“{output}”。',
  'matter.few.singleAll.changed': '每组同时只留它的一个头：对数概率 {score}；输出变成“{output}”。',
  'matter.head.title': '{group}的{head}',
  'matter.head.off.same': '只关掉这个头，分数变化 {delta}，输出仍是“{reference}”。',
  'matter.head.off.changed': '只关掉这个头，分数变化 {delta}，输出变成“{output}”（有它时：“{reference}”）。',
  'matter.head.writesWhy':
    '它写入什么（<span lang="en">Kobayashi</span> 等 2020，“注意力不只是权重”）：‖f(x_j)‖，即这个头把全部权重放在' +
    '词元 j 上时能把输出推多远——落在范数小的词元上的权重几乎不起作用。',
  'matter.head.writes': '最大：“{token}”（位置 {position}），{norm}；中位数：{median}。',
  'matter.head.table.caption': '‖f(x_j)‖：词元 j 的值经过这个头那一份 W_O 之后的范数',
  'matter.head.table.position': '位置',
  'matter.head.table.token': '词元',
  'matter.head.table.norm': '‖f(x_j)‖',
  'measure.label': '显示',
  'measure.weight': '注意力权重 α',
  'measure.norm': '按范数加权 α·‖f(x)‖',
  'measure.why':
    '原因：头给词元 i 加上 Σ_j α·f(x_j)，所以落在 f(x_j) 很短的词元上的大权重几乎不起作用' +
    '（<span lang="en">Kobayashi et al. 2020, “Attention is Not Only a Weight”</span>）。',
  'measure.legend': 'α·‖f(x)‖',
  'measure.desc':
    '层 {layer} · 头 {head}：行是查询，列是键；每格是 α·‖f(x_j)‖，由引擎的权重和值的范数算出，最深的是图中最大的值。',
  'matter.rollout.title': '注意力展开',
  'matter.rollout.explain':
    '<span lang="en">Abnar &amp; Zuidema</span>（2020）：每层的注意力先对各头取平均，再留一半给词元自己（0.5·A + 0.5·I，对应残差连接），' +
    '然后逐层相乘：第 l 层之后的第 i 行，表示每个输入词元有多少到达位置 i。每行之和为 1。',
  'matter.rollout.rolled.decoder': '这里展开的是：解码器的自注意力（因果：每行只有它之前的词元）。',
  'matter.rollout.rolled.encoder': '这里展开的是：编码器的自注意力。',
  'matter.rollout.rolled.encoder-decoder':
    '这里展开的是：编码器的自注意力，以及解码器在译文上的自注意力；交叉注意力不展开（论文只为一叠自注意力定义了展开）。',
  'matter.rollout.run': '展开注意力',
  'matter.rollout.group': '注意力',
  'matter.rollout.layer': '到',
  'matter.rollout.after': '第 {layer} 层之后',
  'matter.rollout.mapTitle': '{group}展开 · 第 {layer} 层之后',
  'matter.rollout.desc': '第 {layer} 层之后：行是位置，列是到达它的词元；每行之和为 1。',
  'matter.rollout.legend': '份额',
  'measure.descMean': '行是查询，列是键；每格是 α·‖f(x_j)‖（一层或所有头的：取平均），最深的是图中最大的值。',
};
