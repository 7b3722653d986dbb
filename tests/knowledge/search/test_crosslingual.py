"""Knowledge in both languages: a Chinese question finds the English document that answers it and the other
way round, through REST search and the context; the floor judges each hit on its own language's scales; the
context keeps the few chunks that answer."""
from __future__ import annotations

import pytest
from django.test import override_settings

from .conftest import build_kb, ingest

MIXED_DOCS = [
    ("returns", "Return policy",
     "You can return any unused item within 30 days of delivery for a full refund. Items must be in their "
     "original packaging. Refunds are issued to the original payment method within 5 business days after we "
     "receive the return."),
    ("travel", "差旅报销规定",
     "员工差旅报销须在出差结束后十五个工作日内提交。住宿标准按城市等级执行：一线城市每晚不超过六百元。"
     "餐费补助按天计算，每天一百元。"),
    ("security", "账号安全",
     "登录密码至少十二位，须包含字母和数字。连续五次输错密码，账号锁定三十分钟。"),
    ("onboarding", "新员工入职",
     "新员工入职第一天领取工牌和笔记本电脑，由直属经理安排导师。试用期为三个月。"),
    ("shipping", "Shipping times",
     "Standard shipping takes 3 to 7 business days within the country. Express shipping arrives in 1 to 2 "
     "business days and costs 15 dollars. We do not ship to P.O. boxes."),
    ("warranty", "Warranty",
     "Every blender comes with a two-year limited warranty covering defects in materials and workmanship. "
     "The motor is covered for five years. Damage from misuse or dropping is not covered."),
    ("password", "Resetting your password",
     "To reset your password, click Forgot password on the sign-in page and enter your email address. The "
     "reset link expires after 24 hours. Passwords must be at least 10 characters long."),
    ("pricing", "Pricing plans",
     "The Starter plan costs 9 dollars per month for up to 3 users. The Team plan costs 29 dollars per month "
     "for up to 20 users and adds priority support. Annual billing saves two months."),
    ("api", "API rate limits",
     "Each API key may send up to 600 requests per minute. Requests above the limit receive HTTP 429 and should "
     "be retried after the number of seconds given in the Retry-After header."),
    ("leave", "Annual leave",
     "Full-time employees receive 20 days of paid annual leave per year. Unused days can be carried over until "
     "March 31 of the following year. Requests must be approved by your manager two weeks in advance."),
    ("meeting", "会议室预订",
     "会议室通过内部系统预订，最多提前两周。单次预订不超过四小时，取消须提前一小时。大会议室可容纳三十人。"),
    ("canteen", "员工食堂",
     "员工食堂早餐七点到九点，午餐十一点半到一点半。每人每月餐补四百元，直接充值到工卡。"),
    ("parking", "停车管理",
     "员工停车须提前办理停车证，每月停车费一百五十元。访客车辆由前台登记，可免费停放两小时。"),
    ("it", "电脑报修",
     "电脑出现故障请在服务台提交工单，工程师会在四小时内响应。更换硬盘前须先备份数据。"),
    ("expense", "办公用品申领",
     "办公用品每月第一周统一申领，由行政部发放。单价超过五百元的物品须部门经理审批。"),
]

X200_MANUAL = """# X-200 用户手册

## X-200 安装

把 X-200 固定在墙面支架上，距离地面至少一点五米，接通电源后指示灯变绿即完成安装。

## X-200 错误代码

X-200 显示 E3 表示水箱缺水，请加水后按复位键；显示 E5 表示温度传感器故障，请联系售后。

## X-200 清洁保养

每月用软布擦拭 X-200 外壳一次，不要用水直接冲洗，滤网每三个月更换一次。

## X-200 保修

X-200 整机保修两年，压缩机保修五年，人为损坏不在保修范围内。

## X-200 参数

X-200 额定功率八百瓦，重量六千克，噪音不超过四十分贝。

## X-200 安全须知

儿童使用 X-200 时须有成人看护，设备运行时不要遮挡出风口。
"""


@pytest.fixture
def mixed_kb(db):
    return build_kb("mixed", MIXED_DOCS)


def _search(api_client, slug: str, query: str, **extra) -> dict:
    response = api_client.post(f"/api/agentmemory/knowledge-bases/{slug}/search/", {"query": query, **extra},
                               format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_each_chunk_knows_its_language_and_the_base_counts_them(mixed_kb):
    from agentmemory.models import Chunk, KnowledgeBaseStats

    languages = dict(Chunk.objects.filter(knowledge_base=mixed_kb).values_list("document__external_id", "language"))
    assert languages["returns"] == languages["shipping"] == "en" and languages["travel"] == languages["it"] == "zh"
    stats = KnowledgeBaseStats.objects.get(knowledge_base=mixed_kb)
    assert (stats.chunks_zh, stats.chunks_en) == (8, 7)
    ingest(mixed_kb, "returns", "退货政策", "商品签收后三十天内可以无理由退货。")  # a new version, now Chinese
    stats.refresh_from_db()
    assert (stats.chunks_zh, stats.chunks_en) == (9, 6)


def test_a_chinese_question_finds_the_english_document_that_answers_it(mixed_kb, api_client):
    body = _search(api_client, "mixed", "退货期限多少天？")
    assert body["hits"][0]["document_title"] == "Return policy"
    top = body["hits"][0]["channels"]
    assert top["floor"]["language"] == "en" and top["floor"]["cross_lingual"] is True
    assert top["floor"]["passed"] and top["floor"]["probability"] > 0.5
    assert top["vector"]["shifted_to"] == "en"  # compared with the query moved into English
    vector = body["trace"]["channels"]["mixed"]["vector"]
    assert vector["languages"] == {"zh": 8, "en": 7} and vector["query_language"] == "zh"
    assert set(body["trace"]["floor"]["knowledge_bases"]["mixed"]["candidates"]) == {"zh", "en"}


def test_an_english_question_finds_the_chinese_document_that_answers_it(mixed_kb, api_client):
    body = _search(api_client, "mixed", "How many days after a business trip do I have to submit my expenses?")
    assert body["hits"][0]["document_title"] == "差旅报销规定"
    assert body["hits"][0]["channels"]["floor"]["cross_lingual"] is True


def test_without_the_shift_and_the_gloss_the_query_is_compared_as_it_is(mixed_kb, api_client):
    with override_settings(AGENTMEMORY={"CROSS_LINGUAL_SHIFT": False, "CROSS_LINGUAL_GLOSS_WEIGHT": 0}):
        body = _search(api_client, "mixed", "退货期限多少天？", floor=False)
    assert all("shifted_to" not in (h["channels"].get("vector") or {}) for h in body["hits"])
    assert "gloss" not in body["trace"]["channels"]["mixed"]["vector"]


def test_the_question_is_also_compared_through_its_dictionary_words(mixed_kb, api_client):
    """The shifted vector plus the embedding of the question's dictionary words in the chunks' language: the
    trace names the words, and the cross-lingual cosines are not the shifted question's alone."""
    question = "How many days after a business trip do I have to submit my expenses?"
    body = _search(api_client, "mixed", question, floor=False, top_k=15)  # every chunk of the base
    gloss = body["trace"]["channels"]["mixed"]["vector"]["gloss"]
    assert set(gloss) == {"zh"} and {"提交", "旅游"} <= set(gloss["zh"].split())
    assert body["hits"][0]["document_title"] == "差旅报销规定"
    with_gloss = {h["document_title"]: h["channels"]["vector"]["score"] for h in body["hits"]}
    with override_settings(AGENTMEMORY={"CROSS_LINGUAL_GLOSS_WEIGHT": 0}):
        body = _search(api_client, "mixed", question, floor=False, top_k=15)
    assert "gloss" not in body["trace"]["channels"]["mixed"]["vector"]
    without = {h["document_title"]: h["channels"]["vector"]["score"] for h in body["hits"]}
    assert len(with_gloss) == len(without) == 15
    assert with_gloss["差旅报销规定"] != without["差旅报销规定"]
    # English chunks meet the English question as it is: the gloss moves only the comparison with Chinese ones.
    for title in ("Return policy", "Shipping times", "Warranty", "Annual leave"):
        assert with_gloss[title] == without[title]


def test_off_topic_questions_reach_no_context_in_either_language(mixed_kb, api_client):
    for query in ("今天天气怎么样", "帮我写一首关于秋天的诗", "What's a good name for a puppy?",
                  "Can you recommend a good sci-fi novel?"):
        body = api_client.post("/api/agentmemory/context/", {"user_id": "xl-user", "query": query,
                                                             "knowledge_bases": ["mixed"], "route": "knowledge"},
                               format="json").json()
        assert body["sections"]["knowledge"] == [], query
    # Search shows weak cross-lingual matches the context leaves out (recall first, docs/retrieval.md); a
    # same-language off-topic question finds nothing there either.
    body = _search(api_client, "mixed", "今天天气怎么样")
    assert [h for h in body["hits"] if not h["channels"]["floor"]["cross_lingual"]] == []
    assert body["trace"]["floor"]["removed"] >= 1
    assert all("relevance" in d["reason"] for d in body["trace"]["floor"]["removed_hits"])


def test_the_context_carries_the_english_answer_to_a_chinese_question(mixed_kb, api_client):
    body = api_client.post("/api/agentmemory/context/", {"user_id": "xl-user", "query": "退货期限多少天？",
                                                         "knowledge_bases": ["mixed"], "route": "knowledge"},
                           format="json").json()
    knowledge = body["sections"]["knowledge"]
    assert knowledge and knowledge[0]["source"].startswith("《Return policy》")
    assert "30 days" in knowledge[0]["text"]


def _context(api_client, slug: str, query: str) -> dict:
    return api_client.post("/api/agentmemory/context/", {"user_id": "xl-user", "query": query, "knowledge_bases": [slug],
                                                         "route": "knowledge"}, format="json").json()


def test_a_small_mixed_base_carries_its_one_english_document_to_a_chinese_question(db, api_client):
    """Two Chinese policies and one English one: the English chunk has no population of its language to stand out
    from, so it is measured among background passages (knowledge/background.py); the trace says how many."""
    docs = {d[0]: d for d in MIXED_DOCS}
    build_kb("small", [docs["travel"], docs["security"], docs["returns"]])
    for query in ("退货期限多少天？", "收到货以后多久可以退？"):
        knowledge = _context(api_client, "small", query)["sections"]["knowledge"]
        assert knowledge and knowledge[0]["source"].startswith("《Return policy》"), query
    body = _search(api_client, "small", "退货期限多少天？")
    candidates = body["trace"]["floor"]["knowledge_bases"]["small"]["candidates"]
    assert candidates["en"]["n"] == 1 and candidates["en"]["background"] == 23
    assert candidates["zh"]["n"] == 2 and candidates["zh"]["background"] == 22
    # An off-topic question meets the two Chinese chunks among the background: the better of two unrelated chunks
    # no longer stands out by chance.
    for query in ("What's a good name for a puppy?", "Can you recommend a good sci-fi novel?", "今天天气怎么样"):
        assert _context(api_client, "small", query)["sections"]["knowledge"] == [], query


def test_background_passages_fill_a_small_standing_up_to_its_size(db):
    from agentmemory.backends import get_embedder
    from agentmemory.knowledge.background import BACKGROUND_SIZE, background_cosines

    embedder = get_embedder()
    query = embedder.embed_query("退货期限多少天？")
    assert len(background_cosines("en", query, embedder.model_name, 1)) == BACKGROUND_SIZE - 1
    assert len(background_cosines("zh", query, embedder.model_name, 20)) == BACKGROUND_SIZE - 20
    assert background_cosines("zh", query, embedder.model_name, BACKGROUND_SIZE) == []
    assert background_cosines("en", query, "another-model", 1) == []  # not the model the query was embedded with
    cosines = background_cosines("zh", query, embedder.model_name, 0)
    assert all(0.5 < c < 0.95 for c in cosines)  # unrelated passages: no match, no opposite


def test_the_context_keeps_the_few_chunks_that_answer(db, api_client):
    from agentmemory.knowledge.ingest import ingest_document, prepare_document
    from agentmemory.models import KnowledgeBase

    kb = KnowledgeBase.objects.create(slug="appliances", name="appliances", chunk_size=80, chunk_overlap=0)
    ingest_document(knowledge_base=kb, parsed=prepare_document(fmt="markdown", content=X200_MANUAL),
                    title="X-200 用户手册", fmt="markdown", external_id="x200")
    assert kb.chunks.filter(status="active").count() == 6
    body = api_client.post("/api/agentmemory/context/", {"user_id": "x200-user", "query": "X-200 显示 E3 是什么意思？",
                                                         "knowledge_bases": ["appliances"], "route": "knowledge"},
                           format="json").json()
    knowledge = body["sections"]["knowledge"]
    assert "E3" in knowledge[0]["text"] and len(knowledge) <= 3
    left_out = {d["key"]: d for d in body["trace"]["dropped"] if d["layer"] == "knowledge"}
    assert len(left_out) + len(knowledge) == 6  # every other chunk of the manual, each with its reason
    assert any("every found chunk of its document" in d["detail"] for d in left_out.values())  # "X-200"
    assert any(d["reason"] == "relative_cut" and "its document's best chunk" in d["detail"]
               for d in left_out.values())


def test_at_most_the_configured_number_of_chunks_reach_the_context(db, api_client):
    from agentmemory.knowledge.ingest import ingest_document, prepare_document
    from agentmemory.models import KnowledgeBase

    kb = KnowledgeBase.objects.create(slug="appliances", name="appliances", chunk_size=80, chunk_overlap=0)
    ingest_document(knowledge_base=kb, parsed=prepare_document(fmt="markdown", content=X200_MANUAL),
                    title="X-200 用户手册", fmt="markdown", external_id="x200")
    with override_settings(AGENTMEMORY={"CONTEXT_KNOWLEDGE_MAX_ITEMS": 1, "CONTEXT_KNOWLEDGE_RELATIVE_CUT": None}):
        body = api_client.post("/api/agentmemory/context/", {"user_id": "x200-user", "query": "X-200 怎么安装和保养？",
                                                             "knowledge_bases": ["appliances"], "route": "knowledge"},
                               format="json").json()
    assert len(body["sections"]["knowledge"]) == 1
    assert any("CONTEXT_KNOWLEDGE_MAX_ITEMS" in d["detail"] for d in body["trace"]["dropped"])


def test_a_model_file_from_another_version_leaves_the_rules_to_decide(tmp_path, monkeypatch, seed_kb):
    from agentmemory.knowledge import relevance
    from agentmemory.knowledge.search import search_knowledge

    stale = tmp_path / "relevance.json"
    stale.write_text('{"features": ["cosine"], "same": {}, "cross": {}}', encoding="utf-8")
    monkeypatch.setattr(relevance, "MODEL_PATH", stale)
    relevance.bundled_model.cache_clear()
    try:
        assert relevance.bundled_model() is None
        result = search_knowledge("绿茶用多少度的水冲泡", knowledge_bases=["seed"], top_k=5)
        assert result.hits[0].document_external_id == "tea"
        assert result.hits[0].channels["floor"]["by"] in ("cosine", "bm25", "margin")
        assert result.trace["floor"]["knowledge_bases"]["seed"]["model"] is False
    finally:
        relevance.bundled_model.cache_clear()


def test_the_keyword_channel_reads_the_question_in_the_bases_other_language(mixed_kb, api_client):
    # keyword mode alone: the words match only through the bundled dictionary (text/lexicon.py)
    body = _search(api_client, "mixed", "When is breakfast served in the canteen?", mode="keyword")
    assert body["hits"][0]["document_title"] == "员工食堂"
    assert "早餐" in body["hits"][0]["channels"]["keyword"]["matched_terms"]
    keyword = body["trace"]["channels"]["mixed"]["keyword"]
    assert "早餐" in [t["term"] for t in keyword["terms"]] and "早餐" in keyword["dictionary"]["zh"].split()
    body = _search(api_client, "mixed", "退货期限多少天？", mode="keyword")
    assert body["hits"][0]["document_title"] == "Return policy"
    with override_settings(AGENTMEMORY={"CROSS_LINGUAL_KEYWORDS": False}):
        body = _search(api_client, "mixed", "When is breakfast served in the canteen?", mode="keyword")
    assert "员工食堂" not in [h["document_title"] for h in body["hits"]]
    assert "dictionary" not in body["trace"]["channels"]["mixed"]["keyword"]


def test_the_context_judges_a_dictionary_match_on_the_questions_own_words(mixed_kb, api_client):
    body = _search(api_client, "mixed", "When is breakfast served in the canteen?")
    top = body["hits"][0]
    assert top["document_title"] == "员工食堂" and "早餐" in top["channels"]["keyword"]["matched_terms"]
    # the search's floor counts the dictionary's match; the context's gate reads the question's own words
    floor = top["channels"]["floor"]
    assert floor["bm25_norm"] > 0 and floor["own_bm25_norm"] == 0
    assert floor["context_probability"] < floor["probability"]


def test_the_dictionary_gives_names_and_terms_in_the_other_language():
    from agentmemory.text.lexicon import translated

    assert {"君士坦丁堡", "奥斯曼"} <= set(translated("When did the Ottomans capture Constantinople?", "zh").split())
    assert "边界层" in translated("Who described the boundary layer in 1904?", "zh").split()
    assert {"Constantinople", "Ottoman"} <= set(translated("君士坦丁堡是哪一年被奥斯曼人攻下的？", "en").split())
    assert translated("What is it?", "zh") == "" and translated("什么", "fr") == ""


def test_a_name_a_longer_definition_opens_with_is_in_the_dictionary():
    """CC-CEDICT glosses 杭州 as "Hangzhou subprovincial city and capital of Zhejiang province...": the name alone
    finds it; a name some entry gives on its own keeps that entry's words only."""
    from agentmemory.text.lexicon import lexicon, translated

    assert "杭州" in translated("Which kingdom made Hangzhou its capital?", "zh").split()
    assert lexicon().headwords["constantinople"] == ("君士坦丁堡",)
