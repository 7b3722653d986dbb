"""The offline extractor, summarizer and triggers: pure functions, no database."""
from __future__ import annotations

from agentmemory.backends.extractors import TurnText
from agentmemory.backends.extractors.context_tags import context_tags
from agentmemory.backends.extractors.rules import RuleBasedExtractor
from agentmemory.backends.summarizers.extractive import ExtractiveSummarizer
from agentmemory.working.triggers import detect_remember_intent, is_high_priority

SEED = "我们公司是做母婴用品的品牌，主打安全环保，最近想做一次低成本联名活动。"


def _extract(*texts: str, role: str = "user"):
    turns = [TurnText(seq=i, role=role, content=t, turn_id=100 + i) for i, t in enumerate(texts, start=1)]
    return RuleBasedExtractor().extract(turns)


def test_seed_sentence_gives_industry_fact_and_low_cost_preference():
    drafts = _extract(SEED)
    by_key = {d.key: d for d in drafts}
    assert by_key["company_industry"].type == "fact"
    assert by_key["company_industry"].value == "母婴用品"
    assert "母婴用品" in by_key["company_industry"].content
    assert by_key["budget"].type == "preference"
    assert "低成本" in by_key["budget"].content
    assert all(d.source == "user_stated" and d.turn_id == 101 and d.excerpt.startswith("我们公司") for d in drafts)


def test_small_talk_gives_nothing_and_assistant_turns_are_not_read():
    assert _extract("今天天气真热", "好的，谢谢", "Thanks, see you!") == []
    assert _extract(SEED, role="assistant") == []


def test_a_simile_a_pronoun_or_a_request_fills_no_slot():
    assert _extract("it is SO hot today, like walking through soup", "对！这就是我喜欢它的地方",
                    "深蹲我不太会，能换成别的吗", "乐刻的卡到期我没续，换成超级猩猩了") == []
    found = {(d.key.split(":")[0], d.value) for d in _extract("I live in Shanghai and like hiking",
                                                               "我们后端已经换成Go了")}
    assert {("location", "Shanghai"), ("likes", "hiking"), ("tech_stack", "Go")} <= found


def test_chinese_slots_and_corrections():
    drafts = _extract("我叫张伟，预算是5万元，我不吃辣。", "其实我们已经迁到PostgreSQL了。", "下次别再推荐星巴克了",
                      "我在阿里巴巴工作。", "我们决定选了方案B。", "我不喜欢开会。")
    found = {(d.key.split(":")[0], d.value) for d in drafts}
    assert {("name", "张伟"), ("budget", "5万元"), ("diet", "不吃辣"), ("tech_stack", "PostgreSQL"),
            ("do_not_recommend", "星巴克"), ("employer", "阿里巴巴"), ("decision", "方案B"),
            ("dislikes", "开会")} <= found
    migrated = next(d for d in drafts if d.key == "tech_stack")
    assert migrated.confidence >= 0.95 and migrated.tags["correction"] == "true"


def test_chinese_chat_slots_said_without_a_subject_or_in_passing():
    drafts = _extract("闺女今年上二年级了，作业辅导有什么好方法", "跳槽了 现在在一家物流公司做财务", "我自己倒是啥都吃 就是不能喝酒",
                      "租房预算一个月3500，想住地铁沿线", "现在最爱粤菜了，想学煲汤")
    found = {(d.key.split(":")[0], d.value) for d in drafts}
    assert {("child", "闺女今年上二年级"), ("job_title", "财务"), ("diet", "不能喝酒"), ("budget", "3500"),
            ("likes", "粤菜")} <= found
    # Someone else's child, or a child of someone named before it, is not the user's.
    assert not [d for d in _extract("同事说孩子3岁上幼儿园了", "他家孩子上初中了") if d.key.startswith("child")]


def test_a_budget_in_ten_thousands_and_per_night():
    """"1万5" is fifteen thousand, not one; "预算一晚400" is a budget per night."""
    found = {d.value for t in ("预算1万5左右 机票也算上", "住的话预算一晚400左右 安静点就行", "预算两万五以内")
             for d in _extract(t) if d.key == "budget"}
    assert found == {"1万5左右", "400左右", "两万五以内"}, found


def test_a_budget_for_something_a_car_driven_for_work_and_a_move_across_town():
    """"budget for the whole move is about R250k" (with its currency), "进货开的是五菱宏光", "现在在青岛" between chat
    spaces; "we moved to roath … 10 min from work" is where the user lives, not a company."""
    found = {(d.key.split(":")[0], d.value) for t in ("budget for the whole move is about R250k",
                                                       "Budget for the trip is about 3k USD, flights included.",
                                                       "进货开的是五菱宏光 最近早上老打不着火",
                                                       "我退休前是会计 现在在青岛 天天去海边散步",
                                                       "we moved to roath last month and i'm 10 min from work now")
             for d in _extract(t)}
    assert {("budget", "R250k"), ("budget", "3k USD"), ("car", "五菱宏光"), ("location", "青岛"),
            ("location", "Roath")} <= found, found
    assert not [v for k, v in found if k == "employer"], found
    assert not [d for d in _extract("我朋友开的是五菱宏光", "现在在开会 等下说") if d.key.split(":")[0] in ("car", "location")]


def test_english_slots():
    drafts = _extract("My name is Alice Chen and I work at Acme Corp.", "I hate meetings.",
                      "Actually, we migrated to PostgreSQL last month.", "Our budget is $5,000.",
                      "We chose Vue for the front end.")
    found = {(d.key.split(":")[0], d.value) for d in drafts}
    assert {("name", "Alice Chen"), ("employer", "Acme Corp"), ("dislikes", "meetings"),
            ("tech_stack", "PostgreSQL"), ("budget", "$5,000"), ("decision", "Vue for the front end")} <= found


def test_extraction_is_deterministic():
    texts = [SEED, "我叫张伟，预算是5万元。", "I love hiking and I work at Acme."]
    assert _extract(*texts) == _extract(*texts)


def test_remember_intent_and_high_priority():
    for text in ["记住：以后回答先给结论", "以后都按这个来", "下次别再推荐咖啡", "Remember that I am vegan.",
                 "From now on, answer in English."]:
        assert detect_remember_intent(text), text
    for text in ["今天天气真热", "好的，谢谢", "帮我想个联名方案，预算不多。"]:
        assert not detect_remember_intent(text), text
    drafts = _extract("记住：以后回答先给结论")
    assert [(d.key, d.value) for d in drafts] == [("reply_style", "先给结论")]
    assert drafts[0].confidence >= 0.95
    assert is_high_priority("这个很重要") and is_high_priority("预算是5万") and is_high_priority("我叫张伟")
    assert not is_high_priority("好的，谢谢")


def test_extractive_summary_keeps_numbers_names_preferences_and_drops_chitchat():
    turns = [
        TurnText(1, "user", "你好"),
        TurnText(2, "assistant", "你好！有什么可以帮你？"),
        TurnText(3, "user", "我叫王芳，在杭州开了一家咖啡店，每月预算8000元。"),
        TurnText(4, "user", "好的，谢谢"),
        TurnText(5, "user", "I prefer oat milk from Oatly."),
    ]
    summary = ExtractiveSummarizer().summarize("", turns)
    assert "王芳" in summary and "8000" in summary and "Oatly" in summary
    assert "好的，谢谢" not in summary and "你好" not in summary
    # Incremental: the previous summary is kept and new lines appended.
    later = ExtractiveSummarizer().summarize(summary, [TurnText(6, "user", "其实预算改成1万元。")])
    assert later.startswith(summary) and "1万元" in later


def test_extractive_summary_drops_least_informative_lines_first_when_over_budget():
    turns = [TurnText(1, "user", "我叫李雷，预算是3万元。")]
    turns += [TurnText(i, "assistant", f"这是第{i}个建议的详细说明，包含很多普通的描述性内容。") for i in range(2, 40)]
    summary = ExtractiveSummarizer().summarize("", turns, max_chars=300)
    assert len(summary) <= 300
    assert "李雷" in summary and "3万元" in summary


def test_long_adversarial_messages_do_not_make_the_patterns_backtrack():
    """A turn may hold 100,000 characters; an unclosed quote or one long word must not cost quadratic time
    (a remember-intent turn is extracted inside the request). Generous bound: these take ~0.1 s here."""
    import time

    extractor = RuleBasedExtractor()
    started = time.perf_counter()
    for text in ("“我" * 10000, "「我" * 10000, '"I ' * 7000, "x" * 20000, "ab " * 7000 + "is fine now",
                 "记住" + "的" * 20000, "not x " * 4000):
        extractor.extract_text(text)
    assert time.perf_counter() - started < 10


def test_moving_house_is_no_tech_stack_but_moving_a_backend_is():
    found = {(d.key.split(":")[0], d.value) for d in _extract("so we moved to Tucson last month, whole different game lol",
                                                              "we moved the backend to Postgres last sprint")}
    assert ("location", "Tucson") in found and ("tech_stack", "Postgres") in found
    assert ("tech_stack", "Tucson") not in found


def test_chat_english_typed_in_lower_case_fills_its_slots():
    """"im", "ive", "i" and names typed in lower case read as the patterns expect (extractors/chat.py)."""
    found = {(d.key.split(":")[0], str(d.value).lower()) for d in _extract(
        "also i work at wetherspoons on fridays so mornings are free",
        "cheers, im 52 so go easy on me",
        "fyi im allergic to shellfish if that matters",
        "ive been an auditor at kpmg in glasgow for 2 yrs",
        "pls explain stuff with diagrams, pure theory never sticks",
        "gotta bring my spaniel biscuit to the vet")}
    assert {("employer", "wetherspoons"), ("age", "52"), ("diet", "allergic to shellfish"), ("employer", "kpmg"),
            ("reply_style", "with diagrams")} <= found, found
    assert any(slot == "pet" and "biscuit" in value for slot, value in found), found


def test_an_age_a_named_child_and_how_to_answer_in_chinese_chat():
    found = {(d.key.split(":")[0], str(d.value)) for d in _extract(
        "我今年45了 膝盖不太好 跑步怎么练", "还有我女儿乐乐在上小学 早上没法送她", "以后直接给链接就行 别解释那么多",
        "这边前端用Vue比较多 有啥入门资料")}
    assert {("age", "45"), ("reply_style", "直接给链接"), ("tech_stack", "Vue")} <= found, found
    assert any(slot == "child" and "乐乐" in value for slot, value in found), found
    assert not any(slot == "age" for slot, _ in {(d.key, d.value) for d in _extract("我儿子8岁 学钢琴两年了")}), \
        "a child's age is not the user's"


def test_a_job_title_is_no_product_tag():
    assert context_tags("I started at Monzo as a product analyst") == {}
    assert context_tags("we're still on project Atlas") == {"project": "Atlas"}
    drafts = _extract("I started at Monzo as a product analyst")
    assert drafts and all("product" not in (d.tags or {}) for d in drafts), drafts


def test_where_the_user_is_and_works_in_chat_pieces_and_what_is_no_place_or_employer():
    """A known place given as where one is ("坐标哈尔滨", "人也搬成都了", "现在住上海"), a move "shifted to HSR Layout",
    a car traded in; not a night's stay, a month, a diet, or work described instead of an employer."""
    found = {(d.key.split(":")[0], d.value) for d in _extract(
        "在美团做运营 坐标哈尔滨", "去年搬成都了", "回国了 现在住上海", "also we shifted to HSR Layout last weekend.",
        "I traded the Corolla in for a Tesla Model 3", "I've moved in with my sister Tess in Hilton")}
    assert {("location", "哈尔滨"), ("location", "成都"), ("location", "上海"), ("location", "HSR Layout"),
            ("car", "Tesla Model 3"), ("location", "Hilton")} <= found, found
    assert _extract("放假了 今晚 住西安", "I moved in with my partner in March", "i shifted to keto",
                    "哎 目前在找新工作", "没办法 现在在加班工作", "出差 在上海市区开了个会") == []


def test_a_new_value_said_in_passing_fills_its_slot():
    """A birthday with no "我" after "之前说错了", a child's age with "是", a firm named after its town, a phone ditched
    for another, a diet gone into with no "I", a town moved back to; a partner's name before what is theirs."""
    found = {(d.key.split(":")[0], d.value) for d in _extract(
        "对了 之前说错了 生日是3月21 我自己都搞混了", "谢 我儿子是9岁 上三年级", "我考调过来了 现在在广州海关上班 住天河",
        "I finally ditched my Pixel for an iPhone 15 so I need to move my authenticator app over",
        "update. gone fully vegan since too, new era.", "我搬回扬州了 在爸妈家附近租了个小房子",
        "my partner Sam's birthday is the 14th of August", "我在蚌埠一家超市当店长")}
    assert {("birthday", "3月21"), ("child", "儿子9岁"), ("employer", "广州海关"), ("phone", "iPhone 15"),
            ("diet", "vegan"), ("location", "扬州"), ("partner", "partner Sam"), ("employer", "蚌埠一家超市")} <= found, found
    assert not any(slot == "location" and value in ("广州海关", "蚌埠一家超市") for slot, value in found), found
    # someone else's birthday and diet; the Pixel given up is no phone of the user's
    assert _extract("我妈生日是3月21 想送她个礼物", "my sister went vegan") == []
    assert not any(d.value == "Pixel" for d in _extract("I finally ditched my Pixel for an iPhone 15"))
    # a child is one slot whatever age is said of them: the newest age replaces the old
    assert {d.key for d in _extract("我儿子8岁")} == {d.key for d in _extract("谢 我儿子是9岁")}
    assert [d.value for d in _extract("my son Oliver is 8")] == ["son Oliver is 8"]


def test_cantonese_chat_fills_the_slots_as_mandarin_would():
    """"我系澳门人 喺赌场做荷官", "而家喺银河酒店做前台", "我生日系3月18号唔系8号" are read in Mandarin by the patterns."""
    found = {(d.key.split(":")[0], d.value) for d in _extract(
        "我系澳门人 喺赌场做荷官 做咗六年", "另外我已经转咗工 而家喺银河酒店做前台", "之前讲错咗 我生日系3月18号唔系8号")}
    assert {("employer", "赌场"), ("job_title", "荷官"), ("employer", "银河酒店"), ("job_title", "前台"),
            ("birthday", "3月18号")} <= found, found
    assert _extract("我在系统里改了") == []  # "系" of a Mandarin word is no Cantonese "是"


def test_what_a_chinese_piece_or_a_swap_does_not_say_of_the_user():
    """After the review: someone else's birthday, commute or move; a Mandarin "系"; a ride given; a day's work; a diet
    tried once; a village is still a place."""
    assert _extract("给我老婆挑礼物，生日是5月20", "老公上班 开车", "周末帮我妹搬回杭州了", "下个月打算搬回成都住",
                    "我在听日语歌学发音", "I dropped my mom off for a Toyota service appointment", "昨天陪朋友 在星巴克做了一下午设计",
                    "went keto for a week in 2019 and hated it") == []
    found = {(d.key.split(":")[0], d.value) for d in _extract("我在公司做系统测试，老是返工", "我在桃花村开了个民宿")}
    assert ("job_title", "系统测试") in found and ("location", "桃花村") in found, found


def test_being_asked_over_is_no_name():
    """"叫我过去掌勺" is someone asking the user to come and cook, not "call me 过去掌勺"; "叫我小王就行" names the user."""
    assert _extract("对了 我下个月去深圳 表哥在那开湘菜馆 叫我过去掌勺", "我妈天天喊我回家吃饭", "老板又叫我加班") == []
    assert [(d.key, d.value) for d in _extract("以后叫我小王就行")] == [("name", "小王")]
    assert [(d.key, d.value) for d in _extract("叫我来福就行")] == [("name", "来福")]


def test_a_childs_name_said_with_jiao():
    """"女儿叫朵朵 满七岁了" names the user's child; someone else's child does not."""
    assert [(d.key.split(":")[0], d.value) for d in _extract("女儿叫朵朵 满七岁了 想给她报个游泳班")] == [("child", "女儿叫朵朵")]
    assert _extract("我表姐的女儿叫朵朵", "她女儿叫朵朵") == []


def test_what_goes_on_after_a_partner_named_is_theirs_and_a_weekday_is_no_employer():
    """"我女朋友叫小蕾 在医院做行政" gives who the partner is, not the user's job; "I switched to thursdays at the hospice"
    works nowhere new."""
    found = [(d.key.split(":")[0], d.value) for d in _extract("我女朋友叫小蕾 在医院做行政 她倒无所谓")]
    assert found == [("partner", "女朋友叫小蕾")], found
    found = {(d.key.split(":")[0], d.value) for d in _extract("我女朋友叫小蕾，我在医院做行政")}
    assert ("employer", "医院") in found and ("job_title", "行政") in found, found
    assert not [d for d in _extract("i switched to thursdays at the hospice, tuesdays clashed with work meetings")
                if d.key == "employer"]
    assert [d.value for d in _extract("I work at Next as a sales assistant") if d.key == "employer"] == ["Next"]


def test_a_new_subject_mid_message_in_chinese_chat():
    """Chinese chat writes a space for a comma: what follows "我女朋友叫小蕾" mid-message is hers, what follows "我在…"
    is the user's again; a partner named with no 叫 is named; a weekday is no technology either."""
    found = {(d.key.split(":")[0], d.value) for d in _extract("在郑州做调度 我女朋友叫小蕾 在医院做行政 她倒无所谓")}
    assert ("partner", "女朋友叫小蕾") in found and not any(k in ("employer", "job_title") for k, _ in found), found
    found = {(d.key.split(":")[0], d.value) for d in _extract("我女儿5岁 我在腾讯上班 她上幼儿园")}
    assert ("employer", "腾讯") in found and ("child", "女儿5岁") in found, found
    found = {(d.key.split(":")[0], d.value) for d in _extract("预产期定了 明年3月12号 我老婆林芸说想提前准备待产包")}
    assert ("partner", "老婆林芸") in found, found
    assert not [d for d in _extract("我男朋友周末要加班", "我老婆马上要生了") if d.key == "partner"]
    assert not [d for d in _extract("hi, so need to update the bio, i switched to thursdays at the hospice")
                if d.key in ("tech_stack", "employer")]


def test_a_home_got_or_rented_is_where_the_user_lives():
    assert [d.value for d in _extract("thanks. also got my own place now in St. Vital 🙏🏾 what's a good budget")
            if d.key == "location"] == ["St. Vital"]
    assert [d.value for d in _extract("yeah we've packed up from Mandurah, renting in Kalgoorlie til we find somewhere.")
            if d.key == "location"] == ["Kalgoorlie"]
    assert not [d for d in _extract("we're renting in March", "not renting in Leeds anymore") if d.key == "location"]


def test_money_for_a_purpose_a_bike_ended_up_with_and_a_move_up_to_a_town():
    assert [d.value for d in _extract("装修钱又往上加了 现在得28万 厨房卫生间全拆了重做") if d.key == "budget"] == ["28万"]
    assert [d.value for d in _extract("update!! ended up getting a Yamaha NMAX, a bit over budget but sulit naman")
            if d.key == "car"] == ["Yamaha NMAX"]
    assert [d.value for d in _extract("also moved up to Evanston w my partner so now I take the Metra in")
            if d.key == "location"] == ["Evanston"]
    assert not [d for d in _extract("my sister moved up to Boston") if d.key == "location"]


def test_what_the_new_patterns_leave_alone():
    """Each new pattern of session 40 on messages it must not read (the review's examples)."""
    assert not [d for d in _extract("我老公曾经在华为上班", "我男朋友周末要加班", "我老婆马上要生了") if d.key == "partner"]
    assert not [d for d in _extract("prices for renting in Melbourne", "I was renting in Perth before I bought",
                                    "we moved up to Senior Engineer") if d.key == "location"]
    assert not [d for d in _extract("my Yamaha piano is out of tune", "Dave ended up with a Toyota Corolla",
                                    "I bought a scooter for my son") if d.key == "car"]
    assert not [d for d in _extract("我哥买车的钱还差3万", "去年装修花费超了5万") if d.key == "budget"]


def test_a_home_near_family_a_course_year_the_answer_language_and_more_titles():
    """Session 41: "moved to Punggol near wife's parents" is a home; "i'm in BCom final year" is no place; the
    language of the answers is the language alone; a new home said as 新家在…; a job title ending in 工/员."""
    def values(text: str) -> dict[str, str]:
        return {d.key: d.value for d in _extract(text)}

    assert values("sold the car in the end and moved to Punggol near wife's parents, so MRT now.").get("location") == "Punggol"
    assert "employer" not in values("sold the car in the end and moved to Punggol near wife's parents")
    assert values("I've moved to Stripe, started last month").get("employer") == "Stripe"
    assert "location" not in values("ok. i'm in BCom final year at Maharaja's College so need the phone for notes")
    assert values("I'm in Wellington now").get("location") == "Wellington"
    assert values("以后你回答我都用英文吧 想练练 I work at a yacht factory in Zhuhai").get("reply_style") == "用英文"
    assert values("还是用中文回我吧 英文看着太累").get("reply_style") == "用中文"
    assert values("以后回复都简短点 我在地铁上看").get("reply_style") == "简短点"
    assert values("搬完家了 新家在荆州古城边上 老公调过来了").get("location") == "荆州"
    assert values("报到了 在格尔木 住单位宿舍 现在是钾肥车间的操作工").get("job_title") == "操作工"
    assert values("我是黄花机场的管制员 四班倒").get("job_title") == "管制员"
    assert "job_title" not in values("我们公司的管理员太坑了")


def test_an_adverb_before_in_and_more_makes_of_van():
    def values(text: str) -> dict[str, str]:
        return {d.key: d.value for d in _extract(text)}

    assert values("ugh surprise posting, we're already in Ipswich now doing a week in Noosa in July instead.").get(
        "location") == "Ipswich"
    assert values("the transit got written off last week, I'm grand. got a Vauxhall Vivaro now, can you fix the flyer").get(
        "car") == "Vauxhall Vivaro"
    assert "car" not in values("the transit was late again so I walked")
