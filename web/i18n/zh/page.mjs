// 中文：页面的标记文字（index.html 引用这些键）。花括号里的数字来自定义它们的模块（app.mjs pageParams）。
const en = (text) => `<span lang="en">${text}</span>`;
const code = (text) => `<span translate="no">${text}</span>`;
// 文章的三句话，用本页导语的说法：导语和计算流程的三项检验（model/pipeline-checks.mjs）都引用它们。
const CLAIMS = {
  whole: '多个头在不同的表示子空间里看<em>整个</em>句子',
  own: `每个头有自己的 ${code('wQ、wK、wV')}`,
  concat: `拼接（Concat）再经 ${code('wO')} 输出投影，保留所有头的视角`,
};

export default {
  'page.title': 'mha-wasm — 多头注意力看“用毒毒毒蛇，毒蛇会不会被毒毒死”，在你的浏览器里计算',
  'page.description':
    '一句有六个“毒”的中文句子，每个注意力头的权重都由编译成 WebAssembly SIMD 与多线程的 C++ 引擎在浏览器中实时算出。',
  skip: '跳到注意力头',
  h1: '多头注意力看“用毒毒毒蛇，毒蛇会不会被毒毒死”',
  'lang.legend': '语言',
  lede:
    '六个一模一样的“毒”扮演三种角色：毒药（名词）、下毒（动词）、有毒的（修饰语）。一个注意力头只有一种看句子的方式；' +
    `${CLAIMS.whole}，${CLAIMS.own}，${CLAIMS.concat}。` +
    '本页的每个数字都由 mha-wasm 引擎（C++ 编译为 WebAssembly SIMD 与多线程）在你的浏览器里算出。',
  'claim.whole': CLAIMS.whole,
  'claim.own': CLAIMS.own,
  'claim.concat': CLAIMS.concat,
  terms:
    '本页依次展示：<a href="?mode=encoder#heads" data-mode="encoder">编码器自注意力</a>、' +
    '<a href="?mode=decoder#heads" data-mode="decoder">掩码自注意力</a>、' +
    '<a href="?mode=cross#heads" data-mode="cross">编码器—解码器注意力</a>，' +
    '<a href="#formula">缩放点积注意力</a>的公式，各头输出的<a href="?stage=concat#pipeline" data-stage="concat">拼接</a>与' +
    `<a href="?stage=wo#pipeline" data-stage="wo">输出投影</a> ${code('W<sub>O</sub>')}，` +
    '<a href="#neuron">一对查询—键</a>的逐数计算，以及对一句话的检验：' +
    '<a href="#train">“单头注意力不是不行，而是不够好”</a>。',
  'sentence.roleKey':
    '每个字下面是它的位置和角色：名 名词 · 动 动词 · 定 修饰语（定语）· 介 介词（用、被）· 能 能愿动词（会）· 否 否定（不）· 补 补语（死：毒死）。',
  'toolbar.label': '计算什么',
  'modes.legend': '注意力',
  'mode.encoder': '编码器',
  'mode.encoder.note': '中文，自注意力',
  'mode.decoder': '解码器',
  'mode.decoder.note': '英文，掩码',
  'mode.cross': '交叉',
  'mode.cross.note': '中译英：英文看中文',
  'mode.free': '自由',
  'mode.free.note': '你的句子',
  'sharpness.label': '锐度',
  'sharpness.help': '放大每个设计得分；0 让每行都变成均匀分布',
  'free.label': '自由模式',
  'free.sentence': '句子',
  'free.heads': '头数',
  'free.seed': '种子',
  'free.causal': '因果掩码',
  'free.compute': '计算',
  'heads.title': '注意力头',
  'caveat.label': '这些头能说明什么，不能说明什么',
  'caveat.short':
    '<strong>这些头是示意，不是证据。</strong>它们是手工设计的，找到的东西事先写在 X 的人工标注列（✎）里。' +
    '“一个头不够”的证据在<a href="#train">亲手训练</a>（从零学出来的头，一个头对两个头，各 {defaultSeeds} 个种子；' +
    '<span class="caveat-own">按“训练”即可在本页亲自测量</span>）；训练好的模型真正算出什么，见' +
    '<a href="#real-model">真实模型显示了什么</a>。',
  'caveat.more': '为什么这么说，以及 X 的各列',
  'caveat.free':
    '<strong>随机的头，不是训练好的模型。</strong>未经训练（随机初始化）的注意力没有学到该偏爱什么，' +
    '远比这些图接近均匀（均匀：每个权重都是平均份额）。' +
    `本页把随机的 ${code('wQ')} 和 ${code('wK')} 放大（“锐化”），每个头才会偏爱某些键、显出图案：这是显示上的选择，` +
    '就像设计模式里的锐度滑块，不是模型做的事。',
  'caveat.encoder':
    '<strong>是搭出来的，不是发现的。</strong>这些头是手工设计的，它们“找到”的东西事先写在输入里：除了每个字本身和它的位置，' +
    'X 还带有人工标注的列——所属的词、<em>角色</em>（名词、动词、修饰语……）、<em>依存中心词</em>的位置和<em>远距离链</em>的分组' +
    '（下面标 ✎ 的块）。角色头被直接告知毒2 是动词，它只需找出另一个动词。<strong>单头</strong>按构造就是三个头之和，' +
    '所以它丢掉的选择是构造的结果：这说明一个 softmax 必须取舍，但不是证据。',
  'caveat.decoder':
    `<strong>同样是设计的。</strong>英文的 X 带有人工写的词元（${en('poisoned → poison')}）和位置（下面的块，✎ 为人工标注）；` +
    '每个头比较其中两项。',
  'caveat.cross':
    `<strong>同样是设计的。</strong>英文的 X 带有人工写的词表（每个英文词可以译成哪些汉字，下面标 ✎）；语序头用到的分句边界写在它的 ${code('wQ')} 和 ${code('wK')} 里。` +
    `对齐头的最高键与逐词对齐标注核对：“${en('by venom')}”是毒12，“${en('with venom')}”是毒1。`,
  'caveat.real':
    '在“真实模型”一节载入一个训练好的检查点，就能看到它在这句话上真正算出的注意力，它的输入里没有任何人工标注的列。',
  'heads.explain.encoder':
    '<a href="#formula">编码器自注意力</a>：行是查询（发出注意的字），列是键（它可以看的字）；格子越深权重越大，每行之和为 1。' +
    '<strong>角色头</strong>、<strong>依存头</strong>和<strong>远距离头</strong>是同一次调用里的三个头。圆圈标出标注答案：' +
    '实线表示该行的最高键命中，虚线表示未命中（<strong>单头</strong>上是三个头的目标，用各自的颜色）；无可寻找的行是均匀的。' +
    '点一个格子，把这对查询—键送到<a href="#neuron">神经元视图</a>。',
  'heads.explain.decoder':
    `解码器的掩码自注意力，作用在英文译文上：每个词只能看见自己和前面的词，所以对角线以上的格子都被掩码（斜线），` +
    `在引擎结果中恰好为 0。<strong>前词头</strong>回看前一个词；<strong>同词元头</strong>找到重复词的上一次出现` +
    `（${en('venom 15 → venom 9')}，${en('poison 12 → poisoned 5')}）。`,
  'heads.explain.cross':
    '编码器—解码器注意力（交叉注意力）：查询来自英文解码器，键和值来自中文编码器，所以行是英文、列是中文。' +
    '<strong>语序头</strong>看每个英文词所属的中文分句：两种语言的分句顺序相反（条件分句在中文里在前）。' +
    `<strong>对齐头</strong>查出每个英文词所译的汉字，并用分句在两个相同的字之间作出选择：“${en('by venom')}”→ 毒12，` +
    `“${en('with venom')}”→ 毒1。没有对应词的英文词（${en('a, to, by, if, we, ?')}）平均分布在自己的分句上。`,
  'heads.explain.free':
    `你的句子经过随机初始化、未经训练的头：图案展示注意力怎么算。模型宽度 ${code('d_model')} 保持你设定的值；` +
    `头越多，每个头越窄，${code('d_k = d_v = d_model / h')}，与 Transformer 一样。单头是一个全宽的头，得分是所有头得分之和。` +
    '这里没有标注，也就没有标准答案：圆圈只画在单头上，标的是各个头自己的最高键。',
  'overlay.truth': '标注圆圈',
  'overlay.free': '圆圈：各头的最高键，画在单头上',
  'bar.currentHead': '当前头',
  'export.current': '导出当前头',
  'export.label': '导出：',
  'bar.copyLink': '复制本视图的链接',
  'compare.title': '一个头代替多个头',
  'compare.explain':
    '单头的得分恰好是各头得分之和，但每行只有一个 softmax。几种关系一致时它很确定；指向不同的键时，它只能分散权重，' +
    '或者只保留一个。这由它的构造决定，所以只是说明，而不是证明（证明是<a href="#train">训练部分</a>的事）。',
  'headView.title': '头视图',
  'headView.explain':
    '同样的权重画成连线，如 bertviz：左边（或上面）是查询，右边（或下面）是它们看的键；线的不透明度是权重，颜色代表头。把指针移到一个字上，' +
    '或聚焦图形后用方向键，只保留它的连线；点击或按 Enter 锁定，再按一次解锁。',
  'pipeline.title': '计算流程',
  'pipeline.explain':
    '一次调用算了什么，用的是这次运行的形状和数字。点公式里的一项或一个阶段查看它的矩阵；逐头的阶段显示这里选的头。',
  'pipeline.head': '头',
  'pipeline.stages': '阶段；按下的那个显示在下方（方向键移动）',
  'pipeline.checks': '实时检验',
  'readout.matrix': '把指针移到格子上，或聚焦矩阵后用方向键。',
  'neuron.title': '神经元视图：一对查询—键',
  'neuron.explain':
    '一个权重是怎么来的，如 bertviz 的神经元视图：一个头里查询的向量 q 和键的向量 k（引擎 Q、K 的行），' +
    `它们的逐元素乘积 q⊙k、乘积之和（点积 q·k）、得分 ${code('q·k/√d_k')}，以及把整行得分变成权重的 softmax。` +
    'q、k 和权重是引擎的数字；求和由它们逐项写出。',
  'neuron.head': '头',
  'neuron.query': '查询',
  'neuron.key': '键',
  'about.title': '设计的头是怎样搭出来的',
  'about.x':
    `X 每个字一行，宽 ${code('d_model')} = {xWidth} 列：几组显式特征，每组都是独热编码——字（六个“毒”共用一列）、位置（0–14）、所属的词、角色、` +
    '依存中心词的位置，以及远距离链的分组（第二次提及：它回指的组；第一次提及：它开启的组）——其余的列为 0（“未用”）。' +
    `各头平分 ${code('d_model')}，与 Transformer 一样：H 个头各得 ${code('d_k = d_v = d_model / H')} 列，所以 ${code('d_model')} ` +
    '要给每个头留够它读的特征（角色头读三组）。头的 Q 的一列读查询字的一个特征，K 的同一列读键字的一个特征，' +
    '所以 Q·K 数的是两者的共同点：',
  'about.role': '<strong>角色头</strong>：同角色 + 同字 − 2·同位置，所以同角色的另一个“毒”得 2 分，自己得 0 分；',
  'about.dependency': '<strong>依存头</strong>：查询的中心词位置对键的位置：恰好在中心词上得 1 分；',
  'about.longDistance': '<strong>远距离头</strong>：第二次提及回指的组对键开启的组：在第一次提及上得 1 分；',
  'about.single': `<strong>单头</strong>：三个头的 Q 和 K 并排（${code('wQ')} × √3，因为引擎除以 √96 而不是 √32），所以得分是三者之和；`,
  'about.previousWord':
    '<strong>前词头</strong>（解码器，英文）：Q 的第 p 列读“我在位置 p + 1”，K 的第 p 列读“我在位置 p”，所以键恰好是查询的前一个词时得 1 分；' +
    '第一个词没有前一个词，因果掩码只给它留下它自己；',
  'about.sameLemma':
    '<strong>同词元头</strong>：同词元 − 同位置：更早的同词元的词得 1 分，自己得 0 分，后面的词被因果掩码遮住；第一次出现的词平均分给到它为止的词；',
  'about.cross':
    '<strong>对齐头</strong>（交叉）：英文词的词表条目对键的位置，同一分句再加 ½；<strong>语序头</strong>：英文位置所在的分句对中文位置所在的分句。',
  'about.code':
    `最后 ${code('wQ')} 乘以 锐度·√d_k，所以引擎的得分是锐度乘以这些计数。无可寻找的行处处得 0 分，结果是均匀的。代码及每一块的注释：` +
    '<a href="model/designed-heads.mjs">model/designed-heads.mjs</a>、<a href="model/cross-heads.mjs">model/cross-heads.mjs</a>、' +
    '<a href="model/features.mjs">model/features.mjs</a>，标注在 <a href="sentence.mjs">sentence.mjs</a>。',
  'train.title': '亲手训练',
  'train.explain':
    '上面的头是手工设计的。这里，引擎在你的浏览器里从零训练注意力头，检验一个说法：单头注意力不是不行，而是不够好。' +
    '任务：给句子里每个“毒”标注名词、动词或修饰语，而它的角色取决于左右<em>两个</em>邻居。一个极小的 Transformer 标注器' +
    `（嵌入、注意力、softmax；${code('d_model')} {trainWidth}）用总宽度相同的 1、2 或 4 个头学习它（一个头宽 {trainWidth}，` +
    '两个头各宽 {trainWidth2}，四个头各宽 {trainWidth4}），每种设置跑多个种子；所有运行看到同样的数据，种子改变的是初始权重和批次顺序。',
  'train.grammar': '语法',
  'train.grammar.explain':
    '句子由一个小语法生成，用的是例句里的字（外加 狗 人 要 了），按类别分组；一个“毒”的角色就是它左右两个邻居在这张表里指向的格子。' +
    '其余的字都标为<em>其他</em>；准确率只统计“毒”。',
  'train.train': '训练',
  'train.controls': '训练运行',
  'train.seeds': '每种设置的种子数',
  'train.steps': '步数',
  'train.four': '也训练 4 个头',
  'train.mlp': '加 MLP',
  'train.mlp.help': '每种设置再训练一个在注意力之后加逐词 MLP（{mlpHidden} 个隐藏单元）的版本',
  'train.start': '训练',
  'train.stop': '停止',
  'train.status.waiting': '等待引擎……',
  'train.pilot.label': '对照：PyTorch 预实验',
  'train.pilot':
    `<strong>对照，不是在本页算的：</strong>本项目用 PyTorch 做的同一任务的预实验，用它自己的代码和它自己从语法里抽出的句子：` +
    `{pilotSeeds} 个种子，{pilotSteps} 步 × {pilotBatch} 句，${code('d_model')} {pilotWidth}，不加 MLP。` +
    '留出集“毒”的准确率（各种子的平均 ± 标准差）：一个头 {pilotOne}，两个头 {pilotTwo}；例句的六个“毒”全对：' +
    '一头 {pilotSeeds} 次中 {pilotAllOne} 次，两头 {pilotSeeds} 次中 {pilotAllTwo} 次；单个头把 softmax 分给左邻' +
    '（≈ {pilotLeft}）和右邻（≈ {pilotRight}），两个头则一个看左、一个看右。加 MLP：{pilotMlpOne} 和 {pilotMlpTwo}。' +
    '它的种子不是本页的种子，单次运行对不上；上面的证据是本页自己的。',
  'evidence.title': '证据：逐个种子',
  'evidence.explain':
    '默认的实验给每种设置训练 {defaultSeeds} 个种子，每次 {defaultSteps} 步。同一个种子给 1 个头和 2 个头完全相同的初始参数' +
    '和相同的批次顺序，只有注意力怎样切分不同，所以按种子配对比较。点图、中位数和关于它们的每一句话都由本页这次运行的数字写出；' +
    `同样的代码在 ${code('Node')} 里、在同一个引擎版本上逐位算出同样的数字（测试会比较它们）。`,
  'collapse.title': '头坍缩：一个种子怎样失去一个头',
  'collapse.explain':
    '<strong>头坍缩</strong>：几个头本可以分工，其中一个却没派上用场——它和另一个头看同一处，或者只看“毒”自己，' +
    '而这带不来任何关于邻居的信息（残差连接本来就把“毒”自己送到了输出）。为什么一个种子会失去一个头：同一层的头从同一种随机权重出发，' +
    '由同一个损失推动，没有什么强迫它们分工；两个头可能一起被拉向同一个最有用的线索，一个占住了它，另一个停在帮助较小的地方。' +
    'softmax 一旦几乎把全部权重放在一个键上，它的梯度就很小（每个权重的导数都带着 p(1 − p) 这个因子），这个头就停在那里。' +
    '这是训练多头注意力时已知的现象：训练好的模型里常有去掉后几乎不损失的头' +
    '（<span lang="en">Michel et al., 2019; Voita et al., 2019</span>），注意力的熵坍缩到少数几个键上与训练不稳定相伴' +
    '（<span lang="en">Zhai et al., 2023</span>）。坍缩的运行照样保留：它们计入中位数和逐种子的比较。',
  'bridge.title': '从文章的头到学出来的头',
  'bridge.explain':
    '设计的头各读一种关系：<strong>角色头</strong>找同角色的另一个“毒”，<strong>依存头</strong>找一个字所依附的中心词，' +
    '<strong>远距离头</strong>让第二次提及回指第一次。训练任务只需要其中局部的一种：一个“毒”的角色由它的<em>左邻和右邻</em>决定' +
    '（上面的规则表）。在例句里，这些邻居多半就是依存关系：六个“毒”的 {duNeighbours} 个邻居中，有 {duLinked} 个是这个“毒”的中心词' +
    '或依附于它的字。任务既不需要远距离关系，也不需要角色头的关系（这里角色是要预测的输出，而不是标注好的输入）。' +
    '设计的头读 X 里人工标注的列；学出来的头只有字和位置可用。',
  'bridge.designedLabel': '设计的（引擎在锐度 {sharpness} 下算出）',
  'bridge.learnedLabel': '学到的（2 个头的中位数种子）',
  'train.legend': '设置',
  'train.chartsHelp': '细线：每个种子一条（超过 20 条时画得很淡）；粗线：各种子的平均。表格列出所有数字。',
  'train.chartsHelp.mlp':
    '细线：每个种子一条（超过 20 条时画得很淡）；粗线：各种子的平均；虚线：加 MLP。表格列出所有数字。',
  'train.showed': '运行结果说明了什么',
  'train.text.waiting': '按“训练”：运行结束后，这段文字会根据本页自己的运行写出。',
  'train.everyRun': '每一次运行',
  'train.learned': '学到的头',
  'train.learned.explain':
    '某次运行的头作用在例句上，用与设计的头相同的视图。圆圈标出每个“毒”的两个邻居：该行的最高键是这个邻居时为实线。',
  'train.learned.label': '学到的头',
  'train.setting': '设置',
  'train.seed': '种子',
  footer: 'mha-wasm 演示页。它加载的一切都来自本服务器，离线也能用。',
};
