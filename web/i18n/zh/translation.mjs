// 中文：真实模型一节里的“真实翻译”（views/translation.mjs）：在页面里加载的翻译模型翻译这句话，
// 展示它的三种注意力，以及关掉一些头之后的翻译。
const code = (text) => `<span translate="no">${text}</span>`;

export default {
  'mt.title': '真实翻译',
  'mt.explain':
    '你加载的翻译模型（' +
    code('MarianMT') +
    ' 编码器-解码器，例如 ' +
    code('Helsinki-NLP/opus-mt-zh-en') +
    '）在本页的引擎里翻译这句话，搜索方法与 Hugging Face ' +
    '' +
    code('transformers') +
    ' 的 ' +
    code('generate()') +
    ' 相同，英文逐个词元出现。下面是：每个英文词元在中文片段中看向哪里' +
    '（交叉注意力）、同一次运行的编码器自注意力与解码器掩码自注意力，以及关掉一些头之后重新翻译的结果。' +
    '这个模型是否训练过，页面不作假定：翻译之后见下面的说明。',
  'mt.note.random': ({ even, count }) =>
    `编码器与解码器自注意力的 ${count} 个头中有 ${even} 个几乎平均分配权重（每一行至少保留平均分配时 97 % 的熵）：` +
    '这看起来是随机的、未训练的检查点（测试模型），它的头并不看向特定的地方。这里的结果（包括关掉头之后的分数）都不是关于训练好的头的证据。',
  'mt.note.unmeasured':
    '本页没有测量这个检查点是否训练过：译文的得分总是好于随机猜测（词元是模型自己选出来的），所以得分说明不了这一点。' +
    '只有当你确知它是训练好的模型（例如 ' +
    code('Helsinki-NLP/opus-mt-zh-en') +
    '）时，下面的结果才是关于训练好的头的证据；对测试用的随机检查点，它们只是演示方法。',
  'mt.note.source': '编码器读到的源句：{n} 个片段 {pieces}（“▁”标记一个词的开头）。',
  'mt.beams': '搜索',
  'mt.beams.greedy': '贪心（1 束）',
  'mt.beams.n': '束搜索，{n} 束',
  'mt.translate': '翻译',
  'mt.translating': '正在翻译（{beams} 束）……',
  'mt.done': '{tokens} 个词元（不算结束符等特殊词元），用时 {ms} 毫秒，{search}；得分 {score}。',
  'mt.search.greedy': '贪心搜索（得分：所选词元的对数概率之和）',
  'mt.search.beam': '{n} 束的束搜索（得分：按长度惩罚后的对数概率）',
  'mt.candidate': '第 {i} 束：“{text}”（得分 {score}）',
  'mt.error': '翻译失败：{message}',
  'mt.heads.title': '关掉一些头',
  'mt.heads.explain':
    '文章说，只有一个头不足以翻译好这句话。在真实模型上试一试：只保留一部分头（被关掉的头，其注意力权重在加权值向量之前乘以 0，' +
    '与 Hugging Face 的 ' +
    code('head_mask') +
    ' 相同），再翻译一次。',
  'mt.heads.group': '哪种注意力的头',
  'mt.heads.preset': '保留',
  'mt.heads.run': '用这些头翻译',
  'mt.heads.grid': '按层和头列出保留的头',
  'mt.heads.box': '第 {layer} 层，第 {head} 个头',
  'mt.heads.kept': '{group}：保留 {kept} / {all} 个头',
  'mt.preset.custom': '按勾选',
  'mt.preset.all': '全部头',
  'mt.preset.only': '每层只留第 {head} 个头',
  'mt.group.all': '所有种类的注意力',
  'mt.group.cross': '交叉注意力（英文词元看中文片段）',
  'mt.group.encoder': '编码器自注意力（中文）',
  'mt.group.decoder': '解码器掩码自注意力（英文）',
  'mt.compare':
    '保留 {kept} / {all} 个头时：“{after}”——与全部头时的“{before}”{same}。全部头得到的那句译文，在全部头下的对数概率为 {logpAll}，' +
    '在这些头下为 {logp}；它的 {words} 个词元中有 {moved} 个现在主要看向另一个中文片段（交叉注意力按头平均）。',
  'mt.compare.same': '相同',
  'mt.shown.all': '下面的注意力图来自全部头的翻译（上面那一句）。',
  'mt.shown.masked':
    '下面的注意力图来自关掉头之后的翻译（保留 {kept} / {all} 个头），不是上面全部头的那一句；再按“翻译”回到全部头。',
  'mt.heads.elsewhere': '注意：你没在看的{groups}也关掉了头，翻译时一并关掉。',
  'mt.compare.different': '不同',
  'mt.heads.caveat':
    '<strong>这能说明什么，不能说明什么。</strong>在用全部头训练好的模型上关掉一些头，并不等于训练一个只有一个头的模型：' +
    '其余的头是和被关掉的头一起训练出来的。' +
    code('Michel') +
    ' 等人（2019，<span lang="en">“Are Sixteen Heads Really Better than One?”</span>）发现，' +
    '训练好的翻译模型中许多头可以剪掉而几乎不损失效果，少数头则不能。本页的<a href="#train">训练一节</a>才是在同样的数据上' +
    '从头训练单头与多头模型的地方。',
  'mt.attention.title': '这次翻译的注意力',
  'mt.attention.group': '注意力',
  'mt.attention.which': '显示',
  'mt.attention.grid': '这种注意力的每一层、每一个头',
  'mt.which.mean': '所有层所有头的平均',
  'mt.which.layer': '第 {layer} 层各头的平均',
  'mt.grid.cross':
    '交叉注意力，{layers} 层 × {heads} 个头：每行是一个英文词元（解码器在选出它的那一步的查询），每列是一个中文片段。点击一个头放大查看。',
  'mt.grid.encoder': '编码器自注意力，{layers} 层 × {heads} 个头，作用于中文片段。',
  'mt.grid.decoder': '解码器掩码自注意力，{layers} 层 × {heads} 个头：每个词元只看得到它之前的词元。',
  'mt.heatmap.cross': '每个英文词元在中文片段中看向哪里。',
  'mt.heatmap.encoder': '每个中文片段如何加权其他片段。',
  'mt.heatmap.decoder': '每个英文词元如何加权它之前的词元（带斜线的格子被掩码）。',
  'mt.du.title': '每个英文词看向哪一个“毒”？',
  'mt.du.explain':
    '这句话里的六个“毒”有三种角色（名词：毒药；动词：毒害；修饰语：有毒的）。对每个英文词元，列出含有每个“毒”的片段所得的权重。' +
    '模型读的是片段而不是单个汉字：同一片段里的两个“毒”权重相同，模型无法只看其中一个。这里展示的是这个模型在这句话上实际的表现，无论结果如何。',
  'mt.du.token': '英文词元',
  'mt.du.char': '毒{index}（{role}）',
  'mt.du.most': '最看重',
  'mt.du.none': '——（并列，或它们在同一片段中）',
  'mt.du.caption': '六个“毒”上的交叉注意力：{which}',
  'mt.du.other': '六个“毒”的标注只针对本页的句子；翻译这句话即可看到。',
};
