// 中文：“真实模型”一节（views/real-model.mjs）：载入 Hugging Face 检查点，看它每层每头的注意力。
const code = (text) => `<span translate="no">${text}</span>`;

export default {
  'real.title': '真实模型',
  'real.evidence.label': '插图与证据',
  'real.evidence':
    '<strong>上面的头是插图，这一节是证据。</strong>编码器、解码器和交叉注意力的头都是手工设计的，用来说明多头能做什么；' +
    '这里显示的是你载入的检查点在这句话上真正算出的注意力。载入<em>训练好</em>的模型（例如 ' +
    code('bert-base-chinese') +
    '），就能拿它检验上文的说法：有没有哪个头把“毒”和另一个“毒”连起来，或者看它的邻居。' +
    '得分只描述这个模型在这句话上的注意力，一句话上的高分不能证明一个头的“功能”。',
  'real.explain':
    '输入 ' +
    code('Hugging Face Hub') +
    ' 上的模型名（或点一个推荐的模型），本页就把它下载到这个浏览器里；也可以把电脑上的模型文件夹拖到下面（或者用按钮选择）。' +
    '模型需要 ' +
    code('config.json') +
    '、' +
    code('model.safetensors') +
    ' 或 ' +
    code('pytorch_model.bin') +
    '（或分片及其索引），以及 ' +
    code('tokenizer.json') +
    ' 或 ' +
    code('vocab.txt') +
    '。支持 ' +
    code('BERT') +
    '、' +
    code('RoBERTa') +
    '、' +
    code('XLM-R') +
    '、' +
    code('CamemBERT') +
    '、' +
    code('GPT-2') +
    '、' +
    code('Llama') +
    '、' +
    code('Qwen2') +
    ' 和 ' +
    code('Qwen3') +
    ' 结构，例如 ' +
    code('bert-base-chinese') +
    '、' +
    code('roberta-base') +
    '、' +
    code('gpt2') +
    '。翻译模型（MarianMT，例如 ' +
    code('Helsinki-NLP/opus-mt-zh-en') +
    '，带 ' +
    code('source.spm') +
    '、' +
    code('target.spm') +
    ' 和 ' +
    code('vocab.json') +
    '）则会翻译这句话（见下面的“真实翻译”）。每一层的每个头都画成一张小图；点一张小图，下面就放大显示那个头。',
  'real.howto.title': '怎样得到一个模型',
  'real.howto':
    '<ol><li><strong>按名称：</strong>在上面的框里输入模型在 ' +
    code('Hugging Face Hub') +
    ' 上的名称（“组织/名称”，例如 ' +
    code('google-bert/bert-base-chinese') +
    '），或者点一个推荐的模型，本页就把它下载到这个浏览器里。</li>' +
    '<li><strong>先下载成文件夹：</strong>在装有 ' +
    code('Python') +
    ' 的电脑上运行 ' +
    code('pip install huggingface_hub') +
    ' 和 ' +
    code('huggingface-cli download google-bert/bert-base-chinese --local-dir bert-base-chinese') +
    '，再把 ' +
    code('bert-base-chinese') +
    ' 文件夹拖到下面。也可以在模型的 Hub 页面打开 ' +
    code('Files and versions') +
    ' 标签，下载 ' +
    code('config.json') +
    '、' +
    code('model.safetensors') +
    '、' +
    code('tokenizer.json') +
    '（或 ' +
    code('vocab.txt') +
    '）和 ' +
    code('tokenizer_config.json') +
    '，放进同一个文件夹。</li></ol>',
  'real.hub.name': 'Hugging Face Hub 上的模型',
  'real.hub.placeholder': '组织/名称',
  'real.hub.load': '下载并载入',
  'real.hub.cancel': '取消',
  'real.hub.suggestions': '推荐的模型',
  'real.hub.settings': 'Hub 地址与访问令牌',
  'real.hub.endpoint': 'Hub 地址',
  'real.hub.token': '访问令牌（只有受限模型需要；只保存在这个标签页里，只发给 Hub）',
  'real.hub.hosts':
    '按名称载入时，本页会联系 {endpoint}：先取模型的文件列表，再下载文件（大文件来自它转去的下载服务器）。' +
    '不会发送其他任何东西。模型保存在这个浏览器里（本页的存储空间），下次访问不再下载。' +
    '本页的服务器允许联系：{allowed}；要用镜像，请在启动服务器时把镜像的地址写进 MHA_HUB_ENDPOINTS。',
  'real.hub.none': '本页的服务器不允许联系任何 Hub（MHA_HUB_ENDPOINTS 为空）：请在下面载入电脑上的模型文件夹。',
  'real.hub.badName': '“{name}”不是模型名：请按模型在 Hub 上的页面写成“组织/名称”。',
  'real.hub.size': '{size}',
  'real.hub.size.about': '约 {size}',
  'real.hub.size.unknown': '…',
  'real.hub.size.error': '无法连接',
  'real.hub.size.none': '没有引擎能读的权重',
  'real.hub.size.absent': '仓库里没有',
  'real.hub.size.noFile': '仓库里没有 {file}',
  'real.hub.sizes.from':
    '大小：载入时要下载的文件（配置、分词器、权重；GGUF 推荐项就是那一个文件），来自 {endpoint} 的文件列表；分片的权重标“约”。',
  'real.hub.sizes.when': '下载大小来自 Hub 的文件列表：只有按下按钮，本页才去请求。',
  'real.hub.sizes.ask': '显示大小',
  'real.hub.model.bertZh': '中文 BERT，按字切分（Google）',
  'real.hub.model.robertaZh': '中文 RoBERTa-wwm-ext（哈工大讯飞联合实验室）：BERT 结构，全词遮盖',
  'real.hub.model.xlmr': 'XLM-RoBERTa 基础版：100 种语言，SentencePiece 分词',
  'real.hub.model.roberta': 'RoBERTa 基础版，只学过英文（字节级 BPE）：汉字对它来说是字节',
  'real.hub.model.gpt2': 'GPT-2（1.24 亿参数的解码器），只学过英文：每个词元只看它前面的词元，汉字对它来说是字节',
  'real.hub.model.opusMt': 'opus-mt 中→英（赫尔辛基大学）：翻译模型，有编码器和解码器',
  'real.hub.model.qwen25':
    '通义千问 Qwen2.5（阿里巴巴）最小的一个：读得懂中文的解码器；它的 16 位权重在内存里仍是 16 位',
  'real.hub.model.qwen25GgufQ4':
    '通义千问 Qwen2.5-0.5B-Instruct 的 GGUF 文件，Q4_K_M：矩阵在内存里保持 4 位；它带有对话模板，下面的“逐步生成”里可以对话',
  'real.hub.model.qwen25GgufQ8':
    '通义千问 Qwen2.5-0.5B-Instruct 的 GGUF 文件，Q8_0：矩阵在内存里保持 8 位；它带有对话模板，下面的“逐步生成”里可以对话',
  'real.hub.model.qwen3': '通义千问 Qwen3 最小的一个：分组查询注意力，每个头的查询和键各自归一化',
  'real.asking': '正在向 {endpoint} 请求 {repo}……',
  'real.progress.download': '正在下载 {file}：{loaded} / {total}',
  'real.loadedHub':
    '已载入 {repo}：{type}，{layers} 层 × {heads} 头，隐藏维度 {hidden}，词表 {vocab}（{from}，用时 {ms} 毫秒）。',
  'real.loadedHub.downloaded': '下载了 {bytes}',
  'real.loadedHub.cached': '来自这个浏览器的存储，没有下载',
  'real.cancelled': '已取消。已下载的部分留在这个浏览器里，下次接着用。',
  'real.drop': '拖入模型文件夹',
  'real.dropHere': '把模型文件夹（或其中的文件）拖到这里',
  'real.pickFolder': '选择文件夹……',
  'real.pickFiles': '选择文件……',
  'real.private': '文件不会离开你的电脑：本页在浏览器里读取它们，由 WebAssembly 引擎在本地计算，什么都不上传。',
  'real.waiting': '等待引擎……',
  'real.none': '还没有载入模型。',
  'real.reading': '正在读取模型文件……',
  'real.progress': '正在读取 {file}：{loaded} / {total}',
  'real.progress.label': '载入进度',
  'real.loaded':
    '已载入：{type}，{layers} 层 × {heads} 头，隐藏维度 {hidden}，词表 {vocab}（{files} 个文件，{bytes}，用时 {ms} 毫秒）。',
  'real.forward': '前向计算 {tokens} 个词元用时 {ms} 毫秒 · 引擎：{variant}（{build}），{threads}',
  'real.error.load': '载入失败：{message}',
  'real.error.run': '计算失败：{message}',
  'real.error.detail': '引擎的原话（英文）',
  'real.loadError.noFiles': '没有收到文件：请拖入模型文件夹，或用按钮选择。',
  'real.loadError.noConfig':
    '没有 {file}：它说明模型的结构，和权重放在同一个文件夹里。请载入整个模型文件夹（见上面的“怎样得到一个模型”）。',
  'real.loadError.noModelType': '{file} 里没有 {field}：看不出这是哪一种模型，它可能不是 Hugging Face 格式的模型。',
  'real.loadError.modelType': '引擎还不能运行这种模型（{file} 的 {field} 是 {type}）；能运行的结构见上面的说明。',
  'real.loadError.config': '{file} 里有引擎不能运行的设置：是哪一项，见下面引擎的原话。',
  'real.loadError.noWeights':
    '没有引擎能读的权重：需要 {single}（或 {other}），或者它们的分片和索引文件。模型的 Hub 页面上的文件列表里有它们' +
    '（见上面的“怎样得到一个模型”）。',
  'real.loadError.badFile':
    '引擎读不了 {file}：这个文件可能不完整（下载或复制被打断）、损坏了，或者不属于这个模型。请重新下载它。',
  'real.loadError.notFound':
    '{endpoint} 上没有叫 {repo} 的模型，或者它是私有的。请照模型在 Hub 上的页面写成“组织/名称”。',
  'real.loadError.gated':
    '{repo} 是受限模型：请登录 Hub，在它的页面上接受使用条件，再把你账户的访问令牌填进“Hub 地址与访问令牌”。',
  'real.loadError.refused': 'Hub 拒绝了请求：这个访问令牌不能访问 {repo}。请换一个有权限的账户的令牌。',
  'real.loadError.unreachable':
    '联系不上 {endpoint}：请检查网络，或者在“Hub 地址与访问令牌”里换一个能联系上的镜像；也可以把下载好的模型文件夹拖到下面。',
  'real.loadError.interrupted': '{file} 的下载中断了：请再载入一次。',
  'real.loadError.storage':
    '这个浏览器给本页的存储空间放不下这个模型：请在浏览器的网站设置里清出空间，或者把下载好的模型文件夹拖到下面。',
  'real.loadError.hub': 'Hub 回答了一个错误：见下面引擎的原话。',
  'real.loadError.other': '引擎报告了一个问题：见下面它的原话。',
  'real.loadError.chatFull':
    '按对话模板写出来，这段对话已有 {length} 个词元，而这个模型最多读 {max} 个：请撤回一轮，或者开始新的对话',
  'real.sentence': '句子',
  'real.run': '计算',
  'real.tokens': ({ n }) => `${n} 个词元（模型的分词）：`,
  'real.order': '排列',
  'real.order.grid': '按层和头',
  'real.order.by': '按“{score}”从高到低',
  'real.focus': '焦点词元',
  'real.focus.all': '所有词元',
  'real.focus.token': '“{token}”（{count} 次）',
  'real.score.neighbour': '邻居',
  'real.score.same': '相同的词元',
  'real.score.far': '远处',
  'real.score.special': '特殊词元',
  'real.score.self': '自己',
  'real.score.help':
    '每个得分是焦点词元的各行权重之和的平均（0 到 1）：邻居 = 键与查询相距 1；相同的词元 = 同一词元在别处的出现' +
    '（一个把每个“毒”都一样看待的头在这一项上得分高，而这正是把它们混在一起的原因；它能不能分清它们，见下文）；' +
    '远处 = 相距 4 或更多；特殊词元 = {special}；自己 = 查询本身。',
  'real.layer': '层 {layer}',
  'real.head': '头 {head}',
  'real.layerHead': '层 {layer} · 头 {head}',
  'real.grid.label': '每层每头的注意力缩略图',
  'real.grid.caption':
    '{layers} 层 × {heads} 头，每张图的行是查询、列是键，颜色越深权重越大。点一张图放大它（方向键移动）。',
  'real.thumb.title': '层 {layer} · 头 {head}：{score} {value}',
  'real.summary': ({ score, layer, head, value, median, count, baseline, rule, twice, threshold, above }) =>
    `“${score}”得分：最高的是层 ${layer} · 头 ${head}（${value}）；${count} 个头的中位数是 ${median}。` +
    `把权重平均分给所有键的一行会得到 ${baseline}` +
    (rule === 'halfway'
      ? `；它的两倍（${twice}）比它到 1 的中点还高（得分最多是 1），所以这里的标准是这个中点 ${threshold}：` +
        `有 ${above} 个头达到。`
      : `，有 ${above} 个头至少是它的两倍（${threshold}）。`),
  'real.summary.noBaseline': ({ score }) =>
    `“${score}”得分：这句话里没有这样的键，任何头在这一项上都是 0，所以不比较。`,
  'real.selected': '所选的头',
  'real.heatmap.desc': '层 {layer} · 头 {head}：行是查询，列是键；权重是引擎算出的原值。',
  'real.selected.scores': '这个头的得分',
  'real.where': '每个“{token}”看向哪里',
  'real.where.all': '每个词元看向哪里',
  'real.where.caption': '所选头里每个焦点词元权重最高的三个键',
  'real.where.query': '查询',
  'real.where.top': ({ n }) => `第 ${n} 高的键`,
  'real.scores.caption': '所选头的得分，与把权重平均分给所有键的一行比较',
  'real.scores.score': '得分',
  'real.scores.head': '这个头',
  'real.scores.uniform': '平均分配',
  'real.scores.none': '这句话里没有这样的键',
  'real.special.none': '（这句话里没有）',
  'real.order.label': '排列和焦点',
  'real.tools.label': '所选头的工具',
  'real.hideSpecial': '隐藏特殊词元',
  'real.hideSpecial.note': ({ hidden }) =>
    `特殊词元不出现在热力图、连线和导出里；显示的权重是头自己的原值，没有重新分配，所以每行的和现在小于 1` +
    `（这一层的头平均把每行的 ${hidden} 给了被隐藏的词元）。`,
  'real.export.label': '导出所选的头',
  'real.headView.title': '第 {layer} 层的每个头（连线）',
  'real.headView.help':
    '所选头所在层的头视图：一边是查询，一边是键，每个权重一条线，越深权重越大；勾选别的头来比较。' +
    '把鼠标移到一个词元上或点它，只留下它的线。',
  'real.headView.export': '导出头视图',
  'real.neuron.title': '神经元视图：层 {layer} · 头 {head}',
  'real.neuron.help':
    '这个头里一个词元的查询向量 q 和另一个词元的键向量 k（模型自己算出的，已经加上偏置、归一化和旋转位置），' +
    '它们逐维的乘积、乘积之和 q·k 和得分 q·k/√d_k。模型返回的是权重，不是得分：这里的得分由它的 q 和 k 算出，' +
    '再用这一行的 softmax 和模型给出的权重核对。',
  'neuron.score.real': '得分 = q·k / √d_k = {dot} / √{dK} = {score}',
  'neuron.weight.real': '权重 = 模型给出的 {weight}；由 q 和 k 算出的这一行得分的 softmax：{softmax}',
  'real.article.title': '用文章的话来读',
  'real.article.numbering':
    '编号用句子自己的编号，和上面设计的头一样（用 是 0，第一个 毒 是 1，动词 毒 是 2……）；模型的特殊词元照样显示，' +
    '但不占编号；每个 毒 都标出它的角色（名词、动词、修饰语）。',
  'real.article.bytes': ({ n, total }) =>
    `${total} 个字里有 ${n} 个被切成了字节片段：这个分词器遇到没有对应词元的字，就把它的字节（一个汉字 3 个字节）` +
    '拆成一个或几个词元，所以“毒ᵃ 毒ᵇ 毒ᶜ”是同一个字的三个片段（小字母数的是片段），后面的数字仍是这个字在句子里的位置。',
  'real.article.merged': ({ n, total }) =>
    `${total} 个字里有 ${n} 个和别的字合成一个词元（比如“毒蛇”是一个词元）：一个词元内部的关系（毒3 → 蛇4）` +
    '不是两个词元之间的权重，没有哪个头能显示它，下面的得分也就不算它。',
  'real.article.unknown': ({ n, total }) => `${total} 个字里有 ${n} 个根本不在词表里：模型把它们读成“未知词元”。`,
  'real.article.foreign': ({ split, total }) =>
    `这个模型的词表是为别的语言做的：${total} 个字里有 ${split} 个被切成字节或不认识。它的头看到的是字节片段，` +
    '不是汉字，所以它们在这里怎么做，很难说明一个中文模型怎么读这句话。',
  'real.article.random': ({ even, count }) =>
    `${count} 个头里有 ${even} 个几乎把权重平均分给所有键（每一行的熵至少是平均分配时的 97%）：这看起来是一个随机的、` +
    '没训练过的模型（测试用的），它的头哪里都不特别看。这里的一切都不能证明训练过的头怎样；要证据，请加载训练过的模型。',
  'real.article.predicts': ({ count, mean, chance, p, even }) =>
    `测量结果：这个模型预测这段文字的 ${count} 个词元，平均对数概率是 ${mean}（几何平均概率 ${p}），` +
    `随机猜测是 ${chance}（1 / 词表大小 = ${even}）：它的预测明显好于随机，权重是训练过的，它的头值得一读。`,
  'real.article.chance': ({ count, mean, chance, p, even }) =>
    `测量结果：这个模型预测这段文字的 ${count} 个词元，平均对数概率是 ${mean}（几何平均概率 ${p}），` +
    `并不好于随机猜测的 ${chance}（1 / 词表大小 = ${even}）：要么它的权重是随机的（测试模型），要么这段文字不像它训练时读过的文字。` +
    '无论哪一种，它的头在这里都不能证明训练过的头怎样。',
  'real.article.unmeasured':
    '这个检查点没有输出层（只有编码器），本页无法测量它的预测是否好于随机，所以不知道它的权重是否训练过：' +
    '除非你确知它训练过，否则它的头不能证明训练过的头怎样。',
  'real.article.wordStart':
    '有的词元以“▁”开头：这是 ' +
    code('SentencePiece') +
    ' 分词器标记“一个词从这里开始”（原文这里是空格或句首）的符号，不是文字的一部分。',
  'real.article.other':
    '这段文字不是文章的句子（{sentence}），所以句子的标注（角色、依存中心、远距离联系）用不上，也不和设计的头比较。',
  'real.article.unread': '模型的词元没法和句子逐字对上（它的分词器改动了文字），所以不和设计的头比较。',
  'real.closest.caption':
    '对每个设计的头：哪些真实的头把最多的权重放在它看的地方（每个查询字的标注目标，对有目标的字取平均），并和平均分配的得分比较',
  'real.closest.designed': '设计的头',
  'real.closest.looks': '看向',
  'real.closest.best': '最接近的真实头',
  'real.closest.even': '平均分配',
  'real.closest.verdict': '结论',
  'real.closest.looks.role': '角色和字都相同的词元（毒1 ↔ 毒12，毒2 ↔ 毒13，毒3 ↔ 毒6）',
  'real.closest.looks.dependency': '它的依存中心（毒3 → 蛇4，蛇4 → 毒2……）',
  'real.closest.looks.long-distance': '它在第一个分句里的第一次出现（毒12 → 毒1，蛇7 → 蛇4……）',
  'real.closest.found': ({ reached, count, threshold }) =>
    `${count} 个头里有 ${reached} 个达到标准 ${threshold}（平均分配的两倍，或它到 1 的中点）`,
  'real.closest.none': ({ value, threshold }) => `没有哪个头这样做：最接近的得分 ${value}，低于标准 ${threshold}`,
  'real.closest.unseen': '这些词元让这个头无处可看（每个目标都在查询自己的词元里）',
  'real.closest.unseenCausal': '无处可看：这个模型只看前面的词元，而这里的每个目标都在后面，或在查询自己的词元里',
  'real.roleShare.lead': '哪个头能分清六个“毒”？',
  'real.roleShare.tells': ({ share, blind }) =>
    `它的“毒”放在其他“毒”上的权重里，有 ${share} 给了角色相同的那个“毒”，而不看角色的头只给 ${blind}：` +
    '它分清了它们（在看其他“毒”不少于平均分配的头里，它最高）。',
  'real.roleShare.blurs': ({ share, blind }) =>
    `做得最好，但它的“毒”放在其他“毒”上的权重里只有 ${share} 给了角色相同的“毒”，不看角色的头是 ${blind}：` +
    '这里没有哪个头按角色分清它们（不到不看角色时的两倍）；把每个“毒”都一样地看，正是文章里把它们混在一起的原因。',
  'real.roleShare.leadShared': ({ alone, shared }) =>
    `哪个头能分清这些“毒”？这里六个“毒”中只有 ${alone} 个是单独的词元；另外 ${shared} 个和旁边的字合成一个词元` +
    '（比如“毒蛇”“毒死”），下面算作那个“毒”，但模型是把这两个字当作一个词元来读的。',
  'real.roleShare.none': '没有哪个头看其他“毒”的权重比平均分配还多。',
  'real.articleScores.caption': '所选的头和设计的头比较：它在每个设计的头看的地方放了多少权重',
  'real.articleScores.roleShare': '它的“毒”→“毒”权重里给角色相同的“毒”的比例',
  'pred.next.title': '下一个词',
  'pred.next.help':
    '模型根据自己算出的分数预测这段文字之后的词元：最后一个位置的 softmax(分数 / 温度)。温度越高，概率越分散；按钮会把最可能的词元接在后面，再运行一次模型，下面的各个头就显示这个新词元对它之前所有词元的注意力。',
  'pred.next.after': '在“{token}”之后：',
  'pred.next.append': '接上最可能的词元',
  'pred.next.refused.invisible':
    '没有接上：最可能的词元 {token} 是一个看不见的字符（这里写出它的编码）。接上它，文本框看起来不变，模型却会读到它。',
  'pred.next.refused.partial':
    '没有接上：最可能的词元 {token} 只是一个字符的一部分字节，单独解码不成字符（会显示为 �）。',
  'pred.next.refused.empty': '没有接上：最可能的词元 {token} 解码后不增加任何文字。',
  'pred.caveat':
    '注意：本页测得这个检查点对这段文字的预测并不好于随机猜测，或者无法测量（见上面的说明）。下面的概率只反映它的权重，' +
    '不是关于语言的发现，不管看起来多有把握。',
  'pred.mask.title': '填空',
  'pred.mask.help':
    '训练过填空任务的 BERT 会从左右两边预测文字中的每个 [MASK]。在句子里放一个 [MASK]（用毒[MASK]毒蛇……），或者用按钮遮住一个“毒”。',
  'pred.mask.at': '[MASK] 处（位置 {position}）：',
  'pred.mask.du': '遮住第二个“毒”',
  'pred.mask.none': '文字里没有 [MASK]。',
  'pred.temperature': '温度',
  // 逐步生成（views/next-token-steps.mjs）。
  'next.title': '逐步生成',
  'next.help':
    '一次生成一个词元：提示先经过每一层一次，它的键和值留在模型的缓存里（键值缓存）；之后每一步取最可能的下一个词元' +
    '（贪心选择，所以在任何温度下都一样），每层只计算它自己这一行。网格显示当前这一步的新词元看向哪里：每个头一条，' +
    '是它对之前每个位置和它自己的权重。',
  'next.prompt': '提示',
  'next.prompt.sentence': '整句',
  'next.prompt.clause': '第一个分句（用毒毒毒蛇）',
  'next.prompt.text': '文本框里的文字',
  'next.step': '下一步',
  'next.count': '一次几步',
  'next.run': '生成',
  'next.reset': '回到提示',
  'next.text.label': '目前的文字：提示，然后是生成的词元',
  'next.idle': '还没有生成：按“下一步”，模型读入提示，接上最可能的词元。',
  'next.busy': '正在计算第 {step} 步……',
  'next.done': ({ step, before, token, probability, temperature, ms }) =>
    `第 ${step} 步：在“${before}”之后，模型选了“${token}”，即最可能的词元（温度 ${temperature} 下为 ` +
    `${probability}）；用时 ${ms} 毫秒${step === 1 ? '，含提示的那一遍' : ''}。`,
  'next.end.eos':
    '最可能的下一个词元是“{token}”，即文字的结尾（检查点的生成配置所定的结束词元）：生成到此为止，和 Hugging Face 的生成一样。',
  'next.end.length': '文字已达 {max} 个词元，即这个模型最多读的数目：生成到此为止，和 Hugging Face 在最大长度处一样。',
  'next.failed': '这一步出错了（原因见下）。',
  'next.error': '这一步出错了：{message}',
  'next.grid.label': '新词元的注意力，层 × 头',
  'next.grid.caption':
    '新词元“{token}”（位置 {position}）在 {layers} 层 × {heads} 头里各看向哪里：每一条是那个头对到它为止的 {keys} ' +
    '个位置的权重，从左到右，颜色越深权重越大。指针移到一条上可以放大看，点击可以保留（方向键移动）。',
  'next.thumb': '层 {layer} · 头 {head}：权重最大的是 {token}（{weight}）',
  'next.heatmap.desc': '层 {layer} · 头 {head}：“{token}”对它之前每个位置和它自己的权重；权重是引擎算出的原值。',
  'next.where': '层 {layer} · 头 {head}：“{token}”最看重 {keys}。',
  'next.where.key': '{token}（{weight}）',
  'next.numbers': '每个头的权重数值',
  'next.table.caption': '{token} 在每个头里对每个位置的权重',
  'next.after': '在“{token}”之后最可能的词元（下一步取第一个）：',
  'next.chat': ({ step, before, token, probability, temperature, ms }) =>
    `回复的第 ${step} 个词元：在“${before}”之后，模型选了“${token}”，即最可能的词元（温度 ${temperature} 下为 ` +
    `${probability}）；送回模型用时 ${ms} 毫秒。`,
  // 对话框（views/next-token-chat.mjs）。
  'chat.title': '对话',
  'chat.help':
    '这个检查点带有对话模板：程序包的对话接口用它写出对话，模型一次回复一个词元，每次都取最可能的那个。' +
    '每一轮只送入新的词元，之前的留在键值缓存里。点回复下面的某个词元，可以在下面的网格里看它的注意力。',
  'chat.caveat': '注意：测得这个检查点的预测并不比随机好（见上面的说明）：它的回复来自权重，不是学到的语言。',
  'chat.log.label': '对话',
  'chat.role.user': '你',
  'chat.role.assistant': '模型',
  'chat.role.system': '系统',
  'chat.message': '你的消息',
  'chat.send': '发送',
  'chat.stop': '停止',
  'chat.max': '最多几个词元',
  'chat.undo': '撤回上一轮',
  'chat.new': '新的对话',
  'chat.idle': '还没有对话：框里是那句话，按“发送”。',
  'chat.busy': '正在回复：第 {step} 个词元……',
  'chat.done': ({ tokens, ms, prefilled, reused, fewer }) =>
    `回复了 ${tokens} 个词元（${ms} 毫秒）。这一轮送入 ${prefilled} 个新词元，缓存里已有 ${reused} 个。` +
    `${fewer ? fewer : ''}`,
  'chat.stopped': ({ tokens, ms, prefilled, reused }) =>
    `在 ${tokens} 个词元后停下（${ms} 毫秒）：已有的回复加入对话。这一轮送入 ${prefilled} 个新词元，缓存里已有 ${reused} 个。`,
  'chat.fewer': '模型的位置只够再放 {room} 个词元。',
  'chat.failed': '回复出错了（原因见下）；对话保持原样。',
  'chat.error': '回复出错了：{message}',
  'chat.undone': '上一轮已撤回，它的消息回到了框里。',
  'chat.tokens': '回复的词元：点一个，看它看向哪里（送回模型后它的注意力）。',
  'chat.tokens.label': '回复的词元',
  'chat.tokens.unfed': '{token}：最后一个词元，没有送回模型，所以没有它自己的注意力',
};
