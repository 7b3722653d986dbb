"""What a correction replaces: the newest statement wins, whatever its phrasing. Pure text, no database.

A message the disclosure classifier reads as a correction replaces earlier memories of the user in
three ways, tried in order by ``working/episodes.py``:

1. **Named**: the old value is named in a retracting phrase, "我已经不在阿里了", "韩语我放弃了",
   "芒果没事", "不学土木了", "so I left teaching", "sold the ps5", "not Sam anymore". :func:`retracted_terms`
   gives the keyword tokens of those values; any current memory of the user (an episode or a slot
   fact) holding one of them is superseded.
2. **Same slot**: the message filled a single-valued slot (employer, location, ...) that an earlier
   episode filled too.
3. **Same topic**: neither, but the message and an earlier episode speak of the same thing (work, home,
   studies, a pet, health, family, devices, schedule, languages, money, a shop or project, a trip, a date):
   the closest such episode in meaning is replaced. A name the user gave earlier is a topic too
   (:func:`names`: "Mochi's actually 6" speaks of the cat in "my cat Mochi is 4"), and a name said gone or
   renamed (:func:`gone`) is retracted by name.

:func:`without_retractions` takes the retracting clauses out of the new episode's text, so the context
shows the new value, not "我已经不学土木了" with the old one in it.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from ..backends.extractors.lexicon import places_in
from ..backends.extractors.patterns import CAR_MAKES_EN, CAR_MAKES_ZH, EN_PETS, ZH_PETS
from ..text import keyword_tokens
from ..text.dialect import cantonese_as_mandarin
from ..text.tokenize import EN_STOPWORDS

_I = re.IGNORECASE
_ZC = r"[\u4e00-\u9fffA-Za-z0-9·&]"

#: Emoji and "～", which end a clause in chat ("领证那天是十八号不是八号😂 幸好还没订"), as a character class's body.
CHAT_END = "\U0001F300-\U0001FAFF\u2600-\u27BF～"
#: "left" as the side of something ("bad left knee", "the left lane"), not as having gone away.
_NOT_A_SIDE = (r"(?! (?:knee|leg|arm|hand|foot|feet|eye|ear|side|shoulder|hip|ankle|wrist|elbow|thumb|wing|turn|lane|"
               r"one|overs?)\b)")
#: Giving up an item of a plan: "we're dropping osaka", "also ditching the gym", "dropping wharton from the list".
_GIVING_UP = (r"(?:\b(?:(?:we|i)(?:'re|'m| are| am)?|were|im|also|so|and|now)\s+(?:dropping|ditching|scrapping)|"
              r"\b(?:dropping|ditching|scrapping)(?= (?:the |my |our )?[\w&'-]+(?: [\w&'-]+)? from (?:the|my|our) "
              r"(?:list|plan|plans|itinerary|schedule|trip|route|shortlist)))")
#: Words of whom or when, not of a plan's where ("我儿子那个面试", "下午那个会"): no value a cancelled plan takes back.
_NOT_A_PLAN_ZH = (r"昨天|前天|上周|上午|下午|中午|早上|晚上|今早|儿子|女儿|孩子|老公|老婆|我妈|我爸|学校|公司|单位|我们|他们|她们|"
                  r"[他她它你我]")
#: Words of when, not of what ("明天去不了了", "周末计划泡汤了"): no value a plan's retraction takes back.
_WHEN_WORDS = r"今天|明天|后天|今晚|晚上|这周|下周|这几天|周末|最近|暂时|先|还|那个|这个|[早午晚]饭|[早午晚]餐"
#: Words after "not" that say how, not which ("not yet", "not really", "not sure"): no old value.
_NOT_A_VALUE = (r"(?:yet|really|sure|much|bad|quite|now|today|anymore|exactly|necessarily|too|that|so|even|always|ever|only|"
                r"just|great|good|likely|again|entirely|totally|me|us|him|her|them|it|this|atm|ideal|kidding|cheap|fan|"
                r"lot|bit|big|huge|fun|easy|worth|enough|for|at|in|on|with|without|\w+ly|\w+ing)\b")
#: Phrases that retract a value, with the value in group ``o``.
#: What one keeps up and can stop: "生酮停了", "瑜伽课停了", "降压药停了".
_KEPT_UP = r"生酮|低碳|断食|减肥|减脂|健身|撸铁|跑步|瑜伽|普拉提|游泳|课|药|训练|打卡|会员|直播|副业|兼职"
#: Other people, as the new English retractions leave them out ("my sister dropped out", "I didn't go with mum").
_PEOPLE = (r"mom|mum|mam|dad|mother|father|parents?|sisters?|brothers?|wife|husband|partner|boss|friends?|girlfriend|boyfriend|"
           r"sons?|daughters?|kids?|cousins?|uncle|aunt|colleagues?|coworkers?|manager|neighbou?rs?|roommates?|flatmates?|folks|"
           r"guests?|ceo|teacher|dentist|doctor|him|her|them|you|us|everyone|someone")
_RETRACTIONS = (
    re.compile(rf"不在(?P<o>{_ZC}{{1,10}}?)(?:工作|上班|干|读书|住)?了"),
    # "我不是在亚琛读研 是在卡尔斯鲁厄": where the user said they were, said wrong
    re.compile(r"我(?:之前|其实)?不是在(?P<o>[\u4e00-\u9fffA-Za-z]{2,10}?)(?:读研|读博|读书|上学|念书|上班|工作|住)"
               r"(?![^。！？]*[嘛吗么])(?=[^。！？]{0,6}(?:是在|而是|是))"),
    # a regime given up: "不减脂了 改增肌", "不节食了"
    re.compile(r"(?<!今天)(?<!明天)(?<!今晚)(?<!这周)(?<!暂时)(?<!今天就)(?:已经|早就|现在)?不(?:再)?"
               r"(?P<o>减脂|减肥|增肌|节食|断食|生酮|控糖|戒糖|吃素|素食)了"),
    # (not a day off: "今天不跑外卖了 休息一天")
    re.compile(rf"(?<!今天)(?<!明天)(?<!今晚)(?<!这周)(?<!暂时)(?:已经|早就|现在)?不(?:再)?(?:学|做|用|吃|住|玩|养|开|弹|练|追|喝|抽|干|当|跑)"
               rf"(?P<o>{_ZC}{{1,10}}?)了"),
    re.compile(rf"(?:离开|辞掉|辞了|卖掉|卖了|退掉|退了|换掉|戒了|甩了|放弃了?)(?:了)?(?![了哈嘿呵啦吧呢嘛])(?P<o>{_ZC}{{1,10}})"),
    re.compile(rf"从(?P<o>{_ZC}{{1,10}}?)(?:辞职|离职|出来|走了|退出|搬走|搬出来)"),
    # Where one moved from, beside where to: "我们团队从高新区搬去天府新区了", "from koramangala to hsr layout".
    re.compile(rf"从(?!来|小|不|没|头|此|{_WHEN_WORDS}|去年|今年|明年|上个?月|下个?月)(?P<o>(?:(?!开始|起)[\u4e00-\u9fffA-Za-z]){{2,10}}?)"
               r"(?:搬去|搬到|搬来|换到|调到|调去|转到|跳槽到|跳槽去|跳到)"),
    re.compile(r"\b(?:i|we)(?:'ve| have)? (?:just |finally |recently )?(?:moved|relocated|shifted|switched) (?:\w+ ){0,2}from "
               r"(?:the |my |our )?(?P<o>[\w&'-]+(?: [\w&'-]+)?) to\b", _I),
    # "戒咖啡两周了", "戒掉奶茶了": what was given up, before how long ago or "了".
    re.compile(r"(?<!想)(?<!要)(?<!打算)(?<!准备)(?<!计划)戒(?:掉|了)?(?P<o>(?:(?![一二两三四五六七八九十几半个不])[\u4e00-\u9fff]){2,4}?)(?:了|已经|快|都|有|\d|[一二两三四五六七八九十几半]+个?(?:天|周|星期|月|年))"),
    # A plan that cannot happen: "日本去不成了", "雅思考不了了".
    re.compile(rf"(?:^|(?<=[\s，,。！!了]))(?!{_WHEN_WORDS})(?P<o>[\u4e00-\u9fffA-Za-z]{{1,6}}?)(?:我们?|也|就)?(?:去|考|办|买|搬|报|申)不(?:成|了)了"),
    # (not "闺女给我换了个苹果15": a new one given, "换了个/台…" names what it is now)
    re.compile(rf"(?P<o>{_ZC}{{1,10}}?)(?:我|也)?(?:已经|早就)?(?:放弃了|不学了|不做了|不玩了|(?<!外)卖了|退了|辞了|戒了|分了|"
               r"换了(?![个一台部辆只新成到份家套]))"),
    # Something kept up and stopped: "生酮停了", "健身房的课也停了" (a diet, a habit, a course, a medicine, a membership;
    # not the rain, a lift, a heartbeat, an automatic payment).
    re.compile(rf"(?:^|(?<=[\s，,。！!了吧]))(?P<o>[\u4e00-\u9fffA-Za-z]{{0,4}}?(?:{_KEPT_UP}))(?:也|就)?(?:已经|早就)?停(?:掉)?了"),
    # A plan dropped: "喀什不去了", "英国不去了", "雅思不考了".
    re.compile(rf"(?:^|(?<=[\s，,。！!了下吧啊呢]))(?:(?:不过|但是|可是|然后|所以|其实|而且|还有|另外)\s*)?(?!{_WHEN_WORDS}|去年|今年|明年|下个?月|上个?月|就是|太|累|"
               r"不过|但是|可是|然后|所以|其实|而且|还有|另外)"
               r"(?P<o>[\u4e00-\u9fffA-Za-z]{1,6}?)(?<!了)(?:我们?|也|就)?(?:还是)?不(?:打算|准备)?(?:再)?(?:去|考|报|买|办|搬|申|跳|弹|练|游|跑|玩|学|养|打|画|唱|追|上|吃|喝|抽|穿|弄|搞)了"),
    # A membership or a thing given up: "乐刻年卡也转掉了", "车已经卖掉了".
    re.compile(r"(?:^|(?<=[\s，,。！!了下吧啊呢]))(?P<o>[\u4e00-\u9fffA-Za-z]{1,6}?)(?:年卡|月卡|会员卡?)?(?:我们?|也|就)?(?:已经)?"
               r"(?:转掉了|转让了|转出去了|盘出去了|转手了|卖掉了|退掉了|注销了|(?<=已经)出手了|(?<=早就)出手了)"),
    # A thing of the user's lost or broken for good: "Mavic 3 炸机了 掉河里了", "旧手机摔烂了"
    # (first in its clause: "…用的是华为Mate60 之前的苹果摔坏了" says the new one in the same clause)
    # (a thing named by its model, "Mavic 3", "小米14": not "昨天下班路上手机被偷了", nor one taken to be mended, "摔坏了")
    # ("上个月Ibiza被追尾直接报废": a time before it, how after it)
    re.compile(r"(?:^|(?<=[，,。！!…\s]))(?:还有|另外|对了)?\s*(?:上个?月|上周|前几天|前天|昨天|去年)?(?:我那台|我那辆|我的?)?"
               r"(?P<o>(?:[\u4e00-\u9fff]{1,4})?[A-Za-z0-9][A-Za-z0-9 ]{0,10}?)"
               r"\s*(?:也|就)?(?:已经)?(?:被[\u4e00-\u9fff]{1,3}(?:了|得)?)?(?:直接|彻底)?"
               r"(?:炸机了|摔烂了|被偷了|报废了?(?=$|[\s，,。！!])|彻底坏了)"),
    # Not a question about something wrong ("货车ETC扣费不对怎么申诉").
    re.compile(rf"(?P<o>{_ZC}{{1,8}}?)(?:其实)?(?:没事|没问题|不过敏|是错的|不对)(?!\s*(?:怎么|咋|吗|呢|怎样|如何|的话|啊|该))"),
    # "之前跟你说28是算错了": a value said wrong, named before how.
    re.compile(rf"(?:说|讲|写|报)的?(?P<o>{_ZC}{{1,8}}?)(?:是|都是)?(?:算错|说错|记错|写错|打错|搞错|弄错|记岔|说岔|记混)了"),
    # "我报的是半马不是全马😅": the value before a stop, an emoji or the end too; not "不是很…", "不是我…".
    # (not a question: "它们不是食肉目的吗")
    re.compile(rf"(?<!是)不是(?!很|太|特别|非常|那么|这么|真|一定|所有|每|我|你|他|她|说|因为|为了|要|想|能|会|在|有|没)"
               r"(?![^，。！？!?,\s]{0,12}?[吗么](?:[。！？!?\s]|$))"
               rf"(?P<o>{_ZC}{{1,10}}?)(?:了|，|,|而是|是|(?=[。！？!?；;\s{CHAT_END}]|$))"),
    re.compile(rf"(?:之前|上次|以前)(?:说|讲|写)的?(?P<o>{_ZC}{{1,10}}?)(?:是错的|不对|说错了|写错了|记错了)"),
    re.compile(rf"(?:以前|之前|原来|当初)(?:在|用|开|养|住|学|弹)(?P<o>{_ZC}{{1,8}}?)(?:的时候|那会儿?|那阵子|时)"),
    re.compile(rf"(?:和|跟)(?P<o>{_ZC}{{1,6}}?)分手了"),
    # A pet that is gone: "团子上个月寿终正寝了", "Biscuit passed away", "we lost Biscuit in May".
    re.compile(rf"(?P<o>{_ZC}{{1,6}}?)(?:上个月|上周|前几天|去年|今年|最近|已经)?(?:去世了|过世了|寿终正寝了?|去了喵星|去了汪星)"),
    re.compile(r"\b(?P<o>[A-Z][\w'-]+) (?:passed away|died|crossed the rainbow bridge)\b"),
    re.compile(r"\bwe lost (?!(?:the|a|an|our|my|it|him|her|them|power|track|touch|weight|money|time|everything|"
               r"internet|wifi|signal|\d)\b)(?P<o>[A-Za-z][\w'-]+)\b", _I),
    re.compile(r"\b(?:had to |have to |decided to )?put (?P<o>[A-Z][\w'-]+) (?:down|to sleep)\b"),
    # Only where one lived or worked, or what one had ("I used to live in Austin", "back when I had my iPhone"):
    # "I used to paint with my mom" is a memory of the past, not a retraction.
    re.compile(r"\b(?:used to (?:live|work) (?:in|at|for)|back when I (?:lived in|worked at|was at|had)) (?:my |a |an |the )?"
               r"(?P<o>[\w&'-]+(?: [\w&'-]+)?)", _I),
    re.compile(r"\b(?P<o>[\w'-]+) and I (?:broke up|split up|split|separated|divorced)\b", _I),
    re.compile(r"\b(?:me|i) (?:n|&) (?P<o>[\w'-]+) (?:broke up|split up|separated|divorced|"
               r"split(?=\s*(?:[,.;!]|$|last\b|in\b)))\b", _I),
    # A plan that did not happen: "the ev6 lease fell thru", "the flat on Leith Walk fell through", "半马计划泡汤了".
    re.compile(r"\b(?:the |my |our )(?P<o>[\w&'-]+(?: (?!(?:lease|deal|booking|offer|purchase|order|reservation|sale|plans?)\b)[\w&'-]+)?)"
               r"(?: (?:job |house |flat )?(?:lease|deal|booking|offer|purchase|order|reservation|sale|plans?))?"
               r" (?:fell (?:through|thru)|didn'?t (?:work out|go through))\b", _I),
    re.compile(rf"(?:^|(?<=[\s，,。！!了]))(?!{_WHEN_WORDS})(?P<o>{_ZC}{{1,6}}?)(?:的)?(?:计划|offer|名额)?(?:也|就|彻底|直接)?(?:泡汤了|没戏了)"),
    re.compile(r"\b(?:renam(?:ed|ing)|broke up with) (?P<o>[\w'-]+)", _I),
    # "the grampians trip's not happening", "our bali holiday isn't happening" (one that is off or cancelled: below).
    re.compile(r"\b(?:the|our|my) (?!work\b|business\b|school\b)(?P<o>[\w'-]+) (?:trip|holiday|vacation|getaway)"
               r"(?:'s not| is not| isn't|'s no longer| is no longer) happening\b", _I),
    # A plan called off by its name: "scrap the lake district thing", "forget the lisbon idea", "东京那个客户取消了".
    re.compile(r"(?<!don't )(?<!dont )(?<!do not )(?<!never )(?<!not )\b(?:scrap|forget|ditch|cancel|drop|skip) (?:the |that )"
               r"(?!whole\b|entire\b)(?P<o>[\w&'-]+(?: [\w&'-]+)?) (?:thing|plan|plans|idea|trip)\b", _I),
    re.compile(rf"(?:^|(?<=[\s，,。！!了]))(?!{_WHEN_WORDS}|{_NOT_A_PLAN_ZH})(?P<o>[\u4e00-\u9fffA-Za-z]{{2,6}}?)(?:那个|这个)"
               r"(?:客户|项目|会议?|活动|行程|计划|单子|订单|航班|展会|面试|演出)(?:也|就)?(?:取消了|黄了|不去了)"),
    # "we didn't go with olive in the end", "hallström had to pull out" (a name given up, someone no longer in it)
    re.compile(rf"\b(?:didn't|did not|decided not to) go with (?!(?:my|our|the|{_PEOPLE})\b)(?P<o>[\w'-]+)", _I),
    re.compile(rf"(?<![\w'-])(?<!my )(?<!our )(?<!his )(?<!her )(?<!the )(?<!their )"
               rf"(?P<o>(?!(?:i|we|they|he|she|it|{_PEOPLE})\b)[^\W\d_][\w'-]+) (?:had to |has |have |just )?"
               r"(?:pull(?:ed)? out|drop(?:ped)? out|back(?:ed)? out)(?= though| tho|[,.;!]|$| so\b| and\b| last\b| at the)", _I),
    # "so bye catterick 👋": a place or a thing left behind
    re.compile(r"\b(?:so (?:bye|goodbye)|goodbye to|farewell to|say(?:ing)? goodbye to),? (?!(?:for now|then|guys|all|everyone|love|"
               r"xx?|you)\b)(?P<o>[\w&'-]+(?: [\w&'-]+)?)(?=\s*(?:[!.,;]|[\U0001F300-\U0001FAFF\u2600-\u27BF]|$))", _I),
    # "josh left though", "Priya quit last month": someone of the user's team or household no longer there
    re.compile(rf"(?<![\w'-])(?<!my )(?<!our )(?<!his )(?<!her )(?<!the )(?<!their )(?<!your )(?P<o>(?!(?:i|we|they|he|she|it|"
               rf"somebody|everybody|nobody|that|this|bus|train|flight|plane|boat|ferry|{_PEOPLE})\b)[^\W\d_][\w'-]+) (?:left|quit|resigned)"
               r"(?= though| tho|[,.;!]|$| last\b| in\b| this\b| so\b| and\b)", _I),
    # "we've had to cancel the cruise" (a plan called off; not "cancel the order please", a request)
    re.compile(r"\b(?<!do i )(?<!do we )(?:had to|decided to) cancel (?:the|our|my) (?P<o>[\w&'-]+)", _I),
    # A plan's item given up: "were dropping osaka", "dropping wharton from the list" (not "it keeps dropping leaves").
    re.compile(rf"{_GIVING_UP} (?:the |my |our )?(?P<o>[\w&'-]+(?: [\w&'-]+)?)", _I),
    re.compile(rf"\b(?:left{_NOT_A_SIDE}|quit|sold|dropped(?! (?:down|back|up) to\b)|ditched|scrapped|cancell?ed|cancell?ing|"
               r"gave up(?: on)?|(?:had to |decided to )give up(?: on)?|stopped|(?:pack(?:ed|ing)?|jack(?:ed)?) in(?= (?:my |the )?(?!like\b|a\b|an\b|so\b|car\b|van\b|truck\b|boot\b|trunk\b|bags?\b|suitcases?\b|fridge\b)\w+(?:[,.;!]|$| (?:last|this|in|after|because|cos|since|now|for)\b))|(?:handed in|gave|put in) (?:my )?notice (?:at|to)|moved (?:away )?from|switched (?:away )?from|"
               r"traded in|got rid of|broke up with|no longer (?:at|with|in|use|using|have|own|eat|do|doing|"
               r"work(?:ing)? (?:at|for)|live in|living in|into))\s+(?:my |the |a |an |our |working at |at )?"
               r"(?P<o>[\w&'-]+(?: [\w&'-]+)?)", _I),
    re.compile(r"\bnot (?:at |with |in |into |using )?(?P<o>[\w&'-]+(?: [\w&'-]+)?) (?:any ?more|any longer)\b", _I),
    # "switched the osaka hotel from namba to umeda": what it was switched from.
    re.compile(r"\b(?:switched|moved|changed|swapped) (?:the |my |our )?[\w'-]+(?: [\w'-]+)? from (?P<o>[\w&'-]+(?: [\w&'-]+)?) "
               r"(?:to|for)\b", _I),
    # "之前一直用的钉钉", "以前住的是朝阳": what it used to be.
    re.compile(rf"(?:以前|之前|原来)(?:一直|都)?(?:用|在|住|开|养)的(?:是)?(?P<o>(?:(?![不没太很挺])[\u4e00-\u9fffA-Za-z0-9]){{2,4}}?)(?=[，。！？,.!?；;\s{CHAT_END}]|$)"),
    # An allergy taken back: "turns out I'm NOT allergic to penicillin after all".
    re.compile(r"\b(?:not|n't|no longer) (?:actually |really |even )?allergic to (?P<o>[\w'-]+)", _I),
    re.compile(r"(?:\b(?:is|are|was)|'s|^its|(?<=[\s,.!])its) (?:a |an |the )?(?:\d[\d,.]*\d|[\w&'-]+(?: [\w&'-]+)?),? "
               r"not (?:a |an |the )?(?P<o>\d[\d,.]*\d|[\w&'-]+)", _I),
    # "dropped down to the 10k instead of the half", "went with a hyundai ioniq 5 instead of the ev6": what it replaces.
    # (a choice made, not a meal: "I'll have tea instead of coffee" takes nothing back)
    re.compile(r"\b(?:switched|switching|went|going|gone|doing|dropped|chose|picked|got|bought|moved|changed|swapped|"
               r"signed up for|booked|enrolled in|joined)\b[^.,;!?]{0,60}?\b(?:instead of|rather than) (?:the |a |an |my |our )?"
               r"(?!(?:that|this|it|them|him|her|you|me|us|going|doing|being|having)\b)(?P<o>[\w&'-]+(?: [\w&'-]+)?)"
               r"(?= *(?:[,.;!?]|$))", _I),
    # "rheum switched me off plaquenil to benlysta": what someone took the user off.
    re.compile(r"\b(?:switched|moved|changed|took|taken|put) (?:me|us) off (?:the |my )?(?P<o>[\w&'-]+(?: [\w&'-]+)?) "
               r"(?:to|onto|for|and)\b", _I),
    # "the ranger finally died", "my old laptop just died": a thing of the user's that gave out (not a person).
    re.compile(rf"\b(?:the|my|our) (?:old )?(?!(?:{_PEOPLE}|grand\w*|nan|nana|gran|granny|auntie|dog|cat|pet|{EN_PETS}|goldfish|fish|"
               r"plants?|battery|wifi|internet|signal|power|lights?|conversation|chat|thread|party|mood|vibe|landlord|landlady|"
               r"team|seller|buyer|neighbou?r|knees?|back|body|legs?|heart|brain)\b)(?P<o>[\w&'-]+) "
               r"(?:finally |just |has |had )?(?:died|packed up|packed in|carked it|gave up the ghost|gave out|"
               r"gave up(?=\s*(?:$|[,.;!?…]|and\b|on (?:me|us)\b)))\b", _I),
    # (also before an emoji: "so no more train 🙌")
    re.compile(r"\bno more (?!than\b|of\b|time\b|money\b|questions?\b|excuses\b)(?P<o>[\w&'-]+)"
               r"(?= for me\b| now\b| (?:to|at|in|on|with)\b|[,.;!?]|\s*[\U0001F300-\U0001FAFF\u2600-\u27BF]|$)", _I),
    re.compile(rf"^\s*not (?!{_NOT_A_VALUE})(?:the |a |an )?(?!{_NOT_A_VALUE})(?P<o>[\w&'-]+)\s*(?:[.!]|$)", _I),
    re.compile(r"\bnever ?mind (?:about )?(?:the |my |that )?(?P<o>[\w&'-]+)", _I),
    re.compile(r"\b(?P<o>[\w&-]+(?: [\w&-]+)?)'s (?:officially |finally |completely )?(?:gone|history|cancell?ed|called off|scrapped|"
               r"dead|totall?ed|written off|toast)\b"
               r"(?! (?:up|down|to|through|by|from|off|for|into|with|back|out)\b)", _I),
    # "since the BT-50 got written off by a roo", "Fenella's out of the picture"
    re.compile(r"\b(?:my|our|the) (?P<o>[\w&-]+(?: [\w&-]+)?) (?:got|has been|was) (?:officially |completely )?(?:written off|"
               r"totall?ed|scrapped|stolen|repossessed)\b", _I),
    re.compile(r"\b(?P<o>(?-i:[A-Z])[\w-]+)(?:'s| is) (?:now |well and truly )?out of the picture\b", _I),
    re.compile(r"\b(?P<o>[\w&'-]+(?: [\w&'-]+)?) (?:is|was|'s) (?:officially |finally |completely )?(?:fine|ok|okay|wrong|a mistake|out|over|gone|"
               r"history|off|dead|totall?ed|written off|toast|"
               r"cancell?ed|called off|scrapped)\b(?! (?:up|down|to|through|by|from|off|for|into|with|back|out)\b)(?: now| actually)?", _I),
)
#: No longer doing something ("舞是不去了", "研不考了", "还是不出国了", "现在不带团啦", "淘宝基本不开了"); not an ability
#: ("赶不上了", "吃不下了") nor a day's plan ("今天不去了").
_NO_LONGER_ZH = (r"(?<![赶跟吃睡看听找买搞受打关进停想说持等用])(?<!今天)(?<!明天)(?<!今晚)(?<!周末)(?<!今天就)(?<!晚上)不(?:再)?"
                 r"(?!打扰|开心|下去|下来|出来|起来|开玩笑|干净|出话|上来)(?:去|跑|做|干|带|考|学|练|玩|开|养|住|出|读|上|打|跳|下|搞|卖|"
                 r"骑|吃|喝)[\u4e00-\u9fff]{0,3}[了啦喽]")
_RETRACTING_CLAUSE = re.compile(
    # "我这边也不当店长了"; "上次说的艺考" (the old value named, before what became of it)
    rf"{_NO_LONGER_ZH}|"
    r"不(?:再)?(?:当|干|跑)[\u4e00-\u9fff]{1,6}了|(?:干|做|待|混)不下去了|"
    # the old value was someone else's ("鸡蛋过敏那是她表哥", "12 May is my sister birthday", "1.84 is my brother height")
    r"那是(?:我|她|他)的?(?:哥哥?|姐姐?|弟弟?|妹妹?|表哥|表姐|表弟|表妹|堂哥|堂姐|妈妈?|爸爸?|老公|老婆|朋友|同事)|"
    r"(?i:\b(?:is|was) (?:actually )?my (?:sister|brother|mom|mum|dad|wife|husband|son|daughter|friend|partner|cousin)(?:'s|s)? "
    r"(?:birthday|bday|height|age|weight|number|address|phone|car|job)\b)|不叫(?!唤|醒|外卖|车|人|快递|滴滴|代驾|声|了)[\u4e00-\u9fffA-Za-z]{1,8}了|^\s*(?:上次|之前|上回|前面)(?:说|提)的[\u4e00-\u9fffA-Za-z]{1,8}\s*$|"
    rf"(?:{_KEPT_UP})(?:也|就)?(?:已经|早就)?停(?:掉)?了|"
    r"去世|泡汤|没戏了|(?:客户|项目|会议?|活动|行程|计划|单子|订单|航班|展会|面试|演出)(?:也|就)?取消了|之前一直|原来用的|(?:去|考|办|买|搬|报|申)不(?:成|了)了|过世|寿终正寝|去了[喵汪]星|走了|不在了|已经不|不再|不(?:打算|准备|想)?(?:去|考|报|买|办|搬|申|跳|弹|练|游|跑|玩|学|养|打|画|唱|追|上|弄|搞|当)了|转掉了|转让了|卖掉了|退掉了|注销了|已经出手了|别叫我|别再|不能再|暂时别|别[打跑吃喝玩练弹学]了|以前|之前在|之前用|原来在|分手|不在.{0,12}了|放弃了|没事|说错|记错|写错|搞错|算错|不对|(?<!是)不是|离开|辞职|辞了|卖了|卖掉|"
    rf"\b(?:passed away|we lost|put \w+ (?:down|to sleep)|rainbow bridge|no longer|no more|any ?more|any longer|left{_NOT_A_SIDE}|quit|sold|dropped(?! (?:down|back|up) to\b)|ditched|gave up|used to|not\b.{{0,20}}\bbut|"
    # Why a plan changed ("the venue double-booked us"): said of what changed, not a value taken back (the date may
    # move and the venue stay).
    rf"{_GIVING_UP}|double[- ]?booked (?:us|me)|fell (?:through|thru|apart)|didn'?t work out|cancell?ed on (?:us|me)|scrapped|cancell?(?:ed|ing)|traded (?:it |her |him )?in|(?:'s| is| was) gone(?! (?:up|down|to|through|by|from|off|over|for|into|with|back|out)\b)|(?:got|has been) (?:written off|totall?ed|stolen|repossessed)|(?-i:[A-Z])[\w-]+(?:'s| is) out of the picture|"
    r"(?:scrap|forget|ditch|cancel|drop|skip) (?:the|my|our|that) [\w&' -]{1,30}? (?:thing|plans?|idea|trip)|(?:pack(?:ed|ing)?|jack(?:ed)?) in (?:my |the )?(?!like\b|a\b|an\b|so\b|car\b|van\b|truck\b|boot\b|trunk\b|bags?\b|suitcases?\b|fridge\b)\w+|(?:handed in|gave|put in) (?:my )?notice|(?:had|decided) to give up|"
    r"didn'?t go with|did not go with|decided not to go with|pull(?:ed)? out|dropped out|backed out|had to cancel|"
    r"(?:switched|moved|changed|took|taken|put) (?:me|us) off|finally died|just died|packed up|carked it|"
    r"(?:so (?:bye|goodbye)|goodbye to|farewell to),? \w+\s*(?:[!.,;]|[\U0001F300-\U0001FAFF\u2600-\u27BF]|$)|"

    r"(?:sorry|oops|whoops|my bad),? i (?:told you|said|wrote|put)\b[^.;!?—]{0,30}?\b(?:earlier|before|last time)"
    r"(?=,?\s*(?:[—–-]|$)|,?\s*(?:but|it'?s|he'?s|she'?s|they'?re|actually|i meant)\b)|"
    r"scratch that|was wrong|my mistake|(?:not|n't|no longer) (?:actually |really |even )?allergic|i was mistaken|i misspoke|moved away from|switched from|back when|broke up|never ?mind|"
    r"renam(?:ed|ing) \w+)\b", _I)
_CLAUSE_SPLIT = re.compile(rf"(?:(?<=[，；;。！？!?])|(?<=,)(?!\d))\s*|(?<=\.)\s+|(?<=[{CHAT_END}])\s*(?![{CHAT_END}])|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])|"
                           r"\s+(?=\band\b(?! (?i:i|me)\b)|\b(?:but|so)\b)|\s+[—–-]\s+|\s*(?=[(（])|(?<=[)）])\s*")
_STOP = frozenset("""a an the my our your i we me it its this that these those and or but so to of in on at for with
from by as is was are were be been am not no any more longer now then just really actually already still too very
also some much many one lol lmao haha omg tho though anyway early late again today tonight tomorrow yesterday last next week
weekend month year ago""".split()) | frozenset("了 的 我 我们 你 他 她 它 是 在 也 都 就 还 已经 现在 其实 之前 一下 一个 这个 那个 没事 不 "
                                 "还有 另外 而且 然后 对了 顺便 不过 终于 刚刚 总算 那台 这台 那辆 这辆 那部 这部".split())
#: Words for where or what something is, not which one ("the venue double booked us", "cancelled the shinjuku hotel"),
#: as written and as keyword tokens (stemmed: "venu").
_STOP |= frozenset(t for w in ("place venue hotel spot thing stuff allergic allergy allergies plan plans deal lease offer "
                                "booking order job team phone").split()
                   for t in (w, *keyword_tokens(w))) | {"过敏", "工作", "公司", "地方", "周末", "计划", "方法", "东西"}

#: "改到" a plan or a date is moved to, not work done to exhaustion ("天天改图改到吐").
_MOVED_TO_ZH = r"改到(?![吐死崩哭疯头手])"
#: How far or how long, after "到单位"/"离公司" ("到单位四十分钟", "离公司就两公里"): the way to work, not the job.
_HOW_FAR_ZH = r"(?=[\u4e00-\u9fff]{0,2}?(?:\d+|[一二两三四五六七八九十半几]+)\s?(?:分钟|公里|站|个?小时|km))"
#: A car in Chinese: 车, not a workshop, a station, a ticket, a carriage or a train ("总装车间", "火车站", "动车票").
_CAR_ZH = r"(?:(?<![火列])(?<![^电]动)(?<!购物)车(?!间|站|票|厢|次|厘|队)|(?:开|换|买|提)(?:一|了|着)?辆)"
TOPICS: dict[str, re.Pattern] = {
    "work": re.compile(r"工作|(?<!骑车)(?<!开车)(?<!地铁)(?<!公交)(?<!走路)(?<!步行)(?<!打车)(?<!电驴)(?<!坐车)上班|"
                       rf"(?:公司|单位)(?!{_HOW_FAR_ZH})|(?<![到去离])(?:公司|单位)|"
                       r"职位|岗位|职业|升职|升了|跳槽|离职|入职|辞职|当.{0,4}(?:经理|师|员|主管)|当(?:了|个|一名)?[电焊钳木瓦车普]工|老板|"
                       r"在[^，。！？\s]{1,12}当|打工|兼职|值夜班|前台|收银|会计(?!划)|出纳|做[^，。！？\s]{1,10}这一?块|"
                       r"(?:设计|工程|律|会计|厨|医|教|咨询)师|经理|主管|总监|店长|"
                       r"\b(?:job|work(?:ing)?(?! out\b| for (?:me|us|you)\b)(?! with (?:about |around |roughly |just )?(?:[$£€¥₦]\d|\d[\d,.]*\s?[km]?\s?(?:naira|dollars|bucks|pounds|euros?|rupees|rand|grand)\b))|company|employer|role|position|title|hired|promoted|promotion|teach(?:ing|er)?|"
                       r"office|career|intern|manager|engineer|designer|recruiter|barista|chef|nurse|developer|(?-i:dev)|clinic|hospital|firm|"
                       r"agency|coworkers?|colleagues?|boss)\b|\b(?:started|starting|start) (?:at|a new job)\b", _I),
    "home": re.compile(r"住在|住的|我住|(?:^|(?<=[\s，,。！!]))住(?!院)(?=[\u4e00-\u9fffA-Za-z]{2,8}?(?:附近|这边|那边|一带))|租的|租房|租了|房租|月租|租金|续租|[一两二三四]居室?|房东|搬到|搬去|搬来|搬家|(?:人|我|我们|全家|一家人?)(?:也)?(?:跟着)?搬过(?:去|来)了|老家|定居|城市|\b(?:live|living|lives|moved(?! (?:up|down) (?:to |into )?(?:the )?(?:[\w-]+ )?(?:class|grade|year|level|form|std|standard|set|group)\b)"
                       # (not a thing moved to another day: "i moved my drops to wednesdays")
                       r"(?! (?:[\w'-]+ ){0,3}to (?:mon|tues|wednes|thurs|fri|satur|sun)days?\b)|relocat\w*|city|apartment|(?:my|our) flat|landlord|lease|"
                       r"neighbou?rhood|based in|i'm in|im in|we're in(?! (?:trouble|love|luck|a |the |for |charge|touch|talks))|hometown|the move|(?:my|our) (?:old |new |own )?(?:house|home|place|condo))\b", _I),
    "study": re.compile(r"专业|大学|学校|小学|初中|高中|幼儿园|上学|读研|读博|年级|考研|学位|毕业|转专业|学期|论文|导师|幼升小|小升初|中考|高考|\b(?:major|degree|university|college|school|grade|"
                        r"phd|masters?|studying|semester|quarter|class(?:es)?|(?<=\d(?:st|nd|rd|th) )(?:std|standard)|campus|gpa|tuition|thesis|dissertation|electives?|"
                        r"internships?|freshman|sophomore|"
                        r"professor)\b", _I),
    "travel": re.compile(r"旅行|旅游|出差|出国|机票|航班|签证|自驾游|度假|蜜月|徒步|\b(?:trip|travel\w*|vacation|holiday|flights?|flying|"
                         r"itinerary|visa|honeymoon|road ?trip|camino|trek(?:king)?|pilgrimage|backpacking|(?:coastal|walking|hiking|pilgrim) route|"
                         r"(?<!at a )(?<!in a )(?<!work in )hotels?|motels?|resorts?|"
                         # a drive or a flight somewhere at a time ("we're driving to banff in august")
                         r"(?:driving|flying|road-?tripping) (?:up |down |out |over )?to [a-z]+(?: [a-z]+)? "
                         r"(?:in|for|this|next|over|at the end of|end of)\b)\b", _I),
    # A day on the calendar ("June 8", "9月21号", "下周四"): what a date moved replaces.
    "date": re.compile(r"\d{1,2}\s*月\s*\d{1,2}\s*[日号]|(?<![\d月])\d{1,2}\s*号(?![线楼房床位车窗口门])|\bthe \d{1,2}(?:st|nd|rd|th)\b|[下这上]周[一二三四五六日天]|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|"
                       r"dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?\b|\b\d{1,2}(?:st|nd|rd|th)? (?:jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec)[a-z]*\b|\b\d{1,2}(?:st|nd|rd|th)? of (?:jan|feb|mar|apr|may|jun|jul|aug|"
                       r"sep|oct|nov|dec)[a-z]*\b|"
                       # a month of a year, or a month a plan is moved to or set in ("in May 2026", "pushing it to September")
                       r"\b(?:january|february|march|april|may|june|july|august|september|october|november|december) \d{4}\b|"
                       r"\b(?:in|to|until|till|for) (?:early |mid-?|late )?(?:january|february|march|april|june|july|august|september|"
                       r"october|november|december)\b|"
                       # a Chinese plan moved to a holiday or a time of the year ("婚期推到明年五一了", "改到下个月"); a day of
                       # a month is the first alternative's ("定在10月2号" is "10月2号")
                       r"(?:推到|推迟到|延到|延期到|改到|挪到|提前到)\s*(?:明年|今年|后年)?(?:五一(?!路)|十一(?![点时号日月\d])|国庆|春节|元旦|中秋|端午|年底|年初|"
                       r"[上下]半年|下个?月)", _I),
    # How old someone is ("已经6岁了", "turns 7", "12 years old"): a child's or a pet's age said again replaces the old.
    "age": re.compile(r"\d{1,3}\s*(?:周岁|岁)|[一二两三四五六七八九十]{1,3}(?:周岁|岁)|\b\d{1,3}\s*(?:years?|yrs?|months?|weeks?)[ -]old\b|"
                      r"\bturn(?:s|ed|ing)? \d{1,3}\b|"
                      # "she's 6 and obsessed with volcanoes", "im 34 and want to start running"
                      r"\b(?:she|he|they|i)(?:'s|'m| is| am| are|m) (?:only |just |almost |nearly |now )?\d{1,2}"
                      r"(?=\s*(?:$|[,.;!?)]|(?:and|now|so|but|next|this|tho|lol)\b))", _I),
    "pet": re.compile(rf"{ZH_PETS}|宠物|\b(?:(?:{EN_PETS})s?|pupp(?:y|ies)|pups?|bunn(?:y|ies)|pets?)\b", _I),
    "commute": re.compile(rf"通勤|地铁|公交|(?:到|去|离)(?:单位|公司){_HOW_FAR_ZH}|"
                          r"骑车|开车|打车|自行车|电动车|拼车|顺风车|班车|电驴|走路上班|步行上班|\b(?:commut\w*|(?:the|a|by) (?:[\w/-]+ )?train|trains|bus|subway|metro|bik(?:e|ing)|"
                          r"cycl(?:e|ing)|driv(?:e|ing)\b.{0,30}\b(?:work|office)|(?<=i )drive (?:from|to|in)|carpool\w*|walk(?:ing)? to work|tube|"
                          r"(?:blue|red|green|orange|brown|purple|pink|yellow|central|northern|district|circle|jubilee|victoria|elizabeth) line|mrt|lrt)\b", _I),
    "health": re.compile(r"过敏|不吃|吃素|正常吃|少油|少糖|少盐|控糖|(?<!生意)清淡|全素|素食|吃鱼|海鲜|饮食|忌口|辣|病|哮喘|糖尿病|手术|胃|生酮|低碳|轻断食|(?:腰|膝盖?|颈椎?|背|肩膀?|胃)(?:好|很|有点|太|老是|一直)?(?:疼|痛|酸)|腰椎|颈椎|失眠|偏头痛|"
                         r"\b(?:back pain|migraines?|insomnia|allerg\w*|vegan|vegetarian|"
                         r"diet|gluten|intoleran\w*|surgery|asthma|diabet\w*|injur\w*|eat|meat|keto|paleo|"
                         r"mediterranean|carbs?|fasting|shellfish|shrimp|(?:tree )?nuts|peanuts?|dairy|lactose|seafood|"
                         r"c[o]?eliac)\b|乳糖不耐|麸质", _I),
    "family": re.compile(r"老公|老婆|妻子|丈夫|爱人|媳妇|伴侣|男朋友|女朋友|对象|婚|分手|相亲|在一起|\b(?:broke up|split up|dating|seeing someone|ex)\b|儿子|女儿|孩子|宝宝|怀孕|\b(?:husband|wife|partner|"
                         r"boyfriend|girlfriend|fianc[eé]e?|married|wedding|engaged|sons?|daughters?|kids?|baby|twins|"
                         r"pregnan\w*)\b", _I),
    "car": re.compile(rf"{_CAR_ZH}|{CAR_MAKES_ZH}|\b(?:{CAR_MAKES_EN}|cars?|gas station|oil change)\b", _I),
    "phone": re.compile(r"手机|iPhone|Mate ?\d|(?:华为|小米|三星|荣耀|OPPO|vivo|一加|红米|Redmi|OnePlus|Pixel|Galaxy)\s?(?:[A-Za-z]+\s?)?\d+|"
                       r"\bmy cell(?: phone| plan| bill|'s| is| provider| carrier)\b|\bcell ?(?:phone|plan|bill)\b|\b(?:phone|mobile|cell) (?:plan|bill|carrier|provider)\b|"
                       r"\b(?:telus|verizon|t-mobile|at&t|koodo|telstra|optus|vodafone|airtel)\b|"
                       r"\b(?:(?:my|new|old|own) phone|iphone|(?<!do )android(?! (?:dev|developer|engineer|apps?|studio|sdk|team|work)\b)|pixel|galaxy|samsung|redmi|xiaomi|oneplus|oppo|vivo|realme|tecno|infinix|motorola|moto g\d*)\b", _I),
    "device": re.compile(rf"{_CAR_ZH}|手机|电脑|笔记本|平板|华为|小米(?![粥饭椒辣面])|苹果(?![汁派干醋]|(?:很|挺|太)?(?:甜|好吃))|三星|\b(?:car|(?:hard|usb|flash|thumb|external) drive|phone|iphone|(?<!do )android(?! (?:dev|developer|engineer|apps?|studio|sdk|team|work)\b)|laptop|macbook|pc|console|ps5|xbox|"
                         r"switch|tablet|ipad|galaxy|samsung|pixel|thinkpad|kindle)\b", _I),
    "music": re.compile(r"钢琴|吉他|小提琴|大提琴|古筝|二胡|尤克里里|架子鼓|乐器|贝斯|萨克斯|口琴|琴弦|按弦|弹琴|练琴|琴(?=也|都|就|还)|\b(?:piano|guitar|violin|cello|"
                        r"drums?|ukulele|bass|saxophone|instrument|flute)\b", _I),
    "name": re.compile(r"名字|叫我|称呼|英文名|中文名|\b(?:name|call me|go by)\b", _I),
    "schedule": re.compile(r"\b(?:on|in) (?:eastern|central|mountain|pacific|atlantic)\b|每天|几点|作息|排班|上班时间|周末|时区|(?:北京|伦敦|东京|纽约|柏林|新加坡|悉尼|巴黎|美西|美东)时间|\b(?:time ?zones?|pacific time|eastern time|central time|mountain time|[a-z]+ standard time|pst|pdt|est|edt|cet|cest|gmt|bst|utc|jst)\b|\b(?:schedule|shifts?|9 to 5|hours|days off|mornings?|"
                           r"nights?|weekends?|"
                           # a weekday as a habit ("i post new stuff every monday", "moved my drops to wednesdays")
                           r"(?:(?:every|on|to|meets?|open|closed) |(?<=\())(?:mon|tues|wednes|thurs|fri|satur|sun)days?)\b", _I),
    "language": re.compile(r"[英日韩法德俄]语|西班牙语|西语|外语|\b(?:spanish|french|japanese|korean|german|italian|"
                           r"mandarin|language)\b", _I),
    "habit": re.compile(r"烟|酒(?!店|席|宴|会|楼)|戒|运动|书法|毛笔字|练字|字帖|跑步|夜跑|晨跑|游泳|骑行|瑜伽|健身|减肥|撸铁|卧推|深蹲|硬拉|增肌|减脂|作息|羽毛球|篮球|足球|网球|乒乓|徒步|滑雪|攀岩|普拉提|半马|全马|马拉松|"
                        r"冰球|击剑|滑冰|轮滑|排球|棒球|高尔夫|跆拳道|柔道|空手道|体操|舞蹈|芭蕾|射箭|"
                        r"\b(?:badminton|tennis|basketball|soccer|climbing|bouldering|hiking|skiing|pilates|crossfit|marathon|"
                        r"hockey|fencing|skat(?:e|es|ing)|lacrosse|volleyball|baseball|softball|rugby|golf|karate|judo|"
                        r"taekwondo|gymnastics|archery|rowing|ballet|dance|dancing|"
                        r"lifting|weights)\b|\b(?:smok\w*|cigarettes?|drink\w*|alcohol|gym|"
                        r"running|swim\w*|cycling|yoga|workout|exercis\w*|sober)\b", _I),
    "deadline": re.compile(r"截止|交稿|要交|得交|终稿|推迟|延期|挪到|改期|"
                           rf"{_MOVED_TO_ZH}|"
                           r"定在|答辩|上线|发布|\b(?:defen[cs]e|rescheduled|postponed)\b|\b(?:ddl|deadlines?|due|submission|submit|viva|launch\w*|release|"
                           r"pushed (?:back|to))\b", _I),
    "money": re.compile(r"预算|工资|收入|薪|贷款|房贷|存款|[$¥￥€£]\s?\d|[\d一二两三四五六七八九十百千万]\s?(?:块钱|块|元)(?![\u4e00-\u9fff]{0,2}[岁年天次])|"
                        r"\b(?:budget|salary|income|loans?|debt|savings|rent|mortgage|\d+(?:\.\d+)?\s?(?:k|m)?\s?(?:dollars|bucks|usd|rmb|"
                        r"euros?|pounds|naira|rupees|rand|shillings|cedis|pesos|quid|(?-i:grand)|cad|aud|nzd|sgd|gbp|eur|zar|inr|ngn|kes))\b|"
                        r"\b\d+(?:\.\d+)?k (?:for (?:the|our|my) (?!first|last|second|third|charity|fun)|to spend|left|all in|max|tops)", _I),
    # the body's measures: a weight, a height, a target ("体重现在都49了 …目标改成增到53", "goal weight is 70kg"), not a weight
    # lost in passing ("一周下来掉了1.5公斤")
    "body": re.compile(r"体重|身高|体脂|目标(?:体重)?(?:改成|是|定在)?(?:减|瘦|增|胖)到|(?:减|瘦|增|胖)到\s*[\d.一二两三四五六七八九十]+\s*(?:斤|公斤|kg)|"
                       r"增重|减重|\b(?:bmi|body fat|goal weight|target weight|(?:my|body) weight|"
                       r"weigh(?:s|ed)? (?:in at |about |around |like )?\d+)", _I),
    "venture": re.compile(r"项目|(?<!酒)店|开(?:了)?(?:一)?(?:家|个)?酒店|工作室|品牌|账号|频道|\b(?:project|shop|store|brand|channel|app|startup|blog|podcast|"
                          r"salon|barbershop|bakery|food truck|(?:my|our) (?:biz|business)|brokerage|"
                          r"etsy|rebrand\w*|renamed|newsletter|substack)\b", _I),
}


#: Words that say something changed or was wrong: with the classifier's judgement, what makes a message a
#: correction ("挪到十月二号了", "i relocated to london", "we got married on saturday").
_CHANGE_RE = re.compile(
    r"现在|新车提了|提了新车|提车了|新车到了|改成|改为|改了|"
    rf"{_MOVED_TO_ZH}|"
    r"改在|(?<![修批])改(?:吃|喝|练|学|用|去|打|跑|骑|开|坐|住|做|当|养|读|考|报)(?![卷错])|换成|换了|换到|挪到|推到|推迟|延期|提前到|升了|升职|辞职|离职|跳槽|戒|放弃|不再|已经不|搬到|搬去|搬来|搬家|(?:人|我|我们|全家|一家人?)(?:也)?(?:跟着)?搬过(?:去|来)了|调到|转到|"
    r"(?:砍|涨|提|降|减|加|增加|减少|缩减|升)到|上到\s*\d{2,4}(?:kg|公斤|斤)?了|(?:掉|跌|瘦|胖)到\s*[\d一二两三四五六七八九十]|(?:压|控制)到\s*[\d一二两三四五六七八九十]|"
    rf"{_NO_LONGER_ZH}|"
    r"转专业|分手|其实|如今|变卦|改主意|计划有变|计划变了|改期|(?:的事|那事|那件事|那个事|的计划|那趟|那个行程|的行程|的安排)(?:也|又|还)?(?:变了|有变)|最后还是|结果还是|之前说|说错|记错|搞错|写错|打错|弄错|听错|看错|结婚了|分手|取消|不办了|\b(?:now(?! (?:trying|wondering|looking (?:for|at|into)|thinking (?:about|of)|planning (?:a|the|to)|asking|hoping)\b)|nowadays|these days|used to|change of plans?|plans changed|any ?more|no longer|moved|relocated|"
    rf"switched|changed|left{_NOT_A_SIDE}|quit|sold|(?:(?<=\ba )|(?<=\bmy )|(?<=\bour )|(?<=\bthe )|(?<=\bgot )|(?<=\bstarted )|(?<=\bsomeone )|(?<=\bbrand-)|(?<=\bbrand ))new(?! (?:york|year|zealand|jersey|mexico|delhi|orleans|hampshire|england|brunswick|south wales)\b)|new (?:job|role|position|gig|place|flat|apartment|house|city|phone|car|boss|team|school|due date|date|deadline|address|number|plan)|actually|instead|renam\w+|rebrand\w*|renamed|got (?:married|engaged|divorced|"
    r"promoted|a new)|promoted|upgraded|downgraded|traded (?:in|up)|since (?:starting|joining|i (?:started|joined|moved|switched|bought|got)|we (?:moved|got|bought)|moving|switching|(?:last|this) \w+|(?:the|our|my) (?:move|relocation) (?:up |down |over |back |out )?to)|turns out|plot twist|ended up|bumped|officially|scratch that|correction|update|"
    r"push(?:ed|ing)? (?:\w+ ){0,3}(?:back|to)|postponed|rescheduled|called off(?! work| sick)|scrapp(?:ed|ing)|"
    r"(?:is|are|'s) off (?=for (?:this|the) (?:year|season|summer|winter)|this year)|mov(?:ed|ing) (?:\w+ ){0,3}(?:back|forward|up) to|"
    r"(?:went|gone|going|goes|now|is|was|'s) (?:up|down) to|(?:cut|raised|lowered|increased|decreased|reduced|bumped) (?:it )?to)\b|"
    # a number said anew, led by where it went ("Down to 87kg, so 85's in sight")
    r"(?:^|(?<=[.!?]\s))\W*(?:down|up) to (?=[$£€]?\d[\d.,]*\s?(?:kg|kgs|kilos|lbs|pounds|stone|st|k|%|grand|hours|hrs|"
    r"miles|km)\b)", _I)


def signals_change(text: str) -> bool:
    """Whether ``text`` says that something changed or was wrong (a lexical cue, or a value it retracts)."""
    read = cantonese_as_mandarin(text or "")  # "搬咗去", "换咗"
    return bool(_CHANGE_RE.search(read)) or bool(retracted_terms(text))


def clauses(text: str) -> list[str]:
    """``text``'s clauses: split after a comma, a stop or an emoji, and before "and"/"but"/"so" in English; a Chinese
    run-on written with no stop (voice input) also after what the user no longer does ("不跑了") and before "现在" after "了"
    ("冷链不跑了腰椎间盘突出医生不让再长时间坐着开了现在在驾校当教练" is three clauses)."""
    return [piece for c in _CLAUSE_SPLIT.split(text or "") if c and c.strip()
            for piece in (_RUN_ON_SPLIT.split(c) if not _SOMEONE_ZH_RE.search(c) else [c]) if piece and piece.strip()]


#: Someone else the run-on may speak of ("女儿研究生毕业了现在去杭州上班了" is the daughter's news, one clause).
_SOMEONE_ZH_RE = re.compile(r"儿子|女儿|闺女|孩子|老公|老婆|媳妇|对象|男朋友|女朋友|爸|妈|哥|姐|弟|妹|同事|朋友|老板|领导|邻居|"
                            r"表[哥姐弟妹]|堂[哥姐弟妹]|侄[子女]|孙[子女]")
#: Where a Chinese run-on changes clause: after "不跑了" when more words follow, and before "现在"/"目前"/"如今" after "了".
_RUN_ON_SPLIT = re.compile(r"(?<=了)(?<!除了)(?<!为了)(?<!到了)(?=(?:现在|目前|如今)[\u4e00-\u9fff])|"
                           r"(?:(?<=不[跑做干带考学练玩开养住读搞卖骑当][了啦喽])|(?<=不再[跑做干带考学练玩开养住读搞卖骑当][了啦喽]))"
                           r"(?=[\u4e00-\u9fff]{4})")


#: Eating what a vegan or vegetarian diet leaves out, said as a change ("最近开始吃鱼和鸡蛋了", "现在每周会吃两三次鱼虾了",
#: "started eating fish again"): the plant diet said before is what it ends.
_EATS_ANIMAL_RE = re.compile(
    r"荤素都吃|(?:现在|已经|又)(?:啥|什么)都吃了|开荤了|不吃素了|不再吃素|"
    r"(?:开始|现在|又|重新|恢复|偶尔|每周|也)[^，。！？,.!?]{0,8}吃[^，。！？,.!?]{0,6}(?:鱼|虾|肉|鸡|鸭|牛|猪|羊|蛋|奶|海鲜)|"
    r"\b(?:started|starting|began|back to|now|again|occasionally)\b[^.,;!?]{0,20}\b(?:eat\w*|having)\b[^.,;!?]{0,15}"
    r"\b(?:fish|meat|chicken|eggs?|dairy|seafood|beef|pork|salmon|tuna)\b|"
    r"\b(?:eat\w*|having)\b[^.,;!?]{0,15}\b(?:fish|meat|chicken|eggs?|dairy|seafood)\b[^.,;!?]{0,20}\b(?:now|again|these days)\b",
    _I)
_PLANT_DIETS = ("全素", "纯素", "吃素", "素食", "vegan", "vegetarian")
#: A plant diet begun ("上个月开始改成吃素了 肉不吃了 蛋奶还吃", "i went vegetarian in march"): the love of meat said before
#: is what it ends (not "不吃素了", which ends the plant diet).
_PLANT_DIET_BEGUN_RE = re.compile(r"(?<!不)(?:改成|开始|现在|已经|改)(?:吃)?(?:全素|纯素|吃素|素食)(?!者|主义)|"
                                  r"\b(?:went|gone|now|became|become|turned|switched to) (?:fully |full )?"
                                  r"(?:vegan|vegetarian|veggie|plant[- ]based)\b", _I)
_MEAT_LOVED = ("无肉不欢", "爱吃肉", "肉食动物", "carnivore")
#: ...not refused, asked, wished or someone else's ("i could never become vegetarian", "要不要开始吃素啊", "my sister went vegan",
#: "我妈现在吃素了").
_NOT_BEGUN_RE = re.compile(r"不想|不会|要不要|能不能|该不该|想不想|吗|[?？]|\b(?:never|could not|couldn't|won't|wouldn't|should i|"
                           r"thinking (?:about|of)|if)\b|\b(?:my|his|her|their) (?:" + _PEOPLE + r")\b|(?:我|他|她)(?:妈|爸|姐|哥|弟|妹|老婆|老公|媳妇|"
                           r"对象|朋友|同事)", _I)


_AROUND_VALUE_RE = re.compile(r"^(?:想了想|想想|后来|其实|现在)|(?:可以|行|好)[吗呢吧]$|[是也就还倒]+$")


#: The user and someone parted: "me and Dev split up", "i and Sam broke up", "ola and i broke up", "跟小鹿分了".
_WE_SPLIT_RE = re.compile(r"\b(?:(?:me|i) (?:and|n|&) (?P<o>[A-Za-z][\w'-]+)|(?<!\bmy )(?<!\bour )(?P<f>[A-Za-z][\w'-]+) (?:and|&|n) (?:i|me)) "
                          r"(?:broke up|split up(?! (?:the|a|an|our|my|it|them|work|chores)\b)|split(?=\s*(?:$|[,.;!?…]|(?:last|this|a few)\b|in (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|spring|summer|autumn|fall|"
                          r"winter|\d{4})|over the (?:summer|winter|holidays|weekend)))|"
                          r"separated(?! (?:the|a|an|our|my)\b)|got divorced|divorced)\b|"
                          # "跟小鹿分了", "和阿杰分手了": a name right after 跟/和 (not "跟他", "跟你说")
                          r"(?:跟|和)(?![他她你它我]|老公|老婆|男朋友|女朋友|男友|女友|对象|前任|同事|朋友|邻居|大家|室友|爸妈|家人|合伙人)"
                          r"(?P<z>[\u4e00-\u9fff]{2,3}?)(?:已经|也|还是)?(?:分了(?=$|[\s，。！!？?~～])|分手了?|离婚了|掰了)", _I)


def parted(text: str) -> set[str]:
    """The names of those ``text`` says the user parted from ("me and Dev split up", "跟小鹿分了")."""
    if _IF_RE.search(text or ""):
        return set()
    return {n.lower() for m in _WE_SPLIT_RE.finditer(text or "") if (n := m.group("o") or m.group("f") or m.group("z"))
            and n.lower() not in _STOP and n.lower() not in EN_STOPWORDS}


def retracted_terms(text: str) -> set[str]:
    """Keyword tokens of the values ``text`` retracts ("我已经不在阿里了" -> {"阿里"}; "最近开始吃鱼了" -> the plant
    diet said before)."""
    terms: set[str] = set()
    # "me and Dev split up" (read over the whole text: clauses are split before "and")
    terms |= parted(text)
    begun, eats = _PLANT_DIET_BEGUN_RE.search(text or ""), _EATS_ANIMAL_RE.search(text or "")
    if begun and not (eats and eats.start() > begun.start()) and not _NOT_BEGUN_RE.search(text or ""):
        terms |= set(_MEAT_LOVED)
    elif eats:
        terms |= {t for diet in _PLANT_DIETS for t in ([diet] if not diet.isascii() else keyword_tokens(diet))}
    for clause in clauses(text):
        for pattern in _RETRACTIONS:
            for match in pattern.finditer(clause):
                said = match.group("o")
                if re.fullmatch(r"\d[\d,.]*", said.strip()):
                    # A year or an amount as written ("a 2016 not a 2014", "4,700 not 5,100"); a number of one or two
                    # digits names nothing alone ("the standup is at 9 not 10" is no "my son turned 10"): one said of
                    # someone is written over where it was said of them (swapped_values).
                    if sum(c.isdigit() for c in said) >= 3:
                        terms.add(said.strip().rstrip(",."))
                    continue
                if not said.isascii() and len(bare := _AROUND_VALUE_RE.sub("", said)) >= 2:
                    # not the words around the value ("想了想研不考了" retracts 研, "舞是不去了" 舞)
                    said = bare
                elif not said.isascii() and bare != said:
                    continue
                tokens = keyword_tokens(said)[:2]
                if not said.isascii() and 2 <= len(said) <= 4 and all(len(t) < 2 for t in tokens):
                    tokens = [said]  # a name the segmenter cuts into characters ("钉钉")
                for token in tokens:
                    if token not in _STOP and (len(token) >= 2 if not token.isascii() else len(token) >= 3):
                        terms.add(token)
    return terms


_ORDINAL_SUFFIXES = frozenset({"st", "nd", "rd", "th"})


def holds_any(content: str, terms: set[str]) -> bool:
    """Whether ``content`` holds one of ``terms``: Chinese ones as they are written ("阿里" in "阿里巴巴"),
    Latin ones as keyword tokens (stemmed: "teaching" holds "teach")."""
    if not terms:
        return False
    latin = {t for t in terms if t.isascii()}
    numbers = {t for t in latin if t.replace(",", "").replace(".", "").isdigit()}  # "2015", as written
    # A name as its keyword token too ("pickles" is stemmed "pickl" in the content's tokens).
    # (not the pieces of an ordinal: "4th" is no "th" of "14th", nor its "4")
    words = {w for t in latin - numbers for w in (t, *(k for k in keyword_tokens(t)
                                                        if not k.isdigit() and k not in _ORDINAL_SUFFIXES))}
    return (any(t in content or t in content.lower() for t in terms - latin) or bool(words & set(keyword_tokens(content)))
            or any(_said_in(n, content) for n in numbers))


_THIRD_PERSON_RE = re.compile(r"他|她|\b(?:he|she|they|his|her|their)\b", _I)


def without_retractions(text: str) -> str:
    """``text`` without its retracting clauses, when something else remains ("好消息，转专业申请过了！
    我已经不学土木了，下学期开始读金融" -> "好消息，转专业申请过了！下学期开始读金融")."""
    text = _without_old_values(text)
    parts = clauses(text)
    # A clause that retracts nothing by name and names a place says where the user is now ("辞职打包把东西全寄回长沙了").
    kept = [c for c in parts if not _RETRACTING_CLAUSE.search(c) or _NEW_VALUE_RE.search(c) or _GIVEN_UP_RE.search(c)
            or _RETIRED_RE.search(c)
            or _WISHED_RE.search(c)
            or (not retracted_terms(c) and places_in(c) and not _THIRD_PERSON_RE.search(c))]
    # What the user does since, said after the retraction in the same clause ("since the Hilux got written off by a roo
    # i've been driving a Nissan Navara"): it stays, without the retraction.
    kept = [c if c in kept else now.group(0) for c in parts
            if c in kept or (now := _DOING_SINCE_RE.search(c, _RETRACTING_CLAUSE.search(c).end()))]
    if not kept or kept == parts:
        return text
    return join_clauses(kept)


#: What the user does now, said after what they stopped ("… i've been driving a Nissan Navara").
_DOING_SINCE_RE = re.compile(r"\b(?:i've been|i have been|i'm now|im now|now i'm|now im|we've been|i now|we now) \w+\b.*$", _I)
#: A change only wished for ("想辞职考公", "thinking about quitting"): nothing taken back yet.
_WISHED_RE = re.compile(r"(?:想|打算|准备|考虑|要不要|该不该|能不能)[^，。！？\s]{0,3}(?:辞|离职|退|换|卖|搬|分手|放弃)|"
                        r"\b(?:thinking (?:about|of)|want to|wanna|might|planning to|considering) (?:quit|leav|sell|mov|drop|switch)\w*",
                        _I)
#: What the user did before retiring ("i used to be an engineer on the ferries before i retired", "我退休前在铁路局干了三十多年"):
#: the user's own history, no value taken back.
_RETIRED_RE = re.compile(r"退休(?:前|以前|之前)|\bbefore (?:i |I )?retir(?:ed|ing)\b", _I)
#: A retracting clause that also says the new value ("we dropped keto for Mediterranean", "改学吉他") is kept.
#: What the user gave up is how they live now ("from this month no more meat for me", "酒戒了"): kept in the correction's
#: own words (it says what changed only beside the new value: "可乐也戒了" does not make "我是左后卫" an old mention).
_GIVEN_UP_RE = re.compile(r"戒了|戒掉了|\bno more (?:red )?(?:meat|alcohol|booze|sugar|coffee|dairy|gluten|pork|beef|fish|"
                          r"smoking|cigarettes|drinking)\b", _I)
_NEW_VALUE_RE = re.compile(r"换成|改成|改学|改喝|改用|换到|转到|搬到|改名叫|改叫|推到|推迟到|延到|延期到|挪到|提前到|"
                           r"(?:当|做)(?:起了?)?全职|全职(?:妈妈|爸爸|太太|宝妈|奶爸)|家庭主[妇夫]|\bstay[- ]at[- ]home\b|\b(?:switched to|moved to|for(?! (?:me|us|now|good|a while)\b)|"
                           # ("traded it in on a Canon R7", "upgraded to a Pixel 9")
                           r"traded (?:it |them |him |her |(?:the|my|our) [\w-]+ )?in (?:on|for)|upgraded to|"
                           r"renam\w* (?:him|her|it|them|\w+ to)|new name)\b", _I)
#: A day said as month and day ("oct 2", "sept 14th"): one old value, not a word and a number.
_MONTH_DAY = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?"
#: The old value said beside the new one, taken out of the new episode: "Brisket, not Biscuit", "四年级不是三年级",
#: "switched from Italian to Korean", "dropped keto for Mediterranean".
_OLD_VALUE_EDITS = (
    (re.compile(rf",?\s*\bnot (?!{_NOT_A_VALUE})(?:the |a |an )?(?!{_NOT_A_VALUE})(?:{_MONTH_DAY}|\d[\d,.]*\d|[\w&'-]+)(?: +(?:hor|lah|leh|lor|la|lol|haha|btw|ya|yeah|ok|okay)\b)?"
                rf"(?= *(?:[—–(-]|[,.;!?{CHAT_END}]|$))", _I), ""),
    (re.compile(rf"[，,]?(?<!是)不是{_ZC}{{1,10}}?(?=[，。！？,.!?；;\s{CHAT_END}]|$)"), ""),
    (re.compile(r"\b(switched|moved|changed|went|swapped|shifted|relocated)( (?:the |my |our )?[\w'-]+(?: [\w'-]+)?)? from "
                r"(?:the |my |our )?[\w&'-]+(?: [\w&'-]+)? to\b", _I),
     r"\1\2 to"),
    # "just moved to halifax from calgary": where the user lives now, without where they came from.
    (re.compile(r"\b((?:moved|relocated|moving|relocating) (?:over |back )?to [\w&'-]+(?: [\w&'-]+)?) from [\w&'-]+"
                r"(?: (?-i:[A-Z])[\w&'-]+)?", _I), r"\1"),
    (re.compile(r"\b(?:dropped|ditched|quit|left) (?:the |my |our |a )?(?!off\b|early\b)[\w&'-]+(?: (?!off\b|early\b|out\b|back\b|up\b)[\w&'-]+)? for\b", _I),
     "switched to"),
    # "rheum switched me off plaquenil to benlysta injections": what the user is on now.
    (re.compile(r"\b(switched|moved|changed|took|taken|put) (me|us) off (?:the |my )?[\w&'-]+(?: [\w&'-]+)? (to|onto)\b", _I),
     r"\1 \2 \3"),
    # "traded the Leaf in for a Kia Niro", "traded in my civic for …"
    (re.compile(r"\btraded (?:in )?(?:the |my |our )?[\w&'-]+(?: [\w&'-]+)?(?: in)? for\b", _I), "switched to"),
    (re.compile(rf"从(?!来|小|不|没|头|此){_ZC}{{1,10}}?(换成|改成|转到|换到|搬到|搬去|调到|调去|跳槽到|跳槽去|跳到)"), r"\1"),
    # "went with a hyundai ioniq 5 instead of the ev6, …": the new value without the old one beside it.
    (re.compile(rf"\s*\b(?:instead of|rather than) (?:the |a |an |my |our )?[\w&'-]+(?: [\w&'-]+)?"
                rf"(?= *(?:[,.;!?(（—–{CHAT_END}]|$))", _I), ""),
)


def join_clauses(clauses_kept: list[str]) -> str:
    """Clauses put back together: Chinese punctuation takes no space around it; a space between two Chinese
    characters stays (chat writes it for a comma, and a later reading splits there again)."""
    joined = " ".join(c.strip() for c in clauses_kept)
    return re.sub(r"\s+(?=[，。！？；、])|(?<=[，。！？；、])\s+", "", joined).strip(" ,，;；").lstrip("！!。.、？? ")


def _without_old_values(text: str) -> str:
    for pattern, replacement in _OLD_VALUE_EDITS:
        text = pattern.sub(replacement, text)
    return text


def said_instead(text: str) -> list[str]:
    """The clauses of ``text`` that say a value in place of an old one, without the old one ("it's june 14th not the
    4th" -> "it's june 14th", "Ivy is turning 7 not 8" -> "Ivy is turning 7"): what the correction says is now true."""
    return [edited for c in clauses(text) if (edited := _without_old_values(c)) != c and edited.strip()]


def topics(text: str) -> set[str]:
    """The coarse topics ``text`` speaks of (work, home, study, pet, health, family, device, music, name,
    schedule, language, habit, deadline, money, venture, body, travel, a date on the calendar)."""
    text = text or ""
    return {name for name, pattern in TOPICS.items()
            if pattern.search(_IT_WORKS_RE.sub(" ", text) if name == "work" else text)}


#: "work" as whether a plan does ("does karting on a sunday work", "would saturday work for you"), or a job said unchanged
#: ("same job still"): no word of a job that changed.
_IT_WORKS_RE = re.compile(r"(?:^|(?<=[,.?!;:…])|(?<=[,.?!;:…] )|(?<=[\U0001F300-\U0001FAFF] )|\b(?<=so )|\b(?<=and )|\b(?<=but )|\b(?<=ok )|\b(?<=then ))"
                          r"(?:does|do|would|will|could|did|should|might|can)\b"
                          r"(?: (?!(?:i|you|u|he|she|they|we|user|users|your|my|his|her|their|our|wife|husband|partner|son|daughter)\b)[\w'-]+){0,5}? "
                          r"work\b(?! (?:at|for|as|in)\b)|"
                          # the job said unchanged ("same job still", "工作没变")
                          r"\b(?:same (?:job|work|company|role|employer)(?: still)?|still (?:at )?(?:the )?same (?:job|company|place|role))\b|"
                          r"工作(?:还是老样子|没变|没换)|还是(?:原来|老)(?:的)?(?:工作|单位|公司)", _I)


#: Words a correction and what it corrects often share without naming the old value: time and filler words.
_SHARED_NOT_VALUES = frozenset("""最近 现在 之前 以前 上次 今天 昨天 明天 每天 一直 还是 感觉 觉得 有点 时候 我家 哈哈 真的
已经 其实 然后 不过 这边 那边 一下 好像 知道 问题 东西 lol haha yeah okay time day week month year today lately
thing stuff really just like""".split())
#: A clause that speaks of something as past or given away ("之前那台小米给我妈用了", "the jeep is gone").
_PAST_RE = re.compile(r"是去年的事|是以前的事|是之前的事|\bthat was (?:last year|before)\b|之前|以前|原来|原先|那台|那只|那辆|给了|送给|送人|卖了|没了|不再|别再|不用了|\b(?:gone|used to|old|former|"
                      r"previous|ex|sold|gave (?:it )?away|got rid|no more|any ?more|any longer)\b", _I)


def _value_words(clause: str) -> set[str]:
    """The words of ``clause`` as written that could name a value: not stopwords or fillers."""
    latin = {w.lower() for w in re.findall(r"[A-Za-z][\w'-]*[A-Za-z0-9]|\d+", clause)}
    cjk = {t for t in keyword_tokens(clause) if not t.isascii()}
    return {w for w in latin | cjk if w not in _STOP and w not in _SHARED_NOT_VALUES and w not in EN_STOPWORDS
            and len(w) >= (3 if w.isascii() else 2)}


def _said_in(word: str, text: str) -> bool:
    """Whether ``word`` is written in ``text``: a Chinese word anywhere, a Latin one as a whole word."""
    if not word.isascii():
        return word in text
    return re.search(rf"(?<![A-Za-z0-9_-]){re.escape(word)}(?![A-Za-z0-9_-])", text, _I) is not None  # "月4000" holds 4000


#: A value said to stay as it was ("still in ottawa", "地点还是厦门"): not an old mention.
_STILL_RE = re.compile(r"\b(?:still|same)\b|还是|仍然|依然|照样|照旧|没变|不变", _I)


#: How many of what the user keeps or runs ("80亩地" -> "一共120亩了", "my 2 dogs" -> "3 dogs", "4 staff").
COUNT_RE = re.compile(r"(?<![\d一二两三四五六七八九十俩仨第])(?P<n>[\d一二两三四五六七八九十俩仨]{1,6})\s?(?P<u>亩|公顷|头牛|头猪|只羊|条狗|只猫|个?娃|个?孩子|个员工|名员工|个店员|[个名]学徒|[个名]徒弟|峰(?:骆驼)?(?![县山镇村区])|口(?:网箱|鱼塘|塘|井)|个大棚|箱蜂|群蜂)|一家(?P<k>[一二两三四五六七八九十\d])口|"
                      r"\b(?P<m>\d{1,6}|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(?:[a-z]+\s+)?(?P<v>acres|"
                      r"hectares|cows|cattle|sheep|ewes|lambs|goats|pigs|horses|hens|dogs|cats|staff|employees|hives|chickens|"
                      r"apprentices)\b|"
                      # a family's children in words ("three kids under ten", "we're four kids now"), not "25 kids" of a class
                      r"(?:^|(?<=[,.;!?])\s*|\b(?:we have|i have|we've got|i've got|we're|we are|now|with|of|mum of|mom of|dad of|"
                      r"mother of|father of|raising|got) )(?P<w>two|three|four|five|six|seven|eight|nine|ten) (?P<c>kids|children)\b|"
                      # guests, as a number of them or a count said ("~90 guests", "guest count is now 120", "宾客120位")
                      r"(?:(?<=~)|(?<=about )|(?<=around )|(?<=roughly )|(?<=inviting )|(?<=invite )|(?<=expecting )|(?<=having )|"
                      r"(?<=have )|(?<=with )|(?<=, )|^)(?P<g>\d{2,4})\s?(?:guests|wedding guests)\b|\b(?:guest count|guest list)(?: is| was)?(?: now| up to|"
                      r" down to| at)?\s+~?(?P<h>\d{2,4})\b",
                      re.IGNORECASE)


def counts(text: str) -> dict[str, set[str]]:
    """The numbers ``text`` gives of each thing counted ({"亩": {"40", "120"}})."""
    out: dict[str, set[str]] = {}
    for m in COUNT_RE.finditer(text):
        unit = "口" if m.group("k") else "kids" if m.group("c") else "guests" if m.group("g") or m.group("h") else \
            (m.group("u") or m.group("v")).lower().removeprefix("个").removeprefix("名").removesuffix("骆驼")
        out.setdefault(unit, set()).add(_as_number((m.group("n") or m.group("m") or m.group("k") or m.group("w")
                                                    or m.group("g") or m.group("h")).lower()))
    return out


_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "俩": 2, "仨": 3, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_EN_NUMBERS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}


def _as_number(said: str) -> str:
    """A count as digits ("两" -> "2", "八十" -> "80", "120" as it is); a form it cannot read, as written."""
    if said.isdigit():
        return str(int(said))
    tens, _, ones = said.partition("十")
    if "十" in said and all(c in _ZH_DIGITS for c in tens + ones):
        return str((_ZH_DIGITS[tens] if tens else 1) * 10 + (_ZH_DIGITS[ones] if ones else 0))
    return str(_ZH_DIGITS[said]) if said in _ZH_DIGITS else str(_EN_NUMBERS[said]) if said in _EN_NUMBERS else said


def _counts_anew(clause: str, replaced: Sequence[str]) -> bool:
    """Whether a clause gives a number of something the replaced statements gave another number of ("so 3 dogs na
    lol" beside "my 2 dogs Choco and Mocha"): it says what changed."""
    said = counts(clause)
    before: dict[str, set[str]] = {}
    for text in replaced:
        for unit, numbers in counts(text).items():
            before.setdefault(unit, set()).update(numbers)
    return any(unit in before and not numbers & before[unit] for unit, numbers in said.items())


def without_old_mentions(text: str, replaced: list[str], new_values: Sequence[str] = (),
                         old_values: Sequence[str] = (), still_true: Sequence[str] = ()) -> str:
    """``text`` without its clauses that still speak of the values it replaces: a clause holding a word, as
    written, that only the replaced memories and it share, when another clause says what changed or the clause
    itself speaks of the past ("之前那台小米给我妈用了，现在换成iPhone 15了" -> "现在换成iPhone 15了";
    "旺财是楼下邻居家那只" beside "我家狗其实叫来福"; "the jeep is gone, traded it in for a rav4"). A clause holding
    one of ``new_values`` (the slot values the message fills again) says what changed too ("got a pixel 8 lol, the
    iphone battery was completely done" -> "got a pixel 8 lol"); a clause holding a word of one of ``old_values``
    (the values it replaces: "小米13") goes too ("想问下怎么把相册从小米云同步过来"). The clauses saying what changed keep
    their words, as do the words of ``still_true`` (what stays of the replaced statements: "emory and duke only" after
    "dropping wharton", beside "my top schools are emory and duke"), and something always remains."""
    parts = clauses(text)
    old = [r for r in replaced if r]
    if len(parts) < 2 or not old:
        return text
    new = [v.lower() for v in new_values if v and len(v) >= 2]
    changing = [c for c in parts if (_CHANGE_RE.search(c) and (_NEW_VALUE_RE.search(c) or (
        not retracted_terms(c) and not _RETRACTING_CLAUSE.search(c)))) or any(v in c.lower() for v in new)
                or _counts_anew(c, old)]
    kept_words = set().union(*(_value_words(c) for c in [*changing, *still_true]))
    # The old values' words, and the Chinese words of what is replaced, as written ("小米" of "小米12的电池真不行了" in
    # "小米云", which is one word to the segmenter).
    old_terms = {t for v in old_values for t in {v, *keyword_tokens(v)}
                 if (len(t) >= 2 if not t.isascii() else len(t) >= 3) and t not in _STOP and t not in kept_words}
    # (a place both name is no old value unless it is one: "岗位想报武汉海关" beside "我在武汉同济药剂科干了四年")
    old_terms |= {w for o in old for w in _value_words(o) if not w.isascii() and places_in(w) != [w]} - kept_words
    kept = []
    for clause in parts:
        if clause not in changing and (changing or _PAST_RE.search(clause)) and not _STILL_RE.search(clause):
            if any(_said_in(w, o) for w in _value_words(clause) - kept_words for o in old) or holds_any(clause, old_terms):
                continue
        kept.append(clause)
    if not kept or len(kept) == len(parts):
        return text
    return join_clauses(kept)


#: Topics that name one single-valued slot's kind of value (a car make, a way to work): an older episode of
#: that topic is replaced by a newer value of the slot, even when no pattern read the slot from it ("the oil in
#: my 2014 civic?" before "we finally got a Tesla").
SLOT_VALUE_TOPICS: dict[str, str] = {"car": "car", "commute": "commute", "phone": "phone"}

#: No topic of TOPICS's: what a correction that says a date of a birthday speaks of (episodes.corrected_items).
BIRTHDAY_TOPIC = "birthday"

#: The topics each slot speaks of: a correction of that topic replaces the slot facts heard in the same message
#: as the episode it replaces ("i bike to work" -> the commute slot, with its episode); of a slot whose values add
#: up, only when that message told one value of it (episodes.py).
SLOT_TOPICS: dict[str, frozenset[str]] = {
    "location": frozenset({"home"}), "timezone": frozenset({"home", "schedule"}),
    "employer": frozenset({"work"}), "job_title": frozenset({"work"}), "company_industry": frozenset({"work", "venture"}),
    "company_focus": frozenset({"work", "venture"}), "tech_stack": frozenset({"work", "venture"}),
    "commute": frozenset({"commute"}), "name": frozenset({"name"}), "partner": frozenset({"family"}),  # see PARTNER_SAID_RE
    "car": frozenset({"car"}), "phone": frozenset({"phone"}), "education": frozenset({"study"}), "budget": frozenset({"money"}),
    "birthday": frozenset({"family", "name", BIRTHDAY_TOPIC}), "reply_style": frozenset(),
    # Slots whose values add up: replaced when a correction of their topic is closest to them in meaning, or with
    # the episode of a message that told one value of them.
    "child": frozenset({"family", "study", "age"}), "family": frozenset({"family", "age"}), "pet": frozenset({"pet", "age"}), "project": frozenset({"venture", "deadline"}),
    "instrument": frozenset({"music"}), "diet": frozenset({"health"}), "health": frozenset({"health"}),
}


#: Words of who the user's partner is: a correction of the family that says none of them ("change of plans. Bev's havin
#: knee surgery so the big trip's off") replaces no partner fact ("we got married on saturday!" does: fiancé no more).
PARTNER_SAID_RE = re.compile(r"老公|老婆|丈夫|妻子|爱人|媳妇|对象|男朋友|女朋友|男友|女友|老伴|另一半|前任|未婚[夫妻]|结婚|订婚|领证|分手|离婚|"
                             r"\b(?:husband|wife|wifey|hubby|partner|spouse|missus|boyfriend|girlfriend|bf|gf|ex|"
                             r"fianc[eé]e?|married|engaged|divorced?|split up|broke up|separated)\b", _I)


#: A name the user's words give to a pet, a child or partner, or a project: later, the name alone says what a
#: message speaks of ("Mochi's actually 6" of the cat in "my cat Mochi is 4", "豆豆上个月走了" of "我家狗豆豆").
EN_KIN = r"son|daughter|kid|baby|grandson|granddaughter|grandkid|stepson|stepdaughter|husband|wife|partner|boyfriend|girlfriend|fianc[eé]e?|gf|bf|hubby|missus"
_EN_VENTURES = r"project|app|game|startup|podcast|channel|newsletter|shop|store|band|blog|brand|business|book|novel"
ZH_KIN = r"儿子|女儿|闺女|孩子|宝宝|老公|老婆|男朋友|女朋友|对象"
_ZH_VENTURES = r"项目|游戏|小程序|网店|店|公众号|账号|频道|播客|品牌|工作室|乐队|小说"
_ZH_NAMING = r"(?:的名字)?(?:叫做?|名叫|取名叫?|起名叫?|名字?改成|改名(?:叫|为|成)?)"
_EN_NAMES = (
    ("pet", re.compile(rf"\b(?:{EN_PETS}|pup)s?,?\s+(?P<n>[A-Z][a-z][\w'-]*)")),  # "my cat Mochi", case as written
    ("family", re.compile(rf"\b(?:{EN_KIN})s?,?\s+(?P<n>[A-Z][a-z][\w'-]*)")),
    ("pet", re.compile(rf"\b(?:{EN_PETS}|pup)s?\b[^.,;?]{{0,24}}?\b(?:named|called)\s+(?:(?:her|him|it|them)\s+)?(?P<n>[\w'-]+)", _I)),
    ("family", re.compile(rf"\b(?:{EN_KIN})s?\b[^.,;!?]{{0,24}}?\b(?:named|called)\s+(?P<n>[\w'-]+)", _I)),
    ("venture", re.compile(rf"\b(?:{_EN_VENTURES})\s+(?:is\s+)?(?:called|named)\s+(?P<n>[\w'-]+)", _I)),
    ("pet", re.compile(rf"\b(?:{EN_PETS}|pup)(?:'s name)? (?:is|was) (?P<n>[A-Z][a-z][\w'-]*)")),  # "my dog is Max"
    # "the shelter called her Pepper", "we're calling her Juno now"
    ("pet", re.compile(r"\b(?:shelter|breeder|rescue|foster)s? (?:called|named) (?:her|him|it) (?P<n>[\w'-]+)", _I)),
    ("pet", re.compile(r"\bcalling (?:her|him|it) (?P<n>[\w'-]+) now\b", _I)),
    # "the kids held a vote and he's Dorrit now" (a name given by a vote or a choice, as written: not "she's Australian now")
    ("pet", re.compile(r"\b(?i:voted?|decided|picked|chose|agreed)\b[^.!?]{0,40}?\b(?:[Hh]e|[Ss]he|[Ii]t)(?:'s| is) "
                       r"(?P<n>[A-Z][a-z][\w'-]*) now\b")),
    # "we just adopted a kitten …, she's a tabby, we named her Pickle": a pet named a clause or two after it was said
    # (or "…, and we're calling him Captain Flint": a name of two words, as written)
    ("pet", re.compile(rf"\b(?:{EN_PETS}|pup)s?\b[^.;!?]{{0,60}}?\b(?:[Ww]e|[Ii])(?:'ve| have|'re| are|'m| am)? (?:named|called|calling|naming) (?:her|him|it) (?!(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|"
               r"Today|Tonight|Yesterday)\b)(?P<n>[A-Z][\w'-]+(?: (?!I\b)[A-Z][\w'-]+)?)")),
)
_ZH_NAMES = (
    ("pet", re.compile(rf"(?:{'|'.join(sorted(ZH_PETS.split('|'), key=len, reverse=True))})(?:{_ZH_NAMING})?"
                       rf"(?!{ZH_PETS}|叫)(?P<n>{_ZC}{{2,8}})"), False),
    # (a space only before 叫: "对了猫也改名了 叫壶底")
    ("pet", re.compile(rf"(?:{ZH_PETS})(?:[^，。！？,.!?\s]|\s(?=叫)){{0,8}}?{_ZH_NAMING}(?P<n>{_ZC}{{2,8}})"), True),
    ("family", re.compile(rf"(?:{ZH_KIN})[^，。！？,.!?\s]{{0,6}}?{_ZH_NAMING}(?P<n>{_ZC}{{2,8}})"), True),
    # a child named right after the word ("儿子豆豆5岁", "女儿小满上大班"): a name doubled or led by 小/阿
    ("family", re.compile(r"(?:儿子|女儿|闺女|大宝|二宝|孙子|孙女|外孙女?)(?P<n>(?!天天|常常|偷偷|慢慢|刚刚|悄悄|好好|渐渐|明明|白白|早早|乖乖|往往|"
                          r"默默|紧紧|轻轻|每每|时时|处处|天天|哈哈|多多|稍稍|暂暂)(?P<twice>[\u4e00-\u9fff])(?P=twice)|[小阿]"
                          r"(?!学|时|区|孩|朋友|姐|妹|弟|哥|家|年|班|些|会)[\u4e00-\u9fff])"
                          r"(?=\d|[一二三四五六七八九十两]+岁|今年|现在|刚|上|读|在|[\s，,。！!]|$)"), True),
    # "领养了一只小橘猫 大概三个月 先叫它咪咪吧": the pet named a few words later.
    ("pet", re.compile(rf"(?:{ZH_PETS})[^。！？!?]{{0,16}}?(?:叫它|叫他|叫她|给它取名叫?|给它起名叫?|取名叫?|起名叫?)(?P<n>{_ZC}{{2,8}})"), True),
    ("venture", re.compile(rf"(?:{_ZH_VENTURES}){_ZH_NAMING}[《“\"「]?(?P<n>{_ZC}{{2,12}})"), True),
)
#: A name in quotes after a word of naming is the whole quoted phrase ("店名改成“橘里橘气”了"), not its first word.
#: (a name in quotes right after what it names is one too: "我家猫“团子”今年12岁了", "一只小土狗，叫“馒头”")
_ZH_QUOTED_NAME = re.compile(rf"(?P<k>{ZH_PETS}|{ZH_KIN}|{_ZH_VENTURES})(?:[，,]?\s*{_ZH_NAMING})?[《“\"「](?P<n>[^》”\"」，。！？]{{2,12}})[》”\"」]")
_TITLE_RE = re.compile(r"《(?P<n>[^》]{1,20})》|「(?P<m>[^」]{1,20})」")
_NOT_NAMES = frozenset("""the a an and is was has had who that this but so with from for because when while""".split())


def names(text: str) -> dict[str, str]:
    """The names ``text`` gives to a pet, a child or partner, or a project, each with its topic."""
    found: dict[str, str] = {}
    for topic, pattern in _EN_NAMES:
        for match in pattern.finditer(text or ""):
            name = match.group("n").strip("'").lower()
            if len(name) >= 2 and name not in _NOT_NAMES and name not in EN_STOPWORDS and name not in _STOP:
                found.setdefault(name, topic)
    if _NAME_DROPPED_CUE_RE.search(text or ""):
        for match in _NAME_INSTEAD_EN_RE.finditer(text or ""):
            found.setdefault(match.group("n").lower(), "pet" if re.search(rf"\b(?:{EN_PETS}|pup)", text, _I) else "family")
    for match in _TITLE_RE.finditer(text or ""):
        found.setdefault((match.group("n") or match.group("m")).strip(), "venture")
    quoted = []
    for match in _ZH_QUOTED_NAME.finditer(text or ""):
        kind, name = match.group("k"), match.group("n").strip()
        quoted.append(name)
        found.setdefault(name, "pet" if re.fullmatch(ZH_PETS, kind) else "family" if re.fullmatch(ZH_KIN, kind) else "venture")
    for topic, pattern, named in _ZH_NAMES:
        for match in pattern.finditer(text or ""):
            word, flag = _first_word(match.group("n"))
            if any(q != word and q.startswith(word) for q in quoted):
                continue  # the first word of a name in quotes ("小橘" of "小橘烘焙")
            # Without "叫", only a noun-like word right after the pet's kind ("我家狗豆豆"), not "我家猫最近…".
            if len(word) >= 2 and word not in _STOP and word not in _SHARED_NOT_VALUES and (
                    named or match.group(0).find("叫") >= 0 or flag[:1] in ("n", "a")):
                found.setdefault(word, topic)
    for match in _ZH_NOT_CALLED.finditer(text or ""):
        # "狗现在不叫大福了 … 改成铜锣烧了": the name it is called now
        word = match.group("n")
        if word not in _STOP and word not in _SHARED_NOT_VALUES:
            found.setdefault(word, "pet" if re.search(ZH_PETS, text) else "family")
    for match in _ZH_KIN_NAMED.finditer(text or ""):
        # "女朋友小鹿下周生日", "闺女朵朵三年级": a name right after the word of kin, read as a name ("nr") or written as one
        word, flag = _first_word(match.group("n"))
        if word not in _STOP and word not in _NOT_KIN_NAMES and (
                (flag == "nr" and len(word) <= 3) or (_ZH_GIVEN_NAME.fullmatch(word) and flag[:1] not in ("n", "t", "m", "d", "v", "s", "f", "z", "o"))):
            found.setdefault(word, "family")
    return found


#: A name no longer used, then the one given instead ("不叫大福了 我对象说大福撞名太多 改成铜锣烧了").
_ZH_NOT_CALLED = re.compile(rf"不叫(?!唤|醒|外卖|车|人|快递|滴滴|代驾|声|了){_ZC}{{1,8}}?了[^。！？]{{0,20}}?(?:改成|改叫|换成|现在叫)(?P<n>{_ZC}{{2,6}}?)(?=了|啦|吧|[\s，。！？,.!?]|$)")
#: A name said right after the word of a child or partner (no "叫"), and the shapes of a Chinese pet name or nickname.
_ZH_KIN_NAMED = re.compile(rf"(?:{ZH_KIN})(?!{ZH_KIN})(?P<n>[\u4e00-\u9fff]{{2,8}})")
#: Words jieba tags as a person's name that are none ("宝宝过敏了", "儿子康复出院了").
_NOT_KIN_NAMES = frozenset("过敏 幼儿园 康复 明白 安静 宝贝 小学生 小升初 悄悄 哈哈".split())
_ZH_GIVEN_NAME = re.compile(r"([\u4e00-\u9fff])\1|[小阿][\u4e00-\u9fff]")


def _first_word(text: str) -> tuple[str, str]:
    """The first word of Chinese ``text`` with its part of speech (jieba's tags: "n" noun, "nr" name ...)."""
    from jieba import posseg

    from ..text.tokenize import _default_tokenizer

    global _pos_tokenizer
    if _pos_tokenizer is None:
        _pos_tokenizer = posseg.POSTokenizer(_default_tokenizer())
    pairs = iter(_pos_tokenizer.cut(text))
    first = next(pairs, None)
    if first is None:
        return "", ""
    second = next(pairs, None)
    if len(first.word) == 1 and second is not None and len(second.word) == 1 and _is_cjk_char(second.word) \
            and second.flag[:1] in ("n", "a", "g"):
        # A name the dictionary does not know comes in two characters ("旺财" is 旺 + 财).
        return first.word + second.word, first.flag
    return first.word, first.flag


def _is_cjk_char(char: str) -> bool:
    return "\u4e00" <= char <= "\u9fff"


_pos_tokenizer = None


def named_topics(text: str, known: dict[str, str]) -> set[str]:
    """The topics of the ``known`` names (:func:`names` of the user's memories) that ``text`` mentions."""
    return {topic for name, topic in known.items() if _said_in(name, text)}


#: A pet or someone of the household gone, said of their name ("豆豆上个月走了…", "Rocco passed last week").
_GONE_AFTER_NAME = (r"(?:\s*(?:上个月|上周|上个礼拜|上礼拜|上个星期|前几天|前天|昨天|去年|今年|最近|已经|也|终于|还是|突然|前阵子|前段时间|[春夏秋冬]天|年初|"
                    r"年底|月初|月底|那天|(?:\d+|[一二三四五六七八九十两])个?(?:月|周|天|年)前))*\s*(?:走了|没了|不在了|去世|过世|(?:老|病)?死了|丢了|"
                    r"离开了?我们|去了[喵汪]星|寿终正寝)|\s+(?:passed|died|is gone|has passed|crossed the rainbow bridge)\b")


#: Words that say a pet, a child or a project has another name now.
_RENAMED_RE = re.compile(r"改名|改叫|改成叫|名字?改成|换了?个?名字?|不叫(?!唤|醒|外卖|车|人|快递|滴滴|代驾|声|了)[^，。！？\s]{1,8}了[^。！？]{0,20}?(?:改成|改叫|换成|现在叫)|名字.{0,6}(?:记错|说错|搞错|改了)|\b(?:renam\w*|new name|"
                         r"changed (?:her|his|its|their|the|my|our) name)\b", _I)


#: A name given as the name from now on.
_NOW_NAMED_RE = re.compile(r"(?:现在|如今|已经|正式)(?:改)?叫|改名(?:叫|为|成)|名字?改成|新名字|"
                           r"\b(?:voted?|decided|picked|chose|agreed)\b[^.!?]{0,40}?\b(?:he|she|it)(?:'s| is) (?-i:[A-Z])[\w'-]+ now\b|"
                           r"\bscratch that name\b|\bname (?:never|didn'?t) st[iu]ck|\b(?:now called|now named|officially (?:called|named)|"
                           r"(?:called|named) \w+ now|(?:calling|call) (?:her|him|it|them) \w+ now)\b", _I)


#: A value said right beside the one it replaces: "its Fionn not Finn", "keisha's 15 not 16", "他叫豆豆 不是逗逗".
_SWAP_RES = (
    re.compile(r"(?:\b(?P<s>[\w-]+)(?: (?:is|are|was)|'s)|^its|(?<=[\s,.!])its) (?:a |an |the )?(?P<n>\d[\d,.]*\d|\d|[\w&'-]+),? not "
               r"(?:a |an |the )?(?P<o>\d[\d,.]*\d|\d|[\w&'-]+)\b(?! (?:yet|at all|really|sure|too|that|so|very)\b)", _I),
    re.compile(r"(?:叫|名字是|名字叫)(?P<n>[\u4e00-\u9fffA-Za-z]{1,6}?)[，,\s]?(?:而)?不是(?:叫)?(?P<o>[\u4e00-\u9fffA-Za-z]{1,6}?)"
               r"(?=[，。！？,.!?；;\s\U0001F300-\U0001FAFF]|$)"),
)
_ORDINAL_RE = re.compile(r"\d{1,2}(?:st|nd|rd|th)", re.IGNORECASE)
_NO_SUBJECT = frozenset({"it", "that", "this", "there", "he", "she", "they", "we", "i", "you", "what", "which", "who"})


def swapped_values(text: str) -> dict[str, str]:
    """The values ``text`` says in place of others, old (lower case) to new as written: a name ({"finn": "Fionn"}: both
    capitalised as names are), a number said of someone or something ({"keisha 16": "15"}: only where it is said of
    them), a day of the month ({"14th": "18th"}), a Chinese name ("他叫豆豆 不是逗逗"). Not two ordinary words ("the sauce is sweet, not spicy"), nor a number
    said of no one ("the standup is at 9 not 10")."""
    out: dict[str, str] = {}
    for pattern in _SWAP_RES:
        for match in pattern.finditer(text or ""):
            new, old = match.group("n").strip(), match.group("o").strip()
            if not new or not old or new.lower() == old.lower():
                continue
            if not old.isascii():
                if old not in new and new not in old and old not in _STOP:
                    out[old] = new
                continue
            if old.replace(",", "").isdigit() and new.replace(",", "").isdigit():
                subject = (match.groupdict().get("s") or "").lower()
                if subject and subject not in _NO_SUBJECT and subject not in EN_STOPWORDS:
                    out[f"{subject} {old}"] = new
            elif old[:1].isupper() and new[:1].isupper() and old.lower() not in EN_STOPWORDS:
                out[old.lower()] = new
            elif _ORDINAL_RE.fullmatch(old) and _ORDINAL_RE.fullmatch(new):
                out[old.lower()] = new  # a day of the month ("Sam's bday is the 18th not the 14th")
    return out


#: Ages said in words ("Rex is nine"), which a swap reads as it reads digits.
_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
                          "seventeen eighteen nineteen twenty".split())


def with_swapped(text: str, swaps: dict[str, str]) -> str:
    """``text`` with each old value of ``swaps`` written as its new one: a name as a whole word ("the dog Finn is the ring
    bearer" -> "… Fionn …", not "Finnish"), a number only where it is said of its subject ("my daughter keisha is 16 and
    …" -> "… is 15 …", not "shift ends 16:30"), a Chinese name as written."""
    for old, new in swaps.items():
        subject, _, number = old.rpartition(" ")
        if subject and (number.replace(",", "").isdigit() or number.lower() in _NUMBER_WORDS):
            # (a number in words as a whole word: "Max listens well and is ten" is not "liselevens")
            said = rf"(?<![\d.:,]){re.escape(number)}(?![\d:]|[.,]\d)" if number[0].isdigit() \
                else rf"\b{re.escape(number)}\b"
            text = re.sub(rf"(\b{re.escape(subject)}\b(?:'s)?[^.!?;\d]{{0,24}}?){said}",
                          lambda m, n=new: m.group(1) + n, text, flags=re.IGNORECASE)
        elif old.isascii():
            text = re.sub(rf"(?<![\w'-]){re.escape(old)}(?![\w-])", lambda m, n=new: n, text, flags=re.IGNORECASE)
        else:
            text = text.replace(old, new)
    return text


def renames(text: str) -> bool:
    """Whether ``text`` gives something a new name ("改名叫可乐了", "she's officially called Pickles now")."""
    return bool(_RENAMED_RE.search(text or "") or _NOW_NAMED_RE.search(text or "")
                or (_NAME_DROPPED_CUE_RE.search(text or "") and _NAME_INSTEAD_RE.search(text or "")))


#: Words that drop a name ("不叫麻薯", "Captain Flint didn't quite stick", "wouldn't answer to it").
_NAME_DROPPED_CUE_RE = re.compile(r"不(?:再)?叫|\b(?:didn't|did not|never|doesn't) (?:quite |really |ever )?stick\b|"
                                  r"\b(?:wouldn't|won't|doesn't|didn't|never) (?:answer|respond)(?:s|ed)? to\b", _I)
#: The name said instead, after a name dropped: "so he's Biscuit after all".
_NAME_INSTEAD_EN_RE = re.compile(r"\b(?:he|she|it)(?:'s| is) (?P<n>(?-i:[A-Z])[a-z]+(?: (?-i:[A-Z])[a-z]+)?) (?:now|after all|instead)\b", _I)


def gone(text: str, known: dict[str, str]) -> set[str]:
    """The ``known`` names that ``text`` retires: of a pet or someone of the household said to be gone ("走了" of a
    pet is not "he left"), or any name mentioned in a message that says it was renamed ("we ended up renaming him
    waffles, he never responded to duke anyway")."""
    text = cantonese_as_mandarin(text or "")  # "芝士上个礼拜走咗" is "走了"
    if _RENAMED_RE.search(text) or _NOW_NAMED_RE.search(text):
        renamed = {name for name in known if _said_in(name, text)}
        if renamed:
            return renamed
        if _NOW_NAMED_RE.search(text):
            # A new name said to be the name now ("游戏现在叫《灯塔守夜人》") retires the one name the user gave that
            # kind of thing before.
            for name, topic in names(text).items():
                same = {k for k, t in known.items() if t == topic}
                # One name, however it was read ("白鲸湾" and its first word "白鲸").
                if name not in known and len({k for k in same if not any(k != o and k in o for o in same)}) == 1:
                    return same
    return {name for name, topic in known.items() if topic in ("pet", "family")
            and (re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])(?:{_GONE_AFTER_NAME})" if name.isascii()
                           else rf"{re.escape(name)}(?:{_GONE_AFTER_NAME})", text or "", _I)
                 or (topic == "family" and name in parted(text or ""))  # "marisol n i split in april"
                 or (topic == "family" and not _IF_RE.search(text or "") and re.search(_PARTED.format(
                n=rf"(?<![\w-]){re.escape(name)}(?![\w-])" if name.isascii() else re.escape(name)), text or "", _I))
            or (topic == "pet" and re.search(_GIVEN_AWAY.format(
                     n=rf"(?<![\w-]){re.escape(name)}(?![\w-])" if name.isascii() else re.escape(name)), text or "", _I))
            or (not _IF_RE.search(text or "") and (set(names(text or "")) - set(known) or _NAME_INSTEAD_RE.search(text or ""))
                and re.search(_NAME_DROPPED.format(
                n=rf"(?<![\w-]){re.escape(name)}(?![\w-])" if name.isascii() else re.escape(name)), text or "", _I)))}


#: A name said not to be the one ("我家猫叫麦芽 不叫麻薯", "Captain Flint didn't quite stick", "he wouldn't answer to Duke");
#: ``{n}`` the name.
_NAME_DROPPED = (r"不(?:再)?叫{n}(?=\s|$|[，,。！!~～了]|(?:叫|而是))|"
                 r"\b{n} (?:didn't|did not|never|doesn't|does not) (?:quite |really |ever )?stick\b(?!\s+(?:to|with|around|by|at|out|together))|"
                 r"\b(?:wouldn't|won't|doesn't|didn't|never) (?:answer|respond)(?:s|ed)? to {n}\b")
#: A new name said beside it ("so he's Biscuit after all", "我家猫叫麦芽"): a name dropped only for another.
_NAME_INSTEAD_RE = re.compile(r"\b(?:he|she|it)(?:'s| is) (?-i:[A-Z])[a-z]+(?: (?-i:[A-Z])[a-z]+)? (?:now|after all|instead)\b|"
                              r"叫[\u4e00-\u9fff]{2,4}", _I)


#: A pet given to someone else ("my aunt took pickle in", "we rehomed Bolt", "把豆豆送给我姑了"); ``{n}`` its name.
_GIVEN_AWAY = (r"\b(?:took|taken|takes|taking) {n} in\b|\brehom\w* {n}|\bgave {n} (?:away|up)\b|"
               r"{n} (?:went|moved|is going|has gone) to live with\b|{n}(?:送人了|送给|送走了|交给|给[^，。！？\s]{{1,4}}(?:带回家|带走|接走)?养了)|"
               r"{n}送(?!回)(?:到|去|给)?[^，。！？\s]{{1,6}}家(?:养|去)了(?![^。！？]{{0,20}}(?:几天|周末|出差|旅游|度假|寄养|去接|接回))|"
               r"把{n}(?:送人|送给|送走|给了|交给)")
#: The user parted from a partner named before ("跟小鹿分了", "broke up with ola", "ola and i split"); ``{n}`` the name.
_PARTED = (r"(?:跟|和|与){n}(?:已经|也|还是)?(?:分手|离婚|掰了|分了(?=$|[\s，。！!？?~～]))|\b(?:broke up with|split (?:up )?with|divorced|dumped) {n}\b|"
           r"\b{n} (?:and|&|n) (?:i|me) (?:broke up|split up|separated|divorced)\b|\b{n} dumped me\b|"
           r"\b{n}(?:'s| is) out of the picture\b|"
           # "分了。别提阿屿了"
           r"(?<![\d一二三四五六七八九十百几多都给])(?:分了|分手了?|掰了)[^。！？]{{0,4}}[。！!，,\s]*别(?:再)?提{n}")
#: Words of a parting only wished for or supposed ("我不想跟小鹿分手", "如果我跟小鹿分了", "what if I left Ola").
_IF_RE = re.compile(r"不想|不要|要是|如果|假如|万一|会不会|\b(?:what if|if|don't want|should i|thinking (?:about|of))\b", _I)
