package tokenizer

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
)

// The CJK class of the benchmarks is chat-API JSON whose messages are
// Chinese, Japanese and Korean prose made up from a lexicon of a thousand
// words and a few hundred rarer characters, with a fixed seed: varied text,
// as real CJK traffic is. Ten phrases repeated (what the class used to be)
// make 55 distinct pieces in 6,000, which the caches of the encoder serve
// almost entirely; real CJK makes thousands, of thousands of distinct
// characters. This text makes about as many per byte as the CJK lines of
// the development corpus, whose speeds it approaches; those lines are not
// in the module.

// Chinese words, by part of speech.
var (
	zhNouns = strings.Fields(`人工智能 机器学习 深度学习 神经网络 数据 模型 算法 系统 平台 服务器 数据库 网络 软件 硬件 程序 代码 函数 变量 接口 框架
		用户 客户 公司 企业 团队 员工 经理 工程师 设计师 学生 老师 医生 病人 家长 孩子 朋友 邻居 游客 读者 作者 记者 专家 研究人员 志愿者 消费者
		城市 乡村 国家 地区 社会 政府 市场 经济 文化 历史 教育 科技 环境 气候 能源 交通 医疗 健康 安全 法律 政策 制度 规则 标准 质量
		问题 方法 方案 计划 目标 任务 项目 过程 结果 原因 影响 作用 意义 价值 风险 挑战 机会 优势 缺点 特点 功能 性能 效率 成本 价格
		时间 空间 速度 距离 温度 天气 季节 春天 夏天 秋天 冬天 早晨 晚上 周末 假期 节日 生日 婚礼 会议 活动 比赛 旅行 故事 电影 音乐
		书籍 文章 报告 论文 小说 诗歌 新闻 杂志 图片 视频 声音 颜色 味道 食物 水果 蔬菜 米饭 面条 饺子 茶叶 咖啡 牛奶 鸡蛋 蛋糕 火锅
		房子 房间 厨房 客厅 花园 公园 学校 医院 银行 商店 超市 餐厅 酒店 机场 车站 地铁 公交车 汽车 自行车 飞机 火车 轮船 道路 桥梁
		山脉 河流 湖泊 海洋 森林 草原 沙漠 岛屿 天空 太阳 月亮 星星 地球 宇宙 动物 植物 花朵 树木 猫咪 小狗 鸟类 鱼类 熊猫 老虎 大象
		身体 心理 情绪 压力 睡眠 运动 饮食 营养 疾病 药物 治疗 预防 症状 疫苗 手术 检查 医院 护士 呼吸 心脏 大脑 皮肤 骨骼 血液 肌肉
		语言 词语 句子 段落 语法 翻译 发音 汉字 拼音 英语 日语 韩语 法语 文字 标点 字典 课程 考试 成绩 作业 知识 技能 经验 能力 习惯
		产品 品牌 广告 销售 订单 库存 物流 供应链 合同 预算 利润 收入 支出 投资 股票 基金 贷款 利率 税收 工资 保险 账户 发票 报价
		信息 隐私 密码 账号 权限 日志 备份 版本 更新 漏洞 攻击 防火墙 加密 协议 端口 浏览器 网站 页面 按钮 菜单 窗口 文件 目录 格式
		关系 感情 友谊 爱情 家庭 父母 兄弟 姐妹 婚姻 社区 组织 机构 部门 岗位 职业 工作 事业 梦想 理想 信念 勇气 智慧 耐心 责任 自由
		哲学 宗教 艺术 建筑 绘画 雕塑 舞蹈 戏剧 摄影 设计 时尚 传统 习俗 礼仪 节奏 旋律 乐器 钢琴 吉他 小提琴 交响乐 博物馆 图书馆 展览`)
	zhVerbs = strings.Fields(`是 有 做 用 说 看 听 写 读 想 找 买 卖 吃 喝 走 跑 学习 工作 研究 分析 讨论 解释 说明 描述 介绍 总结 比较 评估 判断 决定
		选择 考虑 认为 希望 需要 提供 提高 降低 增加 减少 改善 改进 优化 调整 修改 删除 添加 保存 打开 关闭 启动 停止 运行 测试 部署
		发布 开发 设计 实现 完成 处理 管理 控制 监控 保护 支持 帮助 建议 推荐 邀请 参加 组织 安排 准备 计划 实施 执行 推动 促进
		影响 改变 创造 发现 发明 探索 理解 掌握 记住 忘记 相信 怀疑 担心 害怕 喜欢 讨厌 享受 欣赏 感谢 道歉 原谅 鼓励 批评 表扬
		保持 坚持 放弃 开始 继续 结束 等待 到达 离开 回来 出发 访问 联系 沟通 交流 合作 竞争 谈判 签订 付款 购买 租用 预订 取消
		生产 制造 运输 储存 检测 收集 整理 分类 统计 计算 预测 模拟 训练 识别 生成 翻译 转换 压缩 解压 下载 上传 安装 配置 登录`)
	zhAdjs = strings.Fields(`重要 主要 简单 复杂 容易 困难 快速 缓慢 高效 稳定 安全 可靠 灵活 方便 实用 有效 明显 清楚 准确 详细 具体 完整 丰富 独特
		新 旧 大 小 高 低 长 短 多 少 好 坏 美丽 漂亮 可爱 安静 热闹 干净 舒适 温暖 寒冷 炎热 凉爽 新鲜 健康 年轻 古老 现代 传统
		积极 消极 乐观 悲观 认真 仔细 勇敢 聪明 友好 热情 耐心 诚实 谦虚 严格 公平 合理 必要 普遍 特殊 基本 核心 关键 全面 深入
		国际 全球 本地 公共 私人 免费 昂贵 便宜 巨大 微小 广泛 有限 无限 常见 罕见 正常 异常 正式 临时 长期 短期 潜在 实际 理论`)
	zhAdverbs = strings.Fields(`已经 正在 将要 马上 立刻 经常 总是 通常 偶尔 从来 一直 终于 仍然 还是 也 都 就 才 又 再 很 非常 特别 十分 比较 更加 最
		尤其 大约 几乎 完全 基本上 确实 的确 当然 可能 也许 一定 必须 应该 可以 能够 不 没有 别 稍微 逐渐 渐渐 同时 一起 分别 主动`)
	zhLinks = strings.Fields(`但是 因为 所以 而且 然而 因此 此外 另外 首先 其次 然后 最后 总之 例如 比如 如果 虽然 即使 只要 只有 无论 不仅 而是 同时
		换句话说 一方面 另一方面 总的来说 值得注意的是 需要指出的是 除此之外 与此同时 相比之下 由此可见`)
	zhFunction = strings.Fields(`的 了 在 和 与 对 把 被 从 到 为 向 跟 给 比 以及 或者 还有 关于 对于 通过 根据 按照 由于 为了 随着 之间 之后 之前 中 上 下 里`)
	zhMeasures = strings.Fields(`个 种 些 位 件 条 本 张 次 项 家 座 只 台 篇 份 段 步 点 年 天 小时 分钟 公里 元 倍 层 批 套 组`)
	zhNames    = strings.Fields(`北京 上海 广州 深圳 杭州 成都 重庆 武汉 西安 南京 苏州 天津 长沙 厦门 青岛 昆明 哈尔滨 乌鲁木齐 拉萨 桂林 丽江 敦煌
		长城 故宫 西湖 黄河 长江 泰山 黄山 峨眉山 九寨沟 张家界 兵马俑 布达拉宫 莫高窟 孔子 李白 杜甫 苏轼 鲁迅 曹雪芹 诸葛亮 秦始皇
		泰姬陵 埃菲尔铁塔 金字塔 亚马逊 撒哈拉 喜马拉雅 维也纳 巴塞罗那 伊斯坦布尔 莫斯科 开罗 悉尼 温哥华 墨西哥 阿根廷 冰岛 挪威`)
	// zhRare are characters of lower frequency, each used as a word of
	// one or two characters: real text has hundreds of them.
	zhRare = []rune(strings.Join(strings.Fields(`饕餮魑魅魍魉麒麟貔貅凤凰鸳鸯翡翠琥珀玛瑙珊瑚琉璃璀璨斑斓旖旎缱绻缠绵憧憬踌躇徘徊彷徨蹒跚蜿蜒崎岖嶙峋巍峨峥嵘磅礴澎湃汹涌潺潺淙淙
		涟漪氤氲缥缈朦胧葳蕤馥郁芬芳馨香蔷薇芍药牡丹茉莉芙蓉菡萏蒹葭杜鹃荼蘼棠棣梧桐枇杷橄榄柠檬榴莲荔枝龙眼樱桃葡萄菠萝蜜柚橘橙
		燕鹊鹭鹤鸥鹰隼雕鹦鹉孔雀鸵鸟企鹅蝴蝶蜻蜓蟋蟀螳螂蚂蚁蜘蛛蝙蝠鲸鲨鳄蜥蜴蟒蛇狐狸豺狼麋鹿羚羊骆驼斑马犀牛河马袋鼠考拉狮豹
		舟楫桨舵帆缆锚礁滩屿岬湾泊渚汀洲堤坝闸渠沟壑涧溪泉瀑潭沼泽嶂峦岭峰巅麓坡崖谷穴窟砾砂沙尘埃雾霭霞霓虹雷霆闪电霜雪冰雹
		琴瑟笙箫笛鼓钟磬铙钹筝琵琶弦管谱韵律诗词曲赋骈偶联楹匾额碑帖篆隶楷行草墨砚笔纸卷轴册页裱褙拓印镌刻雕琢锤炼淬砺
		馒头包子烧饼油条粽汤圆馄饨粥羹炖煲焖烩炒煎炸烤蒸煮卤腌熏酱醋糖盐椒姜蒜葱韭芹菠菜萝卜茄瓜豆腐菇笋藕莲芋薯粱黍稷麦稻`), ""))
)

// Japanese and Korean words, with their particles and endings.
var (
	jaWords = strings.Fields(`私 彼 彼女 先生 学生 会社 社員 部長 お客様 友達 家族 子供 東京 大阪 京都 北海道 沖縄 日本 世界 時間 今日 明日 昨日 週末 天気 雨 雪 桜
		電車 駅 空港 ホテル 旅館 温泉 料理 寿司 ラーメン 天ぷら お茶 コーヒー 会議 資料 報告書 メール 電話 予定 計画 問題 質問 答え 理由 結果
		データ システム サーバー ネットワーク ソフトウェア アプリ プログラム コード 関数 設定 エラー 画面 ボタン ファイル ユーザー パスワード
		人工知能 機械学習 翻訳 文章 言葉 漢字 平仮名 片仮名 意味 説明 経験 仕事 勉強 研究 開発 設計 確認 準備 連絡 相談 変更 対応 改善`)
	jaParticles = strings.Fields(`は が を に で と の も へ から まで より や`)
	jaEndings   = strings.Fields(`です。 でした。 ます。 ました。 ません。 でしょう。 ですか？ してください。 と思います。 かもしれません。 が必要です。 をお願いします。`)
	koWords     = strings.Fields(`저 우리 그 사람 친구 가족 학생 선생님 회사 직원 고객 서울 부산 제주도 한국 세계 오늘 내일 어제 주말 날씨 비 눈 봄 여름 가을 겨울
		지하철 버스 공항 호텔 식당 음식 김치 비빔밥 불고기 커피 차 회의 자료 보고서 이메일 전화 일정 계획 문제 질문 대답 이유 결과 방법
		데이터 시스템 서버 네트워크 소프트웨어 프로그램 코드 함수 설정 오류 화면 버튼 파일 사용자 비밀번호 인공지능 번역 문장 단어 의미
		설명 경험 일 공부 연구 개발 설계 확인 준비 연락 상담 변경 대응 개선 중요한 새로운 간단한 복잡한 빠른 느린 좋은 다양한 안전한`)
	koParticles = strings.Fields(`은 는 이 가 을 를 에 에서 와 과 의 도 로 으로 부터 까지 보다`)
	koEndings   = strings.Fields(`합니다. 했습니다. 입니다. 있습니다. 없습니다. 해요. 했어요. 할까요? 하세요. 주세요. 것 같습니다. 필요합니다.`)
)

// English words that CJK text borrows.
var cjkLoans = strings.Fields(`AI API GPU CPU Python JavaScript Go Rust SQL JSON HTTP HTTPS URL Docker Kubernetes Linux GitHub OpenAI ChatGPT iPhone Android Excel PDF CEO KPI ROI 5G IoT`)

// zhSentence returns a Chinese sentence of one to four clauses.
func zhSentence(r *rand.Rand) string {
	pick := func(w []string) string { return w[r.IntN(len(w))] }
	noun := func() string {
		switch r.IntN(12) {
		case 0:
			return pick(zhNames)
		case 1:
			rare := zhRare
			if r.IntN(2) == 0 {
				return string(rare[r.IntN(len(rare))])
			}
			return string(rare[r.IntN(len(rare))]) + string(rare[r.IntN(len(rare))])
		case 2:
			return pick(cjkLoans)
		case 3:
			return fmt.Sprint(r.IntN(200)) + pick(zhMeasures) + pick(zhNouns)
		case 4:
			return pick(zhAdjs) + "的" + pick(zhNouns)
		case 5:
			return pick(zhNouns) + pick(zhNouns)
		}
		return pick(zhNouns)
	}
	var b strings.Builder
	if r.IntN(3) == 0 {
		b.WriteString(pick(zhLinks) + "，")
	}
	for c := range 1 + r.IntN(4) {
		if c > 0 {
			b.WriteString([]string{"，", "，", "，", "、", "；"}[r.IntN(5)])
		}
		switch r.IntN(4) {
		case 0:
			b.WriteString(noun() + pick(zhAdverbs) + pick(zhVerbs) + noun())
		case 1:
			b.WriteString(pick(zhFunction) + noun() + pick(zhFunction) + pick(zhVerbs) + pick(zhAdjs) + "的" + noun())
		case 2:
			b.WriteString(noun() + "的" + noun() + pick(zhAdverbs) + pick(zhAdjs))
		default:
			b.WriteString(pick(zhAdverbs) + pick(zhVerbs) + noun() + pick(zhFunction) + noun())
		}
	}
	b.WriteString([]string{"。", "。", "。", "。", "！", "？", "：", "……"}[r.IntN(8)])
	return b.String()
}

// jaSentence returns a Japanese sentence.
func jaSentence(r *rand.Rand) string {
	pick := func(w []string) string { return w[r.IntN(len(w))] }
	var b strings.Builder
	for range 1 + r.IntN(4) {
		b.WriteString(pick(jaWords) + pick(jaParticles))
	}
	if r.IntN(3) == 0 {
		b.WriteString(pick(jaWords) + pick(jaParticles) + "、")
	}
	b.WriteString(pick(jaWords) + pick(jaEndings))
	return b.String()
}

// koSentence returns a Korean sentence: words are separated by spaces.
func koSentence(r *rand.Rand) string {
	pick := func(w []string) string { return w[r.IntN(len(w))] }
	var b strings.Builder
	for range 1 + r.IntN(5) {
		b.WriteString(pick(koWords) + pick(koParticles) + " ")
	}
	b.WriteString(pick(koWords) + pick(koEndings))
	return b.String()
}

// cjkContent returns a message of markdown-ish prose, mostly Chinese.
func cjkContent(r *rand.Rand) string {
	sentence := zhSentence
	switch r.IntN(8) {
	case 0:
		sentence = jaSentence
	case 1:
		sentence = koSentence
	}
	var b strings.Builder
	for p := range 1 + r.IntN(6) {
		if p > 0 {
			b.WriteString("\n\n")
		}
		switch r.IntN(5) {
		case 0: // a numbered list
			for i := range 2 + r.IntN(4) {
				fmt.Fprintf(&b, "%d. **%s**：%s\n", i+1, strings.TrimRight(sentence(r), "。！？：….!?"), sentence(r))
			}
		case 1: // a heading and a paragraph
			fmt.Fprintf(&b, "### %s\n%s%s", strings.TrimRight(sentence(r), "。！？：….!?"), sentence(r), sentence(r))
		default:
			for range 1 + r.IntN(5) {
				b.WriteString(sentence(r))
			}
		}
	}
	return b.String()
}

// cjkLines returns about n bytes of chat-API JSON lines, requests and
// responses, whose messages are cjkContent.
func cjkLines(n int) benchLines {
	r := rand.New(rand.NewPCG(7, uint64(n)))
	models := []string{"gpt-4o", "gpt-4.1-mini", "claude-3-5-sonnet-20241022", "qwen2.5-72b-instruct", "deepseek-chat"}
	systems := []string{
		"You are a helpful assistant.",
		"You are a professional translator. Translate faithfully and keep the formatting.",
		"Answer in the language of the user. Be concise and accurate.",
	}
	l := benchLines{name: "cjk"}
	var b bytes.Buffer
	for l.size < n {
		b.Reset()
		model := models[r.IntN(len(models))]
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, `{"model":%q,"messages":[{"role":"system","content":%q},{"role":"user","content":%q}],"temperature":0.7,"stream":false}`,
				model, systems[r.IntN(len(systems))], cjkContent(r))
		} else {
			fmt.Fprintf(&b, `{"id":"chatcmpl-%016x","object":"chat.completion","created":%d,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":%d}}`,
				r.Uint64(), 1740000000+r.IntN(100000), model, cjkContent(r), 20+r.IntN(500), 50+r.IntN(1500))
		}
		l.lines = append(l.lines, bytes.Clone(b.Bytes()))
		l.size += b.Len()
	}
	return l
}
