"""Closed classes of Chinese words that the reader and the offline rules both need.

A class here is a kind of word a rule must know by its meaning, complete for its kind, never a
list grown from one script's mistakes: the parts of the body (a clause about someone's eyes is
still about them, and an eye is neither a person, a place nor a thing), the words of film grammar
(a shot, a camera move, a frame rate: what a line says about the picture, never who speaks) and
the locative nouns (方位词) that end a phrase of place ('展厅一角', 'a corner of the hall') and
the verbs of speaking (a cue's name with one glued on, '工人抱怨', is that name).
Extend a class here, never in a caller.
"""

from __future__ import annotations

#: Parts of the body, and the places on it ('手里', '怀里') and on what one wears ('口袋').
BODY_PARTS: frozenset[str] = frozenset({
    "头", "脸", "手", "脚", "腿", "腰", "背", "胸", "腹", "嘴", "眼", "耳", "肩", "脖", "颈", "身",
    "臂", "膝", "脑袋", "脑门", "额头", "鼻子", "眼睛", "嘴巴", "耳朵", "肩膀", "脖子", "胳膊",
    "手臂", "手指", "手掌", "拳头", "后背", "背影", "身体", "身子", "头发", "眉头", "腹部", "头部",
    "胸口", "腰间", "手里", "手中", "怀里", "心里", "脸上", "身上", "头上", "手上",
    "口袋", "衣兜", "裤兜", "衣袋",  # parts of clothes, worn on the body
})

#: What the eyes and the face show: a look, an expression (the subject's, as a body part is).
LOOKS: frozenset[str] = frozenset({
    "视线", "目光", "眼神", "眼光", "脸色", "神情", "表情", "神色", "面色", "眼圈", "眼眶", "眼泪",
})

#: Film grammar, as whole words: shot sizes, camera moves and angles, frame rates and frozen
#: frames, shots and their groups, points of view, the picture's edges and its fades. A line
#: opening with one of these describes the picture; no one is called by it.
FILM_WORDS: frozenset[str] = frozenset({
    # shot sizes
    "远景", "大远景", "全景", "大全景", "中景", "近景", "特写", "大特写", "中近景",
    # camera moves and angles
    "推镜", "拉镜", "摇镜", "移镜", "跟镜", "运镜", "跟拍", "航拍", "俯拍", "仰拍", "摇臂", "甩镜",
    # frame rates and frozen frames
    "定格", "升格", "降格", "慢镜", "慢镜头", "快镜头", "慢动作", "快动作",
    # shots and their groups
    "镜头", "空镜", "空镜头", "组镜", "长镜头", "分镜", "镜头组", "剪影", "蒙太奇", "叠印", "分屏",
    # points of view
    "视角", "主观", "主观镜头",
    # the picture, its edges and its fades
    "画面", "入画", "出画", "画外", "黑场", "黑屏", "黑入", "黑出", "白场", "淡入", "淡出", "叠化",
})

#: Locative nouns (方位词): after a noun they make a phrase of place, not of a person
#: ('大厅里', '展厅一角', '门口').
LOCATIVE_WORDS: frozenset[str] = frozenset({
    "里", "里面", "里头", "内", "外", "外面", "上", "上面", "下", "下面", "中", "之中", "旁", "旁边",
    "边", "边上", "前", "前面", "后", "后面", "一角", "角落", "一侧", "两侧", "一旁", "附近", "对面",
    "深处", "门口", "门外", "门前", "周围", "四周", "中间", "尽头", "当中",
})

#: Verbs of speaking: they say that someone speaks, and how (to ask, to shout, to mutter, to
#: complain); with the manners of voice fused into one word ('大吼', '低语', '惊叫'). Written
#: after a name before a colon they are no part of it ('工人抱怨：' is the worker's line).
SPEECH_VERBS: frozenset[str] = frozenset({
    # to say, to ask, to answer
    "说", "道", "问", "答", "讲", "谈", "告诉", "说道", "问道", "答道", "应道", "回答", "回应", "答应",
    "追问", "反问", "质问", "询问", "发问", "接话", "插话", "插嘴", "打断", "附和", "应和", "解释",
    "补充", "强调", "重复", "介绍", "宣布", "汇报", "报告", "承认", "否认", "表示", "开口",
    # to call and to shout
    "喊", "叫", "嚷", "吼", "喝", "喊道", "叫道", "吼道", "喝道", "嚷道", "喊叫", "叫喊", "嚷嚷",
    "吆喝", "呼喊", "高喊", "大喊", "大叫", "大吼", "大嚷", "大骂", "怒吼", "怒喝", "咆哮", "吼叫",
    "尖叫", "惊叫", "惊呼", "欢呼", "招呼", "呼唤", "叫唤",
    # to mutter, to whisper, to talk to oneself
    "嘀咕", "嘟囔", "嘟哝", "咕哝", "念叨", "唠叨", "叨咕", "低语", "耳语", "私语", "呢喃", "喃喃",
    "自语", "嘟嘟囔囔",
    # to complain, to scold, to mock, to plead, to urge, to order
    "抱怨", "埋怨", "骂", "骂道", "责骂", "训斥", "呵斥", "斥责", "责备", "数落", "嘲讽", "讽刺",
    "挖苦", "求", "哀求", "恳求", "央求", "请求", "劝", "劝道", "劝说", "催", "催促", "命令",
    "吩咐", "嘱咐", "叮嘱", "提醒", "警告", "威胁", "安慰", "感叹", "叹道", "哭诉", "哭喊", "哭道",
    "笑道", "念", "读", "唱", "朗读", "念道", "读道",
})
