"""Episodes: what the user said about themselves, kept in their words, whatever slot it fits or not.

The extraction of a session (working/extract.py) asks the disclosure classifier (working/disclosure.py)
about each user message and each of its sentences. A message that discloses something lasting about
the user becomes one ``episode`` memory: the sentences that do (or the whole message), with the
message's session, turn and time, and, in its ``value``, the slots the extractor filled from the same
message (``{"slots": ["employer"]}``), so that a later statement can find the episodes it corrects.

A message that corrects something (the classifier's judgement, or a word saying something changed)
supersedes the user's earlier memories about the same thing, as working/corrections.py describes: what it
names as retracted, the episodes that filled the same single-valued slot (this one also without a correction:
a slot's new value), else the one episode or slot fact of the same topic closest in meaning (cosine of the
bundled embedder's vectors at least CORRECTION_MIN_COSINE, or CUE_MIN_COSINE when only a word says something
changed). Requests, small talk, hypotheticals and facts
about other people are not kept: a message whose first clause speaks of someone outside the user's household
("我表哥在华为上班，…", "My sister just moved …", "老王下个月要调去西安") keeps only its clauses with the user as their
subject, and the slot facts said in them ("我妈…在老家洛阳，我在上海工作"), and a condition ("If my knee ever heals …")
is left out of any episode. A new place to live replaces the episodes that named another place with no trip in them
(each episode keeps the places it names, ``value["places"]``). A one-sentence message the classifier does not keep whole is read
clause by clause, since a fact and a request often share one sentence ("im a nurse, working nights, how do
people cope").
"""
from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import functools
import itertools
import operator
import re
from collections.abc import Sequence

import numpy as np
from django.db.models import Q
from django.utils import timezone

from ..backends import get_embedder
from ..backends.extractors.base import BOOKKEEPING_TAGS, TurnText, is_chinese
from ..backends.extractors.context_tags import context_tags
from ..backends.extractors.lexicon import places_in
from ..backends.extractors.patterns import (
    COMMUTE_SAID_RE,
    EN_PETS,
    EN_TITLES,
    WORKMATE_AT_RE,
    ZH_PETS,
    ZH_TITLES,
)
from ..memory.guard import instruction_signals
from ..models import MemoryItem, Turn
from ..models.fields import exact_cosine_distance
from ..text import keyword_tokens, split_sentences
from ..text.dialect import cantonese_as_mandarin
from ..types import MemoryDraft
from . import amounts, corrections, disclosure
from .grounding import (
    PERSON_EN,
    PERSON_ZH,
    about_another_person,
    introductions,
    named_another,
    pronoun_about_another,
)

#: Longest episode kept, in characters (a long message keeps its disclosing sentences).
MAX_CHARS = 600
#: Most sentences of one message scored one by one.
MAX_SENTENCES = 12
#: A one-sentence message at most this long (characters of Chinese, words of English) whose slots were filled
#: gets no episode beside its slot facts.
SHORT_ZH, SHORT_EN = 24, 10
#: A message under the keep threshold that retracts a value by name is still kept from this score on.
RETRACTION_KEEP = 0.3
#: A message of several sentences is kept when one of them scores this much alone: a long message tells
#: its one fact among others ("Thanks! ... I just signed up for a pottery class yesterday. ..."), and the
#: whole is scored lower for the rest. Chosen on the development conversations and LoCoMo dev.
SENTENCE_KEEP = 0.4
#: A one-sentence message read clause by clause is kept for one clause only when the whole scores this much
#: (a passing mood split at its comma, "周一综合症又犯了，啥都不想干", must not pass for a fact).
CLAUSE_WHOLE_MIN = 0.2
#: A sentence of a disclosing message scored under this (and every question) is left out of its episode.
SENTENCE_DROP = 0.15
#: A session is a transcript between people (a chat or meeting log replayed turn by turn, "Caroline: ...") when
#: at least this many of its user messages, and TRANSCRIPT_SHARE of them, begin with a speaker label naming two
#: or more speakers.
TRANSCRIPT_MIN_TURNS, TRANSCRIPT_SHARE = 4, 0.8
#: A transcript's turn is kept when one of its statements (not a question) scores this much: whatever a speaker
#: tells of their life in passing is what is asked about later; a greeting, thanks or a question alone is not.
#: Chosen on LoCoMo dev (docs/memory.md, "Transcripts").
TRANSCRIPT_KEEP = 0.05
#: Where a clause of a long sentence ends: a comma, a semicolon, a dash (the comma stays with its clause), or a
#: space between two Chinese characters, which chat uses as a comma ("我儿子上初一 数学跟不上").
_CLAUSE_RE = re.compile(r"(?<=[，；;])|(?<=,)(?!\d)|\s+[—–]\s+|(?<=[\u4e00-\u9fff] )(?=[\u4e00-\u9fff])")
_QUESTION_RE = re.compile(r"[?？]\s*$|吗\s*[。.]?$|真的假的\s*$|"
                          # a yes-or-no question with no "?" ("自我介绍要不要写英文版嘛", "这样写行不行")
                          r"(?:要不要|该不该|用不用|需不需要)"
                          r"[^，,。！!？?\s]{0,12}?(?:嘛|呢|啊|呀|哇)?\s*[。.]?$")
_HYPOTHETICAL_RE = re.compile(r"如果|假如|假设|(?<![主只就还])要是|万一|随便问问|随便聊聊|闲聊|(?:^|(?<=[,.;!?]\s))(?:(?:ok|so|and|but|like|now)\s+)?"
                              r"(?:let'?s )?say (?:i|we|my|our)\b|\b(?:(?<!ok )(?<!okay )(?<!safe )(?<!fine )(?<!alright )(?<!bad )(?<!weird )"
                              r"(?<!normal )(?<!possible )(?:if i|if we|if my|if our)|imagine|(?<!i )suppose (?:i|we|my|our|you|that|the)|what if|hypothetically|"
                              r"just curious)\b", re.IGNORECASE)
#: A sentence that ends in a sigh is a passing mood ("财务又打回来了，唉，烦。"), not something to keep.
_MOOD_END_RE = re.compile(r"(?:唉|哎|烦|烦死了?|累死了?|无语|郁闷|崩溃|\bugh|\bsigh|\bsmh)[\s，,。.!！~～…]*$", re.IGNORECASE)
#: A transcript's speaker label: a capitalised name or a short Chinese name, then a colon.
_SPEAKER_LABEL_RE = re.compile(r"^\s*(?:[A-Z][\w'-]{1,20}(?: [A-Z][\w'-]{1,20})?|[\u4e00-\u9fff]{2,4})\s*[:：]")
#: The same label, as a PostgreSQL regular expression (for the memories a transcript's speaker may correct).
_SQL_SPEAKER_LABEL = r"^\s*([A-Z][A-Za-z'-]{1,20}( [A-Z][A-Za-z'-]{1,20})?|[一-龥]{2,4})\s*[:：]"
_HAN_RE = re.compile(r"[\u4e00-\u9fff]")
_FIRST_PERSON_RE = re.compile(r"我|咱|\b(?:i|i'm|im|i've|my|me|we|our|us)\b", re.IGNORECASE)
#: Words that take back what was said a moment ago, in the same session ("啊等下…其实是26号", "oh wait … we got bumped
#: a week later").
_TAKES_BACK_RE = re.compile(r"其实|说错|记错|搞错|弄错|打错|写错|记岔|说岔|记混|口误|不对|等下|等等|更正|纠正|改成|改到|挪到|推迟|延期|提前到|变卦|不是.{1,12}是|"
                            r"是.{1,12}不是|\b(?:actually|wait|hang on|hold on|scratch that|i mean|correction|turns out|bumped|moved (?:it )?to|"
                            r"pushed|changed|rescheduled|postponed|not\b.{1,20}\bbut|my bad|typo|oops|i misspoke|mistyped|"
                            r"fat fingers?|(?:typed|wrote|got|said) (?:that|it) wrong)\b",
                            re.IGNORECASE)
#: A message that opens by taking back what was said ("oh wait she actually turned 7", "哦不对 他已经9岁了"): with a
#: new date, age, amount or grade in it, a correction of that value whatever the classifier reads.
_LEAD_TAKES_BACK_RE = re.compile(r"^\W*(?:(?:oh|ok|okay|sorry|lol|haha|um|uh)\W+)*(?:wait|actually|correction|oops|hang on|"
                                 r"hold on|(?:哦|噢|啊|呃|额|诶|欸)?(?:不对|打错了?|写错了?|说错了?)|其实|等下|等等|更正)", re.IGNORECASE)
#: A software version bumped: "从 Go 1.19 升到 1.22", "upgrading from react 17 to 18", "bumped node to v20.11".
_VERSION_BUMP_RE = re.compile(r"\d+(?:\.\d+)+\s*(?:升级?|迁移?|更新|切换?|换)?\s*(?:到|至|->|→)\s*v?\d+(?:\.\d+)+|"
                              r"\b(?:upgrad\w*|bump\w*|migrat\w*|updat\w*)\b[^.!?]{0,40}?\bfrom\s+(?:\w+\s+)?v?\d+(?:\.\d+)*"
                              r"\s+to\s+v?\d+(?:\.\d+)*\b|"
                              r"\b(?:upgrad\w*|bump\w*)\b[^.!?]{0,30}?\bto\s+v?\d+\.\d+", re.IGNORECASE)
#: One of the assistant's suggestions turned down and a change asked of it ("所以155那个不行 得改成150+" of the titles it
#: wrote, "the second one won't work, make it shorter"): a request, not a change in the user's life (not "我之前说的那个不对").
_SUGGESTION_TURNED_DOWN_RE = re.compile(r"(?<![说讲写提周期拜点号天])(?<!说的)(?<!讲的)(?<!写的)(?:那个|这个|那条|这条|那句|这句|那版|这版|"
                                        r"第[一二三四五六七八九十\d]+[个条句段版])(?:也|还是)?不(?:行|太行|好|合适)(?!了)"
                                        r"(?=[^。！？!?]{0,12}(?:改成|换成|改为|换个|再来|重新))|"
                                        r"\b(?:that one|the (?:first|second|third|last) one) (?:won't|doesn't|does not|will not) "
                                        r"work\b[^.!?]{0,20}\b(?:make it|change it|try)\b", re.IGNORECASE)
#: Words that say the user has begun a new job.
_NEW_JOB_RE = re.compile(r"新单位|新工作|新公司|新岗位|刚入职|新入职|考上了?[\u4e00-\u9fff]{2,10}?(?:员|师|警|官)了|正式上岗|"
                         # a post begun next week, the title said ("下周一正式去健身房当教练")
                         r"(?:下周[一二三四五六日]?|下个月|明天|月底|正式)+去[\u4e00-\u9fff]{1,8}?(?:当|做)(?:个|一名|一个)?"
                         r"(?:私人|健身|驾校|代课|助理|实习)?(?:教练|老师|医生|护士|司机|店长|经理|主管|会计|保安|厨师|设计师|工程师|程序员|"
                         r"文员|客服|销售)|(?:^|(?<=[\s，,。！!]))(?:我|我也)?(?:已经|刚|终于|上个月|上周|去年)?(?:换工作了|换了(?:个|份)?工作(?!群|室|电脑|手机|服|的))|"
                         r"(?<!never )(?<!n't )(?:\bi(?:'ve| have)? (?:just |finally |recently |also )?|(?:^|(?<=[,.;!]\s)))"
                         r"(?:moved|changed|switched) jobs\b|"
                         # "自从入咗Shopee做产品设计" (Cantonese, read as "入了"): a company joined, and what the user does there
                         r"(?:^|(?<=[\s，,。！!]))(?:自从|刚|已经|上个月|今年)?入(?:了|咗)(?![台个部只款件双套把支辆块瓶盒包])(?=[A-Za-z\u4e00-\u9fff]{2,12}?(?:做|当)[\u4e00-\u9fffA-Za-z])|入职第一|入职了(?![一二三四五六七八九十两几\d]+年)|上班第一[天周]|第一[天周]上班|\b(?:(?<!bc )(?<!because )(?<!cause )(?<!cuz )(?<!since )(?<!since the )(?<!with the )new job|new job(?= (?:at|with|in|starts?|started|begins?|as)\b)|(?:^|(?<=[.!,]\s))(?:(?:so|cool|ok|and|also)\W+)?new gig (?:at|with|as)\b|first (?:day|week|month|shift) (?:at|of|in)|(?:(?:my )?first (?:day|week|month|shift)|i start) as an? (?!(?:new )?(?:mom|mum|dad|parent|mother|father|wife|"
                         r"husband|grandma|grandpa|granny|student|freshman|retiree|adult|teenager|vegan|vegetarian|homeowner|"
                         r"bridesmaid|groomsman|volunteer|member|guest|runner|blogger|mentor|foster|landlord)\b)|"
                         r"started (?:at|a new job|my new job|the new job)|just started (?:at|work)|\bi (?:just |finally |recently |officially )?started as (?:an? )?[\w -]{2,30}? (?:at|for|with) (?=[A-Z])|starting (?:as|a new job|"
                         r"my new job)|(?:starting|started|start) (?:my |a |the )?new (?:role|position)|(?:i'm|im|i am) (?:now )?the new [\w -]{2,30} (?:at|for|with)|"
                         r"got (?:the|a|that) (?:[\w-]+ ){0,3}(?:job|position|role)(?! (?:offer|interview))|got hired|"
                         # ("the co-op hired me as a paid mechanic", "they took me on full time")
                         r"(?<!almost )(?<!nearly )(?<!nobody )(?<!never )(?<!no one )\bhired me (?:as|on|full[- ]time)\b"
                         r"(?! (?:an? )?(?:client|patient|customer|student|member)\b)|"
                         r"(?<!almost )(?<!nearly )\btook me on (?:as|full[- ]time)\b(?! (?:an? )?(?:client|patient|customer|student|member)\b)|"
                         # ("got taken on as assistant brewer at a small brewery here")
                         r"(?<!we )(?<!they )(?<!he )(?<!she )(?:got|been) taken on (?:as|at)\b|"
                         r"landed (?:a|an|the|that) (?:[\w-]+ ){0,3}(?:job|position|role|gig)(?! (?:offer|interview))|"
                         # on one's own now: the employer goes, the trade stays ("went freelance in january")
                         r"(?:went|gone|going) (?:freelance|self-employed|solo)|"
                         # a new employer's orientation ("orientation on the med-surg floor at AdventHealth is brutal")
                         r"(?:(?:^|(?<=[.!?]\s))\W*|\b(?:my|new[- ]hire|work) )orientation (?:week |day )?(?:on|at|for) (?:the |my )?"
                         r"(?:[\w-]+ ){0,3}?at (?=(?-i:[A-Z]))|"
                         # "gone out on my own, trading as Hargreaves Heating", "set up on my own"
                         r"(?<!he's )(?<!she's )(?:went|gone|going|set up|started (?:up )?) out on my own\b|\bset up on my own\b|"
                         r"\btrading as (?=(?-i:[A-Z]))|"
                         # a trade begun: "finally started my electrical apprenticeship"
                         r"(?:started|starting|began) (?:my |an? )(?:(?!his\b|her\b|their\b)[\w-]+ ){0,2}(?:apprenticeship|traineeship|"
                         r"residency)(?! application)|"
                         # a firm or a union joined ("joined the ironworkers local"; not "joined a walking group")
                         r"(?<!he )(?<!she )(?<!they )joined (?:the|a|an) (?:[\w&'-]+ ){0,3}(?:local|union|firm|practice|agency|startup)"
                         r"(?=[,.;!]|$| (?:and|now|as|in|last|this|so)\b)|"
                         r"(?<!he )(?<!she )(?<!they )(?:took|accepted|landed|started) a (?:new )?(?:job|position|role|post) (?:in|at|with)|"
                         # "these days i'm apprenticing as a cooper at a whisky distillery"
                         r"(?<!he )(?<!she )(?<!they )\b(?:these days|nowadays) (?:i'm|im|i am) (?:apprenticing|retraining|"
                         r"working|employed|interning|temping) as\b|"
                         # "i took a winter job driving the snowplough"
                         r"(?<!he )(?<!she )(?<!they )\bi(?:'ve| have)? (?:just |also |finally )?(?:took|taken|accepted|landed) (?:a|an) (?:[\w-]+ ){0,2}(?:job|gig|position|role)\b"
                         r"(?! (?:offer|interview|application))|"
                         # gig work taken up: "doing grubhub on an e-bike now"
                         r"(?:doing|driving for|delivering for|riding for) (?:uber(?: ?eats)?|lyft|doordash|grubhub|deliveroo|"
                         r"instacart|menulog|grab|foodpanda|gojek)\b[^.!?]{0,30}?\bnow)\b|(?:现在|改|转行)(?:跑|送)(?:外卖|滴滴|快递|网约车)(?!的)|"
                         # "摄影助理干不下去了 转去做小红书运营", "跳去了一家做AI的初创"
                         r"(?<!想)(?<!要)(?<!打算)(?<!准备)(?<!考虑)(?<!犹豫)(?<!纠结)(?<!在想)(?<!要不要)(?<!该不该)(?<!是否)"
                         r"(?:(?:转去|跳去|转行去)(?:做|当|干|搞)(?!什么|啥)[\u4e00-\u9fff]{2,8}|跳去了(?:一家|家))|"
                         rf"出来单干了?|自己出来接活|(?<!想)(?<!要)(?<!打算)(?<!准备)(?<!考虑)(?<!计划)(?<!不敢)(?:跳槽|转行|改行)(?:过来|来|了)(?:做|干|搞)(?!什么|啥)[\u4e00-\u9fff]{{2,8}}|(?<!想)(?<!要)(?<!打算)(?<!准备)(?<!计划)跳槽(?:去|到)了|(?:^|(?<=[\s，,。！!]))(?:我|我也)?(?:已经|终于|上个月|上周|刚){{0,2}}(?:跳槽|换工作|换了工作|换了份工作)(?:了|啦|喽|成功(?![率的]))|考调(?:过来|成功|上岸)了|(?<!空)(?<!空调)调过来了|(?<!想)(?<!要)(?<!打算)(?<!准备)(?<!计划)(?:跳槽|转行)?(?:去|到)了?[\u4e00-\u9fffA-Za-z]{{2,8}}?(?:当|做)(?:{ZH_TITLES})了|(?:公司|单位|领导)?调我(?:去|到)[^，。！？\s]{{0,6}}(?:做|当)|(?<!想)(?<!要)转岗(?:了|到了?)|"
                         # a job begun at a workplace ("上周开始在常州一家汽配厂上班了"; not "开始在家办公")
                         r"(?:^|(?<=[\s，,。！!]))(?:我)?(?:上周|上个月|昨天|前天|今天|这周|刚|已经|年后)*开始在(?!家)[\u4e00-\u9fffA-Za-z]{2,12}?"
                         r"(?:上班|打工|工作|干活|实习)了|"
                         # a transfer or a post reported to ("我调到南宁动车所了", "上周刚去瑞金报到 税务局"; not a school's)
                         r"(?:^|(?<=[\s，,。！!]))(?:我|我也)?(?:已经|刚|上个月|上周|去年|今年)?(?:被)?调到[\u4e00-\u9fff]{1,10}?(?:所|局|院|厂|公司|部门?|"
                         r"店|站|队|中心|总部|分行|支行|医院|分公司|项目部|车间|工地|矿)(?:了|上班|工作)|"
                         r"(?:^|(?<=[\s，,。！!]))(?:我)?(?:上周|昨天|今天|刚|已经)?(?:刚)?(?:去|到)(?![^报，。！？\s]{0,8}(?:学校|大学|学院|中学|小学|一中|二中|"
                         r"幼儿园|宿舍|新生|学))[\u4e00-\u9fff]{1,8}?报到(?!证|处)|"
                         # a shop of one's own taken on ("自己盘了个小店卖奶茶")
                         r"(?:^|(?<=[\s，,。！!]))(?:我)?(?:已经|去年|今年|上个月)?自己(?:盘|开|租)了(?:个|一个|一家|家)[\u4e00-\u9fff]{0,3}"
                         r"(?:店|铺|档口|摊|馆|工作室)", re.IGNORECASE)
#: What the user works at now, said with "现在" ("现在在工地开塔吊", "现在在一家民宿当管家").
_NOW_WORKS_RE = re.compile(rf"(?:^|(?<=[\s，,。！!]))(?:我)?现在(?:改|转)?在[\u4e00-\u9fffA-Za-z]{{1,8}}?(?:开(?:塔吊|叉车|货车|大车|出租|网约车|挖机|吊车)|"
                           rf"(?:当|做)(?:{ZH_TITLES}))|"
                           # "现在干海参育苗 天天泡水里": a trade now, said in a correction
                           r"(?:^|(?<=[\s，,。！!]))(?:我)?现在(?:改|转)?(?:干|搞)(?!饭|活|啥|什么|的|了|嘛|吗|完|好|家务|作业)[\u4e00-\u9fff]{2,6}"
                           r"(?=$|[\s，,。！!])")
#: ...or at a workplace named as one ("现在在滑雪场的酒店做接待", "现在在盐城 海上风电公司做调度"): a new job, judged or not.
_NOW_WORKS_AT_RE = re.compile(r"(?:^|(?<=[\s，,。！!]))(?:我)?(?:现在|目前)(?:改|转)?(?:在|去(?!公司|单位|厂里|店里|上班))(?!家)[^，。！？!?]{0,14}?(?:柜台|专柜|档口|店|馆|厂|公司|酒店|宾馆|医院|诊所|单位|工地|驾校|"
                              rf"超市|餐厅|饭店|局|所|站|中心|银行|工作室|场|学校|幼儿园|集团|门店|仓库|车间|基地)(?:里)?(?:上班|(?:做|当)(?:{ZH_TITLES}|接待|调度|"
                              r"文员|导游|领班|帮厨|学徒|店长|主管))")
#: Where the user works, said in English in the present ("i work the front desk at the hotel peter and paul", "I work as a
#: dental hygienist at Medicover", "i bartend at a dive in the marigny"): the user's job now, whatever they said before; not
#: a second one ("i also tutor at the library").
_WORKS_AT_EN_RE = re.compile(r"(?<!can )(?<!could )(?<!should )(?<!if )\b(?:i|i'm|im)(?: now| currently| actually)? "
                             r"(?:work(?:ing)? (?:at|for) (?!(?:my|night|nights|home|the moment|it|myself|free|a competitor|"
                             r"hours|least|most)\b|\d)(?:the |a |an )?[A-Za-z]|work(?:ing)? as (?:an? )?[A-Za-z]|"
                             r"work the [\w -]{2,20}? (?:at|for) [A-Za-z]|(?:bartend|lifeguard|waitress)(?:ing)? at [A-Za-z])", re.IGNORECASE)
#: ...unless it is one job beside another ("i work at Tesco part time on top of my nursing job").
_SIDE_JOB_RE = re.compile(r"\b(?:on top of|on the side|side (?:job|gig|hustle)|second job|as well|also|too)\b|兼职|副业", re.IGNORECASE)
#: ...or in Chinese, at a workplace named by more than its kind ("俺在家门口超市理货 一个月两千八", "我在镇上的五金店里上班";
#: not "我在公司上班"; a brand with no word of its kind, "我在海底捞当服务员", is not read so).
_WORKS_AT_ZH_RE = re.compile(rf"(?:^|(?<=[\s，,。！!]))我(?:就|现在|目前|平时)?在(?!家[里上办带待做干]|这|那|哪|公司|单位|厂里|店里)"
                             rf"[\u4e00-\u9fffA-Za-z]{{2,10}}?(?:店|馆|厂|公司|酒店|宾馆|医院|诊所|工地|驾校|超市|餐厅|饭店|银行|工作室|学校|"
                             rf"幼儿园|集团|门店|仓库|车间|物流|快递|商场)里?(?:上班|打工|理货|收银(?!台)|(?:做|当)(?:{ZH_TITLES}))(?!的)")
#: A clause that gives the user's job title ("我是健身教练", "I'm a senior auditor").
#: (a trade's word too, "学徒", "柜员", "电工", not "会员", "打工"; and "天天在农行当柜员数钱" with no "我")
_JOB_TITLE_SAID_RE = re.compile(rf"(?:我是|我在.{{0,10}}?(?:做|当)|(?:^|(?<=[\s，,。！!]))(?:天天|每天|平时|一直|目前|之前)?在"
                                rf"[\u4e00-\u9fff]{{1,10}}?当)(?:一名|一个|一位|个|名)?.{{0,6}}?(?:{ZH_TITLES}|"
                                rf"[\u4e00-\u9fff]{{1,3}}?(?:(?<![会党队球演动团社成学])员|(?<![打零长员义])工|徒))|"
                                rf"\bI(?:'m| am|m)\b.{{0,12}}?\b(?:{EN_TITLES})\b", re.IGNORECASE)
#: A promotion: the title changes, the employer stays.
_PROMOTED_RE = re.compile(r"升职|升了职|提拔|转正|出师了|\b(?:got promoted|been promoted|was promoted|promoted to|"
                          r"(?:got|get|my) (?:the |a )?promotion)\b",
                          re.IGNORECASE)
#: Who put the user right or reminded them ("my wife anitha corrected me", "我老婆提醒我"): a source, not a topic.
_PUT_RIGHT_BY_RE = re.compile(r"\b(?:my |our )?[\w'-]+(?: [\w'-]+)? (?:corrected|reminded) me\b|"
                              r"(?:我)?(?:老婆|老公|媳妇|对象|我妈|我爸|女儿|儿子|闺女)(?:刚|才)?(?:提醒|纠正)(?:了)?我", re.IGNORECASE)
#: What was said in an earlier conversation, named so ("上次我说", "上回跟你说的", "last time i said").
_LAST_TIME_RE = re.compile(r"上次|上回|前几天(?:跟你)?说|之前跟你说|\b(?:last time|the other day) i (?:said|told|mentioned)\b", re.IGNORECASE)
#: A reason given for a change, after what changed ("… to April bc new job is a lot", "改到周五了 因为新工作太忙"): no topic
#: of the change.
_REASON_RE = re.compile(r"(?<=\w)[\s,]+(?:bc|b/c|because|cause|cuz|coz)\b[^.!?,;]*|[，,\s]因为[^。！？!?，,；;\s]*", re.IGNORECASE)
#: A clause that says something stays as it was ("still at Shopify", "same team same desk", "还是远程那份工", "还是前端"):
#: what it names did not change.
_STILL_RE = re.compile(r"(?:^|(?<=[,;.!?]))\s*(?:(?:and|but|so)\s+)?(?:(?:i'm|im|i am|we're|we are)\s+)?"
                       r"(?:still (?:at|with|working (?:at|for)|in|doing|on the|a|an)\b|same (?:team|job|role|desk|company|boss|office)\b)"
                       r"[^,;.!?]*?(?=\s+(?:so|and|but|because|bc)\b|[,;.!?]|$)|"
                       r"(?:^|(?<=[\s，,。！!]))(?:我)?(?:还是|还在|依然|仍然|照样|照旧)(?!把|改|换|决定|去|搬|要|得|想|觉得|不|没|会|说)"
                       r"[^\s，,。！？!?]{1,6}(?=$|[\s，,。！？!?])",
                       re.IGNORECASE)
#: A message led by "that one" ("那只仓鼠…", "那条狗…", "that dog…"): of what was just spoken of.
_THAT_ONE_RE = re.compile(rf"(?:对了|还有|哦)?\s*(?:那|这)(?:只|条)(?:{ZH_PETS})|那位|that (?:dog|cat|hamster|puppy|kitten)\b",
                          re.IGNORECASE)
#: A transfer within the same trade ("我调到南宁动车所了", "公司把我调过来了", "got transferred to the Leeds branch").
_TRANSFERRED_RE = re.compile(r"(?:我|把我)(?:也|已经|上个月|刚)?(?:被)?调(?:到|过来|过去|去)(?!年)|(?:^|(?<=[\s，,。！!]))(?:上个月|上周|去年|今年|刚)?被调(?:到|去|过来)|"
                             r"考调(?:过来|成功|上岸)|\b(?:got |been |was |i'm being )?transferred to\b",
                             re.IGNORECASE)
#: What a job has the user do ("负责抖音电商的一个小模块", "明年带初三", "i'm in charge of the billing api"): of the old job, once left.
_DUTY_RE = re.compile(r"负责(?!接送|孩子|家务|做饭|带娃|买菜)|分管|带(?:初[一二三]|高[一二三]|毕业班|[一二三四五六]年级)|"
                      r"\b(?:responsible for|in charge of)\b"
                      r"(?! (?:the )?(?:school|kids|pick-?ups?|dog|cat|cooking|laundry))", re.IGNORECASE)
#: A clause that says where or at what the user works ("我在济南一中教物理", "I drive a bus for the CTA").
_WORK_SAID_RE = re.compile(r"我是(?!想|来|说|打算|今天|要|去)(?:在)?[\u4e00-\u9fff]{0,6}?做(?![个完好了])[\u4e00-\u9fffA-Za-z]{1,8}的|"  # "我是义乌做外贸的"
                           # a workplace said at a chat piece's start with no "我" ("在昆山电子厂做SMT的", "在工地扎钢筋")
                           r"(?:^|(?<=[\s，,。！!]))在[\u4e00-\u9fffA-Za-z]{1,10}?(?:厂|公司|车间|工地|仓库|医院|酒店|饭店|超市|"
                           r"店)(?:里|上)?(?:做(?!饭|菜|什么|啥)|当|上班|打工|干活|扎|开)|"
                           # an internship ("家人们 在腾讯做游戏运营实习", "我在字节实习")
                           r"(?:^|(?<=[\s，,。！!]))(?:我)?(?:一直|现在|目前)?在(?!家|学|练|看|想|外面|路上)[\u4e00-\u9fffA-Za-z\d]{1,12}?"
                           r"(?:做[\u4e00-\u9fffA-Za-z]{1,6}?)?实习(?![的过])|"
                           r"我(?:一直|现在|目前)?在(?!家|学|练|看|想|外面|路上)[\u4e00-\u9fffA-Za-z\d]{1,12}?(?:教(?!我)|当|上班|工作|干了|"
                           rf"做(?:{ZH_TITLES}|采购|财务|行政|人事|客服|HR|hr)|跑(?:外卖|饿了么|美团|滴滴|快递|网约车|货拉拉))|"
                           r"\b(?i:I)(?:'ve| have)? (?:\w+ )?(?i:work(?:ed)?|teach|taught) (?:[\w-]+ ){0,2}?(?:at|for|as|in (?=[A-Z]))|"
                           # ...or in a kind of workplace ("I work in a call centre for an insurance crowd")
                           r"\b(?i:I)(?:'ve| have)? (?:\w+ )?(?i:work(?:ed)?) (?i:in an?) (?:[\w-]+ ){0,2}?(?i:call cent(?:re|er)|office|"
                           r"factory|warehouse|restaurant|kitchen|hospital|clinic|school|bank|shop|store|lab|hotel|bar|pub|"
                           r"caf[eé]|salon|garage|bakery|plant|mine|firm|agency|startup|studio|brewery|nursing home|care home)\b|"
                           r"\b(?i:I) (?i:drive|drove|run|ran) (?:an?|the) (?:[\w-]+ ){1,2}(?:for|at) (?:the )?(?=[A-Z])|"
                           # gig work ("For now I drive Uber in the evenings")
                           r"\b(?i:I) (?:(?i:still|also|currently|now|mostly) )?(?i:drive|deliver|ride|do)(?: (?i:for))? (?i:uber|lyft|doordash|"
                           r"grubhub|deliveroo|instacart|uber ?eats|bolt|didi|grab|just eat)\b|"
                           # "I do android at a small agency (Tapwell, 8 ppl, Denver)": what the user does at a kind of firm
                           r"\b(?i:I) (?:\w+ )?(?i:do|did) (?:[\w-]+ ){1,2}(?i:at|for) (?i:an?|the) (?:[\w-]+ ){0,2}(?i:agency|firm|startup|"
                           r"company|studio|consultancy|bank|hospital|clinic|lab|shop|store)\b|"
                           # "… after tax as a teller at Wells Fargo", "我现在在互助青稞酒厂酿酒": a title or trade, and where
                           rf"\b(?i:as an?) (?:[\w-]+ ){{0,2}}(?i:{EN_TITLES}) (?i:at|for|with) (?=[A-Z])|"
                           r"我(?:一直|现在|目前)?在[\u4e00-\u9fffA-Za-z\d]{1,12}?(?:厂|公司|车间|医院|学校|酒店|饭店|工地|矿|局|站|店|景区|"
                           r"农场|牧场|码头|机场|市场)(?:里|上)?"
                           r"(?:酿酒|上班|干活|打工|开车|送货|修车|管|带|焊|织|缝|种|养|烧|牵|卖|摆摊|做(?!饭|菜))|"
                           # a title and where, said first as a greeting's introduction ("hey, chef at a thai joint in Newtown")
                           rf"^\W*(?:(?i:hey|hi|hiya|hello|g'day|yo|ok|so)\W+)?(?:[\w-]+ ){{0,2}}(?i:{EN_TITLES}) (?i:at|for) "
                           r"(?i:an?|the|my)?\s?[\w'&-]+|"
                           # "i'm a welder at a fab shop in mckees rocks": a title and where
                           rf"\b(?i:i'm|im|i am) (?i:an?|the) (?:[\w-]+ ){{0,2}}(?i:{EN_TITLES}) (?i:at|for|with) |"
                           # a word of a trade ("I'm a relief milker down in Gore", "I'm a logistics clerk at Transnet")
                           r"\b(?i:i'm|im|i am) (?i:an?) (?:(?!(?i:bit|lot|little|big|huge|much)\b)[\w-]+ )?"
                           r"(?!(?i:old|young|bett|bigg|fast|slow|small|tall|short|strong|late|earli|happi|healthi|light|"
                           r"heavi|quick|great|low|high|clos|tight|clev|prop|prett|silli|lazi|bigg)er\b)(?!(?i:mother|father|brother|sister|daughter|member|partner|"
                           r"customer|user|lover|believer|worrier|overthinker|beginner|sucker|fan|newbie|foodie|introvert|"
                           r"extrovert|lightweight|morning person|night owl|regular|stickler)\b)(?:[a-z-]{2,}(?i:er|or|ist|ian)|"
                           r"[a-z-]*(?i:hand|keeper|smith|clerk|chef|cook|nurse|tech|guard|ranger|pilot|medic))\b(?! (?i:of|than|at heart)\b)|"
                           # any title at a place ("I'm a pit boss at the casino on the riverfront")
                           r"\b(?i:i'm|im|i am) (?i:an?) (?!(?i:regular|member|fan|guest|customer|patient|student|volunteer|"
                           r"big|huge|bit|little|lot|nervous|wreck|sucker|beginner|newbie|day|week|mess|vegetarian|vegan|"
                           r"novice|stickler|night|morning)\b)(?:[\w-]+ ){1,2}(?i:at|for) (?i:the) "
                           r"(?!(?i:moment|most|first|time|weekend|end|beginning|classics|gym|minute|rest)\b)|"
                           rf"\b(?i:rides?|shifts?|job|jobs|work|working|worked|career|gigs?) (?i:as an?) (?:[\w-]+ ){{0,2}}(?i:{EN_TITLES})\b|"  # "more surge rides as an uber driver"
                           # gig or shift work: "i do grabfood on my bike", "I'm doing warehouse night shift at the moment"
                           r"\b(?i:i|i'm|im|i am) (?:\w+ )?(?i:doing|do|drive for|deliver for|ride for) (?:[\w-]+ ){0,2}?"
                           r"(?i:uber|lyft|doordash|grubhub|deliveroo|instacart|menulog|grab ?(?:food|bike|car|express)|foodpanda|gojek|"
                           r"(?:warehouse|factory|hospital|care home|nursing home|security) (?:night |day )?shifts?|(?:night|day) shifts? (?:at|in|for))\b")
#: A clause that repeats what the user said before, in a correction ("I told you Aubree was 12, she's actually 11",
#: "上次说带6个 现在9个了"): the old value, not news.
_SAID_BEFORE_RE = re.compile(r"^\W*(?:(?:hey|ok|okay|so|oh|and|but|also|quick thing|hey again)\W+)*(?:i (?:told|said to) you|"
                             r"i (?:said|mentioned)(?! to (?!you\b))|earlier i said|last time i said|i think i said)\b|"
                             r"^\s*(?:我)?(?:上次|之前|刚才|前面|前几天)(?:跟你)?(?:说|讲|提到)(?:的是|的|过|了|是)?|"
                             # what used to be ("以前住银川市区通勤要一个小时", "we used to rent in Tooting")
                             r"^\s*(?:我们?|咱们?)?(?:以前|之前|原来|过去)(?:是|都|也|一直)?(?:住|在|开|用|租)|"
                             r"^\W*(?:(?:and|but|so)\s+)?(?:i|we) used to\b", re.IGNORECASE)
#: ...unless it goes on to say what is true now ("I told you the wrong date 🤦 her birthday is the 12th of March").
#: (not "我是" of the old statement itself: "上次说我是2006年参加工作")
_TRUE_NOW_RE = re.compile(r"\b(?:is|it's|its|are|actually|really|now|correct|i'm|im|we're|due)\b|其实|现在|应该|(?<![我你他她])是",
                          re.IGNORECASE)
_SAID_PIECE_RE = re.compile(r"(?<=[,，;；])\s*|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")


def _without_said_before(text: str) -> str:
    """A correction's episode without its clauses that repeat the old statement (_SAID_BEFORE_RE), when others stay."""
    pieces = [p for p in _SAID_PIECE_RE.split(text) if p]
    kept = [p for p in pieces if not ((said := _SAID_BEFORE_RE.match(p)) and not _TRUE_NOW_RE.search(p[said.end():])
                                      and not corrections.signals_change(p[said.end():]))]
    if len(kept) == len(pieces) or not any(len(keyword_tokens(p)) >= 1 for p in kept):
        return text
    return corrections.join_clauses([p.strip() for p in kept]) if is_chinese(text) else " ".join(p.strip() for p in kept).strip(" ,，")


#: Reporting for duty at a new post: "报到了", "上岗了", "first shift done".
_REPORTED_RE = re.compile(r"(?:^|(?<=[\s，,。！!]))(?:我|今天|昨天|刚|已经|终于)?(?:去(?:新单位|单位|公司|厂里)?)?(?:报到了|报道了|上岗了)|"
                          r"\bmy first (?:shift|day) (?:done|over|today)\b", re.IGNORECASE)
#: A new job only wished for, weighed or nearly taken ("我在准备考调", "what if I accepted a position at Amazon?", "I nearly
#: accepted a job at Meta").
_JOB_WISHED_RE = re.compile(r"(?:想|打算|准备|考虑|要不要|该不该)[^，。！？\s]{0,6}(?:考调|转岗|跳槽|入职|去|换工作)|"
                            r"\b(?:what if|nearly|almost|thinking (?:about|of)|might|considering|should i)\b", re.IGNORECASE)
#: The same statements, when the new job is in another town: the old town does not stay (_where_worked keeps it only
#: for _WORK_SAID_RE itself; this pattern's text differs, so the two never compare equal).
_WORKED_ELSEWHERE_RE = re.compile(f"(?:{_WORK_SAID_RE.pattern})")
#: How many of the user's newest episodes a job left looks through for where the user worked.
WORK_SAID_FROM = 300


def _users_new_job(text: str) -> bool:
    """Whether ``text`` says the user began a new job (``_NEW_JOB_RE``), not someone named just before it ("we're packing
    up to move to Kelowna next month, wife got a job there", "我老婆换工作了")."""
    return any(not _THEIR_JOB_LEAD_RE.search(text[max(0, m.start() - 30):m.start()]) for m in _NEW_JOB_RE.finditer(text)) \
        or bool(_POST_AHEAD_RE.search(text) and _GAVE_UP_JOB_RE.search(text))


#: A post to report to soon ("下周一去苏州海关报到"): a new job only beside the old one given up ("辞呈已经递了", "上岸了");
#: not "明天去医院报到 准备做手术".
_POST_AHEAD_RE = re.compile(r"(?:下周[一二三四五六日天]?|明天|后天|下个?月初?|月底)(?:就)?(?:去|到)[\u4e00-\u9fff]{1,8}?报到(?!证|处)")
_GAVE_UP_JOB_RE = re.compile(r"辞呈|辞职|离职|上岸|入职|offer|录取|裸辞", re.IGNORECASE)


#: Work taken out on one's own ("went freelance", "gone out on my own, trading as …"): the trade goes on.
_ON_ONES_OWN_RE = re.compile(r"\b(?:freelance|self-employed|on my own|trading as|my own business|自己干|单干|自己开)", re.IGNORECASE)
#: Someone else, right before the words of a new job: theirs.
_THEIR_JOB_LEAD_RE = re.compile(r"(?:\b(?:wife|husband|partner|hubby|missus|boyfriend|girlfriend|fianc[eé]e?|son|daughter|mum|mom|"
                                r"dad|sister|brother|friend|mate|he|she|they)(?:'s)?|老婆|老公|对象|男朋友|女朋友|儿子|女儿|闺女|我妈|"
                                r"我爸|姐姐?|妹妹?|哥哥?|弟弟?|他|她)\s*(?:just |finally |also |has |had |recently )?(?:也|刚|已经|终于)?$",
                                re.IGNORECASE)


#: A job left only in wish, or by someone else ("真想把工作辞了", "老公把工作辞了").
_WISH_OR_THEIRS_RE = re.compile(r"(?:想|打算|准备|要不要|该不该|能不能)[^，。！？\s]{0,4}(?:辞|退休)|(?:老公|老婆|对象|男朋友|女朋友|他|她|我妈|我爸|"
                                r"爸爸|妈妈|老爸|老妈|父亲|母亲|公公|婆婆|岳父|岳母|老伴儿?|老头子?|老太太|主任|领导|老板|同事|师傅|舅舅|叔叔|"
                                r"阿姨|姑姑|爷爷|奶奶|外公|外婆|姥姥|姥爷)[^，。！？\s]{0,4}(?:辞|离职|退休)|等[^，。！？\s]{0,3}退休|"
                                r"\b(?:when|once|after|if|before) (?:i'm|i am|im|i) (?:\w+ )?retir|\b(?:thinking (?:about|of) (?:quitting|leaving)|might quit|want to quit|"
                                r"(?:he|she|they|my (?:husband|wife|partner|dad|father|mom|mum|mother|parents)) (?:just |finally |officially )?"
                                r"(?:quit|left|got laid off|handed in|retired|(?:is|are|'s) retired))\b", re.IGNORECASE)
#: Words that say the user has left their job ("上个月离职了", "got laid off"): the old job's title and company go.
_LEFT_JOB_RE = re.compile(r"(?:离职|辞职|裸辞)了|(?:工作|班)(?:给|也)?辞了|辞了(?:工作|职)|"
                          # the user's shop or firm closed ("店倒闭了 我现在去商场…上班"; not "楼下那家店倒闭了")
                          r"(?:^\W*|(?:我|我们|我们家|我家)的?)(?:店|公司|厂|工作室)(?:也|已经|上个月|上周)?(?:倒闭|黄)了|"
                          # a resignation handed in ("辞呈已经递了", "递了辞呈", "已经提离职了")
                          r"(?<![他她])辞呈(?:已经|也)?(?:递|交)(?:上去)?了|(?<![他她])(?:递|交)了辞呈|(?<![他她想要])(?:已经)?提(?:了)?离职了|"
                          # retired ("我7月份正式退休了", "retired as of last Friday"), not about to ("快退休了")
                          r"(?<![快要等准备想就])(?:正式|已经|刚刚?|终于|光荣)?退休了(?![就再以之])|\b(?:i(?:'ve| have)? (?:just |finally |officially )?"
                          r"retired(?! (?:my|the|a|an|his|her|our|their|it|them)\b)|(?:i'm|im|i am) (?:now |officially |finally )?retired|"
                          r"retired (?:as of|last|this (?:week|month|year)|"
                          r"in (?:january|february|march|april|may|june|july|august|september|october|november|december)))\b|"
                          r"(?:我|(?:^|(?<=[\s，,。！!]))(?=终于))(?:上个月|上周|去年|年初|前阵子|刚刚?|已经|终于)?辞了(?=$|[\s，。！!？?哈啦呢吧]|工作|职)|"
                          r"我(?:已经|早就|现在)?不在(?!家)[\u4e00-\u9fff]{2,8}?(?:干|上班|做|工作)了|被裁了|"
                          # "现在不给人打工了", "我已经不在风电场了" (a workplace's word, not "不在家了")
                          r"(?:已经|早就|现在|再也)?不(?:给人|给别人|替人|帮人)打工了|(?:已经|早就|再也)不打工了|"
                          r"我(?:已经|早就|现在)?不在(?!家|商场|机场|广场|球场|停车场|菜市场|现场)[\u4e00-\u9fff]{1,8}?(?:场|厂|所|局|公司|单位|店|矿|队)了|"
                          # a job given up in British words ("Packed in British Gas last month", "jacked in the bank job")
                          r"(?<!he )(?<!she )(?<!they )\b(?:packed|jacked|chucked) in (?:my |the )?(?:job|work|notice|(?-i:[A-Z])[\w&'-]+)|"
                          r"\bhanded in my notice\b|"
                          # "i'm not at the courthouse anymore", "i'm no longer with Deloitte"; a business closed ("i closed it")
                          r"\b(?:i'm|im|i am) (?:not (?:at|working at|working for) (?!(?:the |my )?(?:home|school|hospital|gym|desk|party|"
                          r"beach|airport|station|mall|park|pub|bar|doctor'?s|dentist|house|table|computer)\b)(?:the |my )?[\w&'-]+(?: [\w&'-]+)? any ?more|"
                          r"no longer (?:at|working at|working for) (?!(?:the |my )?(?:home|school|hospital|gym|desk|party)\b))|"
                          r"\b(?:my|our|the) (?:studio|shop|salon|business|practice|restaurant|cafe|café|bakery|clinic)\b(?! app| website| page| account| tab)"
                          r"[^.!?]{0,30}\b(?:i|we) (?:finally |just |officially )?(?:closed|shut) (?:it|her)(?: down| for good| permanently)?(?=[.,;!]|$)|"
                          r"\b(?:i|we)(?:'ve| have)? (?:finally |just |officially )?(?:closed|shut) (?:down (?:the |my |our )?|(?:my|our) )"
                          r"(?:studio|shop|store|salon|business|practice|restaurant|cafe|café|bakery|clinic)\b(?! (?:early|at|last night|tonight|for the (?:night|day)))|"
                          # "班不上了 辞了", "工作不干了" (not "今天，班不上了，发烧39度")
                          r"(?:^|(?<=[\s，,。！!]))(?:班不上了[\s，,]*辞了|(?:工作|这份工)不干了)|被优化了|\b(?:quit my job|left my job|got laid off|was laid off|"
                          r"been laid off|handed in my notice|gave my notice|i(?:'ve| have)? (?:just )?resigned|"
                          r"(?:\bsince |\bafter |^|\bi(?:'ve| have)? )resign(?:ed|ing) from (?:the|my)|"
                          # a workplace left: "quit the kitchen finally", "left the warehouse in may"
                          r"(?<!he )(?<!she )(?<!they )(?:quit|left) (?:the|my) (?:kitchen|restaurant|warehouse|factory|"
                          r"plant|mine|call cent(?:er|re)|bank|hospital|site|shop|store|salon|bar|office|firm|agency|force|"
                          r"army|navy|police)(?! to\b)(?= finally|[,.;!]|$| (?:last (?:week|month|year)|this (?:week|month|year)|"
                          r"for good)\b))\b",
                          re.IGNORECASE)
#: Words that say what the user said before was wrong: a correction whatever the classifier reads ("oh wait sorry,
#: I misspoke earlier — I can actually do $1500").
_SAID_WRONG_RE = re.compile(r"说错|记错|搞错|写错|打错|弄错|看错|听错|记岔|说岔|记混|搞混|口误|纠正一下|更正一下|^\s*(?:哦|噢|啊|呃|额|诶|欸)?不对|"
                            r"\b(?:i misspoke|i was wrong|my mistake|sorry,? (?:i )?made (?:a )?mistake|i made (?:a )?mistake (?:before|earlier|above)|(?:typed|wrote|got|said) (?:that|it) wrong|"
                            r"scratch that|i mis-?typed|typo|i meant to say|correction|ignore (?:that|what i said|my last)|"
                            # "Sorry I said 2nd std last time, I meant 3rd std"
                            r"(?:sorry|oops|whoops|my bad),? i (?:told you|said|wrote|put)\b[^.;!?—]{0,30}?\b(?:earlier|before|last time)"
                            r"(?=,?\s*(?:[—–-]|$)|,?\s*(?:but|it'?s|he'?s|she'?s|they'?re|actually|i meant)\b)|"
                            r"i said\b[^.;!?—]{1,30}?,? (?:but )?i meant(?!\s+(?:it|that|every)\b)|"
                            r"disregard (?:that|my last)|that'?s my old)\b|当我没说|忽略(?:刚才|上面|前面)|前面(?:那个|说的)不算",
                            re.IGNORECASE)
#: How close an earlier episode must be to a correction that names no slot, to be the one it corrects.
CORRECTION_MIN_COSINE = 0.75
#: Below this keep score, a message the classifier judges a correction is one only if it says a word of change.
JUDGED_MIN_KEEP = 0.2
#: ...when only a word says something changed ("now", "现在"), not the classifier.
CUE_MIN_COSINE = 0.8
#: ...when the correction speaks of no topic the vocabulary knows.
NO_TOPIC_MIN_COSINE = 0.85
#: How many of the user's latest turns of earlier sessions are read for the people they named.
INTRODUCTIONS_FROM = 200
#: Most pieces of one message tried as the correction (each is one more nearest-episode query).
MAX_CORRECTION_PIECES = 3
#: Slots whose values do not replace each other: a second pet does not correct the first.
_ADDITIVE_SLOTS = frozenset({"likes", "dislikes", "do_not_recommend", "decision", "event", "feedback", "note",
                             "diet", "pet", "child", "family", "hobby", "project"})


#: Slots of how the user wants answers, not of their life.
_STYLE_SLOTS = frozenset({"reply_style"})


_WORDS_RE = re.compile(r"[\w\u3400-\u4dbf\u4e00-\u9fff]")


def _sentences(text: str) -> list[str]:
    """The message's sentences; a message of more than MAX_SENTENCES is read as one piece (each sentence is an
    embedding: a pasted document must not cost thousands of them)."""
    sentences: list[str] = []
    for a, b in split_sentences(text):
        piece = text[a:b].strip()
        if piece and sentences and not _WORDS_RE.search(piece):
            continue  # the second mark of "saturday!!", "好开心！！": no sentence of its own
        if piece:
            sentences.append(piece)
    if len(sentences) == 1:
        # One sentence of several clauses is read clause by clause ("im a nurse, working night shifts in the ER
        # rn and my sleep is wrecked, how do people cope"): a fact and a request often share one sentence.
        clauses = [c.lstrip() for c in _CLAUSE_RE.split(sentences[0]) if c and c.strip()]
        if 1 < len(clauses) <= MAX_SENTENCES:
            return clauses
    return sentences if len(sentences) <= MAX_SENTENCES else [text.strip()]


def with_episodes(user_id: str, turns: Sequence[TurnText], slot_drafts: Sequence[MemoryDraft], *,
                  keep_episodes: bool = True) -> list[MemoryDraft]:
    """The extractor's drafts, then one episode draft per user message that discloses something about the
    user (see the module's doc). A message that corrects something links what it replaces to its episode,
    or, when it has none (``keep_episodes`` off: an explicit "记住：..." written at once), to its first slot
    draft, so that the older episodes about the same thing never stay current beside it."""
    messages = [t for t in turns if t.role == "user" and (t.content or "").strip()]
    if not messages:
        return list(slot_drafts)
    model = disclosure.model()
    parts: list[list[str]] = [_sentences(t.content.strip()) for t in messages]
    texts: list[str] = []
    for turn, sentences in zip(messages, parts, strict=True):
        texts.append(turn.content.strip())
        if len(sentences) > 1 and keep_episodes:
            texts.extend(sentences)
    rows = disclosure.features(texts)
    keep, correction = model.probabilities(rows)
    keep = _pieces_scored(keep, model.clause_probabilities(rows), parts, keep_episodes)
    if keep_episodes and is_transcript([t.content for t in messages]):
        # No speaker of a transcript is taken for the user: its slot facts ("The user said: I ran a charity 5k")
        # would put one speaker's words in the user's profile. The log holds what each of them said.
        return _logged(messages, parts, keep)
    # What the session said before each message: who "he"/"she" is, whose names are the user's household's.
    # People the user introduced before, in earlier sessions too, count as introduced ("my brother tomás" last week,
    # "update: tomás got the interview!!" today).
    before = list(itertools.accumulate((m.content + "\n" for m in messages[:-1]),
                                       initial=_introduced_earlier(user_id, messages)))
    # A slot filled from a message about someone else ("我表哥在华为上班，最近想跳槽去小米") is not the user's,
    # nor from one led by "he"/"she" after someone else was named ("我同事…" then "他老婆也是我们公司的").
    others = {t.turn_id for t, said in zip(messages, before, strict=True)
              if (about_another_person(t.content) or pronoun_about_another(t.content, said)
                  or named_another(t.content.strip(), said)) and not _told_of_ours(t.content, said)}
    # "那只仓鼠叫芝麻 养了两年多" right after "同事王姐的仓鼠死了…": "that one" is the one just spoken of, someone else's.
    others |= {t.turn_id for previous, t in itertools.pairwise(messages)
               if previous.turn_id in others and _THAT_ONE_RE.match(t.content.strip())}
    said_by = {t.turn_id: t.content for t in messages}
    said_before = {t.turn_id: said for t, said in zip(messages, before, strict=True)}
    # (who a brother or a mother is to the user, named, "我弟豆豆今年8岁 想给他买个生日礼物", is the user's family, though
    # the message is about them; not an age alone, "my mom is 78 and …": a message about her says her age)
    drafts, episodes, at = [d for d in slot_drafts if (d.turn_id not in others or _in_own_clause(
                                d, said_by.get(d.turn_id, ""), said_before.get(d.turn_id, ""))
                                or _workplace_of_workmate(d, said_by.get(d.turn_id, ""))
                                or (d.key.split(":")[0] == "family" and not _KIN_ONLY_RE.fullmatch(d.key.split(":", 1)[-1])))
                            and not _HYPOTHETICAL_RE.search(d.content)
                            and (not _told_of_another(d, said_by.get(d.turn_id, ""))
                                 or _workplace_of_workmate(d, said_by.get(d.turn_id, ""))
                                 # who a brother or a mother is to the user is said of them ("我弟豆豆今年8岁")
                                 or d.key.split(":")[0] == "family")], [], 0
    # An amount said anew for the budget the user gave ("…控制在1000块"): the budget slot's new value.
    drafts += amounts.budget_drafts(user_id, messages, drafts, others)
    # The slots each message filled, of the drafts that stay (not a condition's, not someone else's).
    slots_of: dict[int | None, list[str]] = {}
    values_of: dict[int | None, list[str]] = {}
    for draft in drafts:
        slot = (draft.tags or {}).get("slot") or draft.key.split(":")[0]
        if slot:
            slots_of.setdefault(draft.turn_id, []).append(slot)
            values_of.setdefault(draft.turn_id, []).append(
                draft.value if isinstance(draft.value, str) and draft.value else draft.content)
    remainders: list[MemoryDraft] = []
    left_of: dict[int, MemoryDraft | None] = {}  # what the corrections of this run left of each episode they replaced
    drafted: list[tuple[np.ndarray, MemoryDraft]] = []  # this run's episodes, with their messages' vectors
    known = _known_names(user_id)  # the names of the user's pets, family and projects, with their topics
    for number, (turn, sentences) in enumerate(zip(messages, parts, strict=True)):
        whole_keep, whole_correction = float(keep[at]), float(correction[at])
        vector = rows[at, :384]
        at += 1
        # The pieces that say something changed: a correction is often one clause of a long message
        # ("半马计划泡汤了，…，我现在改成游泳了"), closer in meaning to what it corrects than the whole is.
        pieces = len(sentences) if len(sentences) > 1 and keep_episodes else 0
        changing_at = [at + i for i, piece in enumerate(sentences[:pieces])
                       if corrections.signals_change(piece)][:MAX_CORRECTION_PIECES]
        changing = [rows[i, :384] for i in changing_at]
        # A piece that states a value of a kind one replaces the last of (a date, an amount, a grade, an age:
        # "开学四年级了，…"), judged a correction, makes the message a correction of the same topic only.
        valued_at = [at + i for i, piece in enumerate(sentences[:pieces])
                     if at + i not in changing_at and any(kind.search(piece) for kind in _VALUE_KINDS)]
        slots = sorted(set(slots_of.get(turn.turn_id, [])))
        # A name of the user's retired: "豆豆上个月走了…", "we ended up renaming him waffles … never responded to duke".
        gone = corrections.gone(turn.content, known) if turn.turn_id not in others else set()
        # "single again lol" retires "my gf Chloe": the partner facts and what named them
        single_from = _partners_named(user_id, known) if turn.turn_id not in others \
            and _SINGLE_NOW_RE.search(turn.content) and not _HYPOTHETICAL_RE.search(turn.content) else set()
        if turn.turn_id not in others:
            known.update(corrections.names(turn.content))
        # What it speaks of: its words, and the names the user gave ("Mochi's actually 6" speaks of a pet).
        # (not of whoever put the user right: "its actually nov 8, my wife anitha corrected me" is a date's)
        about = _with_birthday(sorted(corrections.topics(_PUT_RIGHT_BY_RE.sub(" ", turn.content))
                                      | corrections.named_topics(turn.content, known)), turn.content)
        # What it changed is guessed among its topics, not among those of a reason it gives ("pushed the LSAT to April bc
        # new job is a lot" is the exam's date, not the job).
        # (nor among what it says stays as it was: "moved to Halifax last month, still at Shopify", "搬回重庆老家了 … 还是远程那份工")
        unchanged = _STILL_RE.sub(" ", _REASON_RE.sub(" ", turn.content))
        reasoned = set(about) - set(_with_birthday(sorted(corrections.topics(unchanged)
                                                          | corrections.named_topics(turn.content, known)), turn.content)) \
            if unchanged != turn.content else set()
        # (nor among what it asks for: "packing list for that trip pls. keep in mind i cant do dairy" changes the diet,
        # "… so I work from home every day now. Desk setup advice for a small apartment?" the way to work)
        told = [c for c in corrections.clauses(turn.content) if not _ASKED_FOR_RE.search(c)
                and not (_QUESTION_RE.search(c) and not _FIRST_PERSON_RE.search(c))]
        if told and len(told) < len(corrections.clauses(turn.content)):
            reasoned |= set(about) - corrections.topics(" ".join(told)) - corrections.named_topics(" ".join(told), known) \
                - {"date", corrections.BIRTHDAY_TOPIC}
        # The classifier's judgement of the whole, or of a piece that says something changed ("ok so I was wrong
        # earlier, Mochi's actually 6 — found her adoption papers lol. should she be on senior food yet?").
        # (the whole judged so with no word of change, when it scarcely discloses, is no correction: "儿子旦增6岁 幼儿园让画
        # '我的爸爸' 他画我骑摩托巡湖 …" scored one, and replaced the user's job)
        judged = any(float(correction[i]) >= model.correction_threshold for i in changing_at) \
            or (whole_correction >= model.correction_threshold
                and (whole_keep >= JUDGED_MIN_KEEP or corrections.signals_change(turn.content))) \
            or bool(_SAID_WRONG_RE.search(turn.content))
        # "oh wait she actually turned 7 last week": a new value said as a correction, whatever the classifier reads.
        new_value_said = bool(_LEAD_TAKES_BACK_RE.match(turn.content)) and any(k.search(turn.content) for k in _VALUE_KINDS)
        of_topic = not judged and (any(float(correction[i]) >= model.correction_threshold for i in valued_at)
                                   or new_value_said)
        # A new job begun ("新单位上班第一周…", "first week at the hospital pharmacy done"): the old job's words go.
        # Or a job said as what the user does now, in a message judged a correction ("塔吊证拿下了 现在在工地开塔吊").
        # (a run-on typed with no stop is read clause by clause: "…医生不让再长时间坐着开了现在在驾校当教练")
        said_now = " ".join(corrections.clauses(turn.content))
        new_job = bool(_users_new_job(turn.content) or (judged and _NOW_WORKS_RE.search(said_now))
                       or ((_WORKS_AT_EN_RE.search(turn.content) or _WORKS_AT_ZH_RE.search(turn.content))
                           and not _SIDE_JOB_RE.search(turn.content)) or _NOW_WORKS_AT_RE.search(said_now)
                       # a new title the day the user reports for duty ("报到了 … 现在是钾肥车间的操作工")
                       or ("job_title" in slots and _REPORTED_RE.search(turn.content))
                       # an employer said in a message judged a correction, not the one the user has ("we got acquired,
                       # I'm technically at Ramsey Digital now" beside "I do android at a small agency (Tapwell, …)")
                       or (judged and "employer" in slots and _another_employer(user_id, [
                           str(d.value) for d in drafts if d.turn_id == turn.turn_id and d.key == "employer"]))) \
            and turn.turn_id not in others and not _asks_only(turn.content) \
            and not _HYPOTHETICAL_RE.search(turn.content) and not _JOB_WISHED_RE.search(turn.content)
        left_job = bool(_LEFT_JOB_RE.search(turn.content)) and turn.turn_id not in others and not new_job \
            and not _WISH_OR_THEIRS_RE.search(turn.content) and not _HYPOTHETICAL_RE.search(turn.content)
        new_job = new_job or left_job
        if new_job and "work" not in about:
            about = sorted({*about, "work"})
        if "work" in about and not new_job and not {"employer", "job_title"} & set(slots) \
                and "work" not in corrections.topics(_WORK_AS_SOURCE_RE.sub(" ", turn.content)):
            # Work said only as where a thing came from or is used ("ditched the samsung, work gave me an iphone 15"): a
            # correction of the phone, not of the job ("i'm a claims adjuster" stays).
            about = [t for t in about if t != "work"]
        corrects = judged or of_topic or new_job or corrections.signals_change(turn.content) or bool(gone)
        if _asks_only(turn.content) or (_VERSION_BUMP_RE.search(turn.content) and not corrections.retracted_terms(turn.content)) \
                or (_SUGGESTION_TURNED_DOWN_RE.search(turn.content) and not _SAID_WRONG_RE.search(turn.content)):
            # "Scratch要报班吗 还是自学就行" corrects nothing, whatever it scored; nor does a software version bumped
            # ("下周要把服务从 Go 1.19 升到 1.22"): a system's, not the user's (a slot it fills again still replaces)
            judged = of_topic = new_value_said = False
            corrects = bool(gone)
        # A new value of a single-valued slot replaces the episodes that held its old one, correction or not.
        refills = any(s not in _ADDITIVE_SLOTS for s in slots)
        # A correction of what was said earlier in the same run ("our wedding is Sept 14 ..." then "we got bumped a
        # week later to the 21st"): the guess is made among this run's episodes first, the newest mention.
        # Only in words that take back what was just said, and by meaning only for a correction the classifier
        # judged one (a session's messages are all close in meaning, and "现在"/"now" are everywhere in them); a
        # value retracted by name finds the message that said it ("oh wait, it's 4,700 not 5,100").
        named = corrections.retracted_terms(turn.content) | gone
        # (not what it says was said last time: "对了上次我说生日八月二十是记岔了", "还有上次打错字了 是40口网箱")
        earlier = (_corrected_earlier(drafted, [vector, *changing], [t for t in about if t not in reasoned], named, guess=judged or of_topic)
                   if (judged or of_topic or named) and (_TAKES_BACK_RE.search(turn.content) or gone)
                   and not _LAST_TIME_RE.search(turn.content) else [])
        if earlier and corrections.signals_change(turn.content) and (thing := CHANGED_THING_RE.search(turn.content)):
            # the thing named as what changed ("青海湖那趟车队改期了") is what it corrects, not another message of the run
            earlier = [d for d in earlier if thing.group("x") in d.content]
        if not earlier and refills and turn.turn_id not in others:
            # A single-valued slot said again with another value later in the same run ("im 34 and want to start
            # running" then "im 43"): the earlier message's episode goes with its value.
            mine = {s for s in slots if s not in _ADDITIVE_SLOTS}
            earlier = [d for _, d in drafted if d.turn_id is not None and d.turn_id != turn.turn_id
                       and mine & set((d.value or {}).get("slots") or ())
                       and not set(values_of.get(d.turn_id, [])) & set(values_of.get(turn.turn_id, []))][-1:]
        if named and earlier:
            # The slot facts of this run holding the value taken back are not written ("it's a 2017 not a 2015").
            taken_back = {d.turn_id for d in earlier}
            drafts = [d for d in drafts if d.turn_id not in taken_back or not corrections.holds_any(d.content, named)]
        # A word such as "now" alone makes the guess by topic and meaning stricter than the classifier's
        # judgement does.
        # A move speaks of the things it takes along, not of a change in them ("since the move to Tucson the Outback's AC
        # has been struggling" is no new car): the guess is not made among them.
        moving = turn.turn_id not in others and ("location" in slots or bool(
            (judged or corrections.signals_change(turn.content)) and _arrived_at(turn.content)))
        # (a thing changed in a clause of its own is guessed among: "搬到成都了 车也换成比亚迪了")
        changed_too = {t for c in corrections.clauses(turn.content) if corrections.signals_change(c) and not _MOVE_SAID_RE.search(c)
                       for t in corrections.topics(c)} if moving else set()
        guessed_about = [t for t in about if t not in _TAKEN_ALONG_TOPICS or t in changed_too] if moving else about
        guessed_about = [t for t in guessed_about if t not in reasoned or (t == "work" and new_job)]
        if not (judged or of_topic or new_job or gone or moving):
            # A change said only by a word ("I don't drink much myself these days …, but my wife Eirlys …"): the guess
            # is made among the topics of the clauses that say it, not of the whole message ("my wife" is no change).
            cued = {t for c in corrections.clauses(turn.content) if corrections.signals_change(c)
                    for t in corrections.topics(c)}
            guessed_about = [t for t in guessed_about if t in cued] if cued else guessed_about
        replaced = tuple(corrected_items(user_id, turn.content, slots, guessed_about, [vector, *changing],
                                         min_cosine=CORRECTION_MIN_COSINE if judged or of_topic or new_job else CUE_MIN_COSINE,
                                         guess=corrects and not earlier and (bool(about) or _says_a_change(turn.content)),
                                         gone=gone, judged=judged,
                                         new_values=values_of.get(turn.turn_id, []))) \
            if (corrects or refills) and (turn.turn_id not in others or gone) else ()
        # A transfer keeps the title unless the message says another ("我调到南宁动车所了" is still the mechanic).
        transferred = bool(_TRANSFERRED_RE.search(turn.content)) and "job_title" not in slots
        if replaced and ((new_job and not left_job) or (not new_job and _PROMOTED_RE.search(turn.content))):
            replaced = _still_the_users_job(user_id, replaced, turn.content, new_job=new_job, transferred=transferred)
            if named:
                # (unless the message gives the title up by name: "我这边也不当店长了 公司调我去做区域督导")
                replaced = tuple(dict.fromkeys([*replaced, *(
                    pk for pk, content in MemoryItem.objects.for_user(user_id).current().filter(key="job_title")
                    .values_list("pk", "content") if corrections.holds_any(content, named))]))
        # The episodes that said the value of a fact it replaces go too ("用户的饮食：生酮" takes "不过我最近在生酮 …").
        replaced = tuple(dict.fromkeys([*replaced, *_saying_their_values(user_id, replaced)]))
        if single_from:
            replaced = tuple(dict.fromkeys([*replaced, *_naming(user_id, single_from)]))
        if new_job and not {"employer", "job_title"} <= set(slots):
            # A new job whose company no pattern read ("新单位上班第一周 在南京一家银行做后端开发"): the old employer goes;
            # a job left ("上个月离职了 现在在家备考"): its title too (a new job often keeps the title: "still sre").
            # (and a new job said as what the user does there now, "现在在滑雪场的酒店做接待", its title too;
            # or one left for work of the user's own, "现在不给人打工了 自己盘了个小店卖奶茶")
            # (not a trade taken out on one's own: "Packed in British Gas … gone out on my own" is still the gas engineer)
            retires_title = left_job or (bool(_NOW_WORKS_AT_RE.search(said_now) or (
                _LEFT_JOB_RE.search(turn.content) and not _WISH_OR_THEIRS_RE.search(turn.content))) and not transferred
                and not _ON_ONES_OWN_RE.search(turn.content))
            # (and what the old company made: "The user's company is in marine paint" beside "now i'm at Kestrel Bioplastics")
            retired = [k for k in ("employer", *(("company_industry", "company_focus") if not transferred
                                                  and "转岗" not in turn.content else ()),
                                   *(("job_title",) if retires_title else ())) if k not in slots]
            replaced = tuple(dict.fromkeys([*replaced, *MemoryItem.objects.for_user(user_id).current()
                                           .filter(key__in=retired, source=MemoryItem.Source.USER_STATED)
                                           .values_list("pk", flat=True)]))
        if new_job:
            # A job left or a new one: the statements of where (left: or as what) the user worked go too, whatever the
            # guess by meaning found ("I drive a delivery van for DPD, …" beside "retired as of last Friday", "i'm a
            # welder at a fab shop" beside "joined the ironworkers local"); what else they said stays.
            worked = [pk for pk, content in _newest_episodes(user_id)
                      if _WORK_SAID_RE.search(content) or (left_job and _JOB_TITLE_SAID_RE.search(content))]
            replaced = tuple(dict.fromkeys([*replaced, *worked]))
        moved_to = (_moved_to(turn.content, values_of.get(turn.turn_id, [])) if "location" in slots
                    else _arrived_at(turn.content) if judged or new_job or corrections.signals_change(turn.content)
                    or _NEW_THERE_ZH_RE.search(turn.content) else set()) \
            if turn.turn_id not in others else set()
        if not moved_to and "location" in slots and turn.turn_id not in others and _HOME_SAID_RE.search(turn.content) \
                and "travel" not in about and not _FOR_A_WHILE_RE.search(turn.content) \
                and not _HYPOTHETICAL_RE.search(turn.content):
            # Where the user goes to work from, said as a matter of course ("从仓山开车过去上班"): where they live now, though
            # no word says they moved ("我们家住在鼓楼" goes).
            moved_to = {str(v).lower() for v in values_of.get(turn.turn_id, []) if str(v).strip()}
        lived_in: set[str] = set()
        if moved_to:
            # A move ("we moved to Midrand …", "我搬回扬州了"): the statements of where the user lived or worked before
            # go too ("I teach grade 4 at a primary school in Centurion"), not where they come from or travel to.
            lived = [(pk, content) for pk, content in _newest_episodes(user_id) if _lived_elsewhere(content, moved_to)]
            replaced = tuple(dict.fromkeys([*replaced, *(pk for pk, _ in lived)]))
            lived_in = {p for _, content in lived for p in _places_of(content) if p not in moved_to}
            # (and the places the statements it replaces name, but a trip's: "在武汉做UI设计师 …" beside "我上个月搬到长沙了")
            lived_in |= {p for content in MemoryItem.objects.for_user(user_id).filter(
                pk__in=list(replaced), type=MemoryItem.Type.EPISODE).exclude(_any_of("topics", ["travel"]))
                .values_list("content", flat=True) for p in _places_of(content) if p not in moved_to}
            if "location" not in slots:
                # A move no slot pattern read ("来大理帮朋友管民宿"): the location fact of another place goes too.
                replaced = tuple(dict.fromkeys([*replaced, *(
                    pk for pk, value in MemoryItem.objects.for_user(user_id).current()
                    .filter(key="location", source=MemoryItem.Source.USER_STATED).values_list("pk", "value")
                    if str(value).lower() not in moved_to)]))
        # What else those episodes said stays: "I live in Shanghai and work at Alibaba. My dog Max ..." corrected
        # by "I left Alibaba" keeps "My dog Max ...".
        old = _old_values(user_id, turn.content, slots, gone, replaced, values_of.get(turn.turn_id, [])) | lived_in \
            | single_from
        # A new name replaces only the name: "领养了一只小橘猫…先叫它咪咪吧" renamed keeps the kitten, without "咪咪".
        renamed = bool(gone) and corrections.renames(turn.content)
        # (by its words, not the names it mentions: "上次说的艺考 乐乐自己不想搞了" changes the son's plan, not who he is,
        # so "儿子乐乐17了" stays)
        # (a name gone beside a slot said anew, "Naledi and I broke up … picked up a secondhand VW Polo": both)
        by_name = corrections.named_topics(turn.content, known) - corrections.topics(turn.content)
        said_topics = sorted({*(t for t in about if t not in by_name and (t not in reasoned or (t == "work" and new_job))),
                              *_fact_topics(user_id, replaced)})
        names_only = bool(gone)
        kept_of = () if renamed else sorted({*_gone_topics(turn.content, gone, known), *(said_topics if refills else ())}) \
            if gone else said_topics
        # A value said anew ("啊打错了 是12岁 还在六年级"): what stays of the replaced statements does not say its old one.
        restated = [kind for kind in _VALUE_KINDS if kind.search(turn.content)] if corrects else []
        counted = corrections.counts(turn.content) if turn.turn_id not in others and not _asks_only(turn.content) else {}
        recounted = [pk for pk, content in _newest_episodes(user_id) if _counted_otherwise(content, counted)] \
            if counted else []
        if recounted:
            # A number of something said anew ("一共120亩了", "so 3 dogs now"): what stays of the statements that gave
            # another number of it does not say theirs ("80亩地"), correction or not.
            replaced = tuple(dict.fromkeys([*replaced, *recounted]))
            restated.append(corrections.COUNT_RE)
        if restated and _NOW_AT_RE.search(turn.content) and (places_in(turn.content) or _VENUE_RE.search(turn.content)):
            # Moved to another date and place ("moved everything to 19 October at a manor house in the Cotswolds"):
            # what stays of the old statement does not say where it was ("at a barn venue just outside Bath").
            restated.append(_VENUE_RE)
        if corrects and "travel" in about and _NOW_AT_RE.search(turn.content):
            # A trip moved elsewhere ("we're doing sardinia instead"): what stays of the old plan does not say where
            # it went ("planning a family holiday to crete").
            restated.append(corrections.TOPICS["travel"])
        if left_job or (corrects and "job_title" in slots):
            # "我是健身教练" does not stay beside "上个月辞职了", nor "I'm an auditor" beside "started at Monzo as a product
            # analyst"
            restated += [_JOB_TITLE_SAID_RE, _DUTY_RE]  # nor what the old job had them do ("负责抖音电商的一个小模块")
        if new_job:
            # nor where they worked ("我在济南一中教物理" beside "我7月份正式退休了"): the town stays ("我在济南"), unless the
            # new job is said to be in another ("新单位上班第一周 在南京一家银行…" leaves no "我在苏州")
            elsewhere = not left_job and bool(places_in(turn.content) or _IN_PLACE_RE.search(turn.content))
            restated.append(_WORKED_ELSEWHERE_RE if elsewhere else _WORK_SAID_RE)
        swaps = corrections.swapped_values(turn.content) if turn.turn_id not in others else {}
        # A child or a pet of the user's named with a new age ("豆豆上周刚过完6岁生日" beside "儿子豆豆5岁"): what said the old
        # one says the new one.
        aged = _aged_anew(user_id, turn.content, known) if not swaps and turn.turn_id not in others else {}
        swaps = swaps or aged
        renamed_only = False  # (a rename's swap rewrites only what it replaced: "可乐" is a pet's name and a drink)
        if renamed and not swaps:
            # One name for another ("对了猫现在叫汤圆了" of "我家猫年糕 橘猫 胖得很"): what held the old one says the new one.
            new_names = [n for n in corrections.names(turn.content) if n not in gone]
            if len(gone) == 1 and len(new_names) == 1 and known.get(next(iter(gone))) in ("pet", "family"):
                # (the new name as the message writes it: "he's Biscuit after all", not the lower case names are kept in)
                written = re.search(rf"(?<![\w-]){re.escape(new_names[0])}(?![\w-])", turn.content, re.IGNORECASE)
                swaps, renamed_only = {next(iter(gone)): written.group(0) if written else new_names[0]}, True
        # An age or a grade said anew ("小葵其实是6岁 上的是大班", "he is in class 6 actually", "Lorcan's seven actually"): what
        # stays of the replaced statements says the new one where it said the one old value of that kind ("孩子 上大班 在柳州
        # 一家蒙氏幼儿园"), cut as ever for the rest ("… Scoil Bhríde" goes with the school changed).
        said_anew = _values_said_anew(turn.content, _replaced_texts(user_id, replaced, [])) \
            if corrects and replaced and not swaps else {}
        value_swapped = bool(said_anew) and not _changes_besides(turn.content, said_anew)
        if value_swapped:
            swaps, said_anew = said_anew, {}  # nothing else changed: the replaced statements stay whole, with the new value
            # (and a slot fact that holds no old value stays as it is: "用户的职业是历史老师" beside "我入职是2014年")
            replaced = tuple(pk for pk, kind, content in MemoryItem.objects.for_user(user_id).filter(pk__in=list(replaced))
                             .values_list("pk", "type", "content")
                             if kind == MemoryItem.Type.EPISODE or corrections.with_swapped(content, swaps) != content)
        elif said_anew:
            restated = [k for k in restated if k not in _SWAPPED_KINDS]
        # (an age or a grade said anew rewrites only what the correction replaced: "six" is in "I run six miles" too)
        named_swaps = {} if value_swapped else {old: new for old, new in swaps.items() if not old[:1].isdigit()}
        if named_swaps and not renamed_only:
            # What held the old name, or the old number said of its subject, is rewritten whatever the guess found
            # ("keisha's 15 not 16" finds "my daughter keisha is 16 and wants a part time job"); a day of the month
            # only in what the correction replaces ("the 14th" is in many a statement).
            # A slot fact that said it goes too ("The user's child: daughter Keisha is 16"), its episode rewritten.
            replaced = tuple(dict.fromkeys([*replaced, *(pk for pk, content in _newest_episodes(user_id, facts_too=True)
                                                         if corrections.with_swapped(content, named_swaps) != content)]))
        if aged and swaps is aged:
            # (a slot fact that says no old age of theirs stays: "The user's pet: staffy Rex" beside "Rex is actually eleven")
            replaced = tuple(pk for pk, kind, content in MemoryItem.objects.for_user(user_id).filter(pk__in=list(replaced))
                             .values_list("pk", "type", "content")
                             if kind == MemoryItem.Type.EPISODE or corrections.with_swapped(content, swaps) != content)
        cut = _remainders(user_id, replaced, old, kept_of, restated, left_of, names_only=names_only, swaps=swaps,
                          moved=bool(moved_to), took_along=_took_along(turn.content),
                          vectors=changing or [vector],
                          pieces=[texts[i] for i in changing_at] or [turn.content])
        if said_anew:
            # (what nothing else would keep of a statement that held the old value stays whole, with the new one: "my son
            # Arnav is in class 6 at Kendriya Vidyalaya in Dehradun …" whatever else the message changed)
            # (not beside something else chosen instead: "… we ended up going with Gaelscoil na Cille instead of Scoil Bhríde")
            # (its clauses that say another value of a kind the message says anew go: "… due on 3rd Nov" beside "in April")
            whole = {} if any(_CHOSEN_INSTEAD_RE.search(c) and not any(_said_word(v, c) for v in said_anew.values())
                              for c in corrections.clauses(turn.content)) else {
                e.pk: e for e in MemoryItem.objects.for_user(user_id).filter(pk__in=[pk for pk, left in cut if left is None])
                if not corrections.holds_any(corrections.with_swapped(e.content, said_anew), old - set(said_anew))}
            cut = [(pk, dataclasses.replace(left, content=corrections.with_swapped(left.content, said_anew)) if left
                    else _remainder_draft(_draft_of(whole[pk]), swapped) if pk in whole
                    and (swapped := _without_kinds(corrections.with_swapped(whole[pk].content, said_anew), restated))
                    and swapped != whole[pk].content else None)
                   for pk, left in cut]
        rest = [*(left for _, left in cut if left is not None),
                *(kept for d in earlier
                  if d.type == MemoryItem.Type.EPISODE and (kept := _remainder(d, old, kept_of, restated, names_only=names_only)))]
        old_texts = [*_replaced_texts(user_id, replaced, [s for s in slots if s not in _ADDITIVE_SLOTS]),
                     *(d.content for d in earlier)]
        chosen: list[str] = []
        if keep_episodes:
            first = at
            chosen, at = _disclosing(sentences, whole_keep, keep, correction, at, model, turn.content)
            last = before[number].rstrip("\n").rsplit("\n", 1)[-1]  # the user's message before this one
            if not chosen and turn.turn_id not in others and _NAMES_GIVEN_RE.search(turn.content) \
                    and _HOUSEHOLD_SAID_RE.search(last) and not _SOMEONE_ELSE_SAID_RE.search(last) \
                    and not _QUESTION_RE.search(turn.content):
                # "ok. shes called Wren btw" or "names are Ottilie and Cass" right after the user spoke of their child or
                # pet ("kid 2 starts year 3 in sept"): the name of someone of the household, whatever it scored alone.
                chosen = sentences
            if not chosen and turn.turn_id not in others and _KID_LED_RE.match(turn.content) \
                    and _OWN_KID_SAID_RE.search(before[number]) and not _SOMEONE_ELSE_SAID_RE.search(last) \
                    and not _asks_only(turn.content):
                # "还有他芒果过敏 吃了嘴巴就肿" or "他报了个少儿编程 一年6800" right after "我家乐乐明年9月上小学": the child's
                # news is the household's, whatever it scored alone.
                chosen = sentences
            if not chosen and turn.turn_id not in others:
                # "还有个事，孙子浩浩放暑假要来住一个月，…": a fact of the household's (a grandchild named, a birthday, an age)
                # is kept as in a message about someone else, whatever the rest scored.
                chosen = [p for p in sentences if _FAMILY_FACT_RE.search(p)]
            if turn.turn_id in others:
                # About someone else: only its clauses with the user as their subject ("我妈倒是天天跳广场舞 在老家洛阳，
                # 我在上海工作一年就回去两次" keeps "我在上海工作一年就回去两次").
                chosen = own_clauses(sentences, [float(keep[first + i]) for i in range(len(sentences))]
                                     if len(sentences) > 1 else [], before[number] + turn.content)
            if not chosen and turn.turn_id not in others and (turn.turn_id in slots_of or gone or new_job or aged
                                                              or (corrections.parted(turn.content)
                                                                  and not _HYPOTHETICAL_RE.search(turn.content)) or (
                    (replaced or earlier or new_value_said) and (judged or of_topic)
                    and not _HYPOTHETICAL_RE.search(turn.content)) or (
                    # (judged by the classifier alone, the words must say a change or speak of a topic of a life: "insane.
                    # ok unrelated but what's the most overrated movie of all time" and "最近那个AI画画的新闻你咋看 画师们吵翻了"
                    # scored corrections)
                    whole_keep >= RETRACTION_KEEP and ((judged and (_says_a_change(turn.content)
                                                                    or set(about) - _WHEN_TOPICS))
                                                       or corrections.retracted_terms(turn.content))) or (
                    replaced and _tells_new_value(turn.content, old_texts))):
                # The extractor filled a slot from it, or it corrects or retracts something (a correction that
                # replaces what the user said: "it's actually Brisket not Biscuit 💀"): the user did say
                # something about themselves.
                chosen = sentences
        if len(sentences) > 1 and _HAN_RE.search(turn.content):
            # A Chinese chat message's pieces are sentences of their own ("有个女同事小美花生过敏 挺严重的 还有俩是回民
            # 不吃猪肉"): who a piece is about is read across them, as within one sentence.
            theirs = {q for p, other in zip(sentences, _of_others([p.strip() for p in sentences],
                                                                  before[number] + turn.content), strict=True) if other
                      for q in (p, _life_said(p)) if q}
            # (a piece _disclosing kept as its statement before a question is looked up as that statement)
            scored = {q: float(keep[first + i]) for i, p in enumerate(sentences) for q in (p, _life_said(p)) if q} \
                if keep_episodes else {}
            # What is left beside someone else's pieces stands on its own score ("音响好主意" before "还有我小姑子 在成都…").
            chosen = [c for c in chosen if _FAMILY_FACT_RE.search(c)
                      or (c not in theirs and (not theirs or scored.get(c, 1.0) >= SENTENCE_DROP))]
        chosen = _of_the_user(chosen, before[number], turn.content)
        if chosen and turn.turn_id in slots_of and _said_by_its_slots(turn.content, values_of[turn.turn_id]):
            chosen = []  # "我们公司是做母婴用品的": its slot fact says it all; one memory, not two
        if chosen and not replaced and not gone and not new_value_said and not new_job and turn.turn_id not in slots_of \
                and _a_moment("".join(chosen)):
            chosen = []  # "this week felt like a month", "周一综合症又犯了，啥都不想干": how the user is, not who
        if chosen and not replaced and not earlier and not gone and turn.turn_id not in slots_of \
                and _asks_the_world(turn.content):
            chosen = []  # "did you see the new James Webb photos? mental": a question about the world, no one's news
        if not chosen:
            if replaced:
                first = next((i for i, d in enumerate(drafts) if d.turn_id == turn.turn_id), None)
                if first is not None:
                    drafts[first] = dataclasses.replace(drafts[first], supersedes_ids=replaced)
                    remainders = _with_rest(remainders, rest, cut, left_of)  # what else they said stays beside it
            if turn.turn_id in slots_of:
                # Kept as its slot facts alone ("我儿子5岁 想给他报个兴趣班"): a correction later in the run finds it as
                # it finds an episode ("啊不对 我说错了，他上个月刚过完生日 已经6岁了"), and replaces what that turn wrote.
                stand_in = next(d for d in drafts if d.turn_id == turn.turn_id)
                drafted.append((vector, dataclasses.replace(stand_in, content=turn.content.strip(),
                                                            value={"slots": slots, "topics": about})))
            continue
        remainders = _with_rest(remainders, rest, cut, left_of)
        text = "".join(chosen) if is_chinese(turn.content) else " ".join(chosen)
        if corrects:
            text = _without_said_before(corrections.without_retractions(text))
        if renamed:
            text = _renamed(text, gone, corrections.names(turn.content))
        elif gone:
            text = _unnamed(text, gone, known, " ".join(old_texts))
        for name in corrections.parted(turn.content) - gone:
            # someone parted from, never named before ("嗯 跟小雅分了 上个月的事"): the parting stays, not the name
            text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])" if name.isascii() else re.escape(name),
                          "my partner" if name.isascii() else "对象", text, flags=re.IGNORECASE)
        if judged or of_topic or refills or gone or corrections.retracted_terms(turn.content):
            # Only a correction known as one (the classifier's, a slot's new value, a value named as retracted):
            # after a guess by topic, the words two statements share are what they are about, not an old value.
            # (a title the user keeps in a new job is still true: "physio" of "Salthill Physio" in "I'm in the physio dept")
            titles = list(MemoryItem.objects.for_user(user_id).current().filter(key="job_title")
                          .exclude(pk__in=replaced).values_list("content", flat=True)) if new_job and not left_job else []
            text = corrections.without_old_mentions(text, old_texts, values_of.get(turn.turn_id, []), sorted(old),
                                                    # (and what it says instead: "it's june 14th not the 4th")
                                                    still_true=[r.content for r in rest] + titles
                                                    + corrections.said_instead(turn.content) + _new_job_said(
                                                        turn.content, new_job and not left_job))
        if corrects and (replaced or earlier):
            text = _without_replaced_values(text, old_texts)
        if replaced:
            # "I quit keto, now 16:8 fasting": the episode replaces what held "keto"; a "no longer: keto" note
            # beside it would only show the old value again.
            drafts = [d for d in drafts if not _retraction_said_by(d, turn.turn_id, user_id, replaced)]
        text = _with_speaker(turn.content, (text or turn.content.strip()))[:MAX_CHARS]
        episodes.append(MemoryDraft(
            content=text, type=MemoryItem.Type.EPISODE, source=MemoryItem.Source.USER_STATED,
            value={"slots": slots, "topics": about, **({"places": places} if (places := places_in(text)) else {})},
            confidence=round(0.6 + 0.3 * whole_keep, 3), quality=0.9,
            agent_id=turn.agent_id, session_id=turn.session_id, turn_id=turn.turn_id,
            excerpt=turn.content[:500],
            tags={**context_tags(turn.content), "extractor": "episodes", **({"correction": "true"} if corrects else {}),
                  # resolved to the memories written from those turns when this one is written (working/extract.py)
                  **({"replaces_turns": ",".join(str(d.turn_id) for d in earlier)} if earlier else {})},
            supersedes_ids=replaced,
        ))
        drafted.append((vector, episodes[-1]))
    return [*drafts, *episodes, *remainders]


def _another_employer(user_id: str, values: Sequence[str]) -> bool:
    """Whether none of ``values`` (the employers a message gives) is one the user has now, and one names no place (a
    town read as an employer is no new job: "since I'm in Wrocław now … I've started as a bike mechanic")."""
    current = {str(v).lower() for v in MemoryItem.objects.for_user(user_id).current().filter(key="employer")
               .values_list("value", flat=True)}
    return not any(str(v).lower() in current for v in values) and not all(places_in(str(v)) for v in values)


def _new_job_said(message: str, new_job: bool) -> list[str]:
    """Of a new job, the clauses that say what it is: their words are what changed, even those the old job's statement
    shared ("I got a new job, not in clinic like before — I'm dental hygienist at Medicover" of "I am dental assistant
    … in private clinic")."""
    if not new_job:
        return []
    return [c for c in corrections.clauses(message) if (_JOB_TITLE_SAID_RE.search(c) or _WORKS_AT_EN_RE.search(c)
                                                         or _WORKS_AT_ZH_RE.search(c) or _NOW_WORKS_AT_RE.search(c))
            and not corrections.retracted_terms(c) and not _NOT_LIKE_BEFORE_RE.search(c)]


#: A clause that says what the user no longer does ("not in clinic like before", "不在诊所了").
_NOT_LIKE_BEFORE_RE = re.compile(r"\b(?:not|no longer|anymore)\b|不再|不在|不干|不做|不当", re.IGNORECASE)


def _workplace_of_workmate(draft: MemoryDraft, message: str) -> bool:
    """Whether an employer draft was read from who the user works with there ("My manager at Analog Devices has everyone
    doing a step challenge"), or a commute from the way itself in a message where the user speaks of themselves ("…, and
    with the drive from Ballincollig up to Limerick and back eating two hours a day I'm struggling"): the user's, though
    the message is about the manager."""
    if draft.key == "commute":
        found = COMMUTE_SAID_RE.search(message)
        return found is not None and str(draft.value) == found.group("v") and bool(_OWN_SUBJECT_RE.search(message))
    found = WORKMATE_AT_RE.search(message) if draft.key == "employer" else None
    return found is not None and str(draft.value) == found.group("v").strip()


def _pieces_scored(keep: np.ndarray, clause: np.ndarray, parts: list[list[str]], split: bool) -> np.ndarray:
    """The keep scores with each piece of a message of several read as a clause (``DisclosureModel.
    clause_probabilities``), not as a message: "在昆山电子厂上夜班" of "在昆山电子厂上夜班 白天睡不着 有啥办法能睡好点" scores
    0.24 read as a message, 0.60 as a clause. Only a piece that speaks of the user's life in words (``_of_a_life``) is
    read so, and only to lift it: the clause head keeps chatter too ("evening.", "ha called it."), and reads some pieces
    lower than the message head does ("my bday is june 12 and my friends keep asking what i want.")."""
    out, at = keep.copy(), 0
    for sentences in parts:
        at += 1
        if len(sentences) > 1 and split:
            theirs = False  # a piece with no subject after someone else's goes on about them ("我男朋友… 超爱打篮球")
            for i, piece in enumerate(sentences):
                row = at + i
                if _WITH_THEM_RE.search(piece):
                    theirs = False  # "我跟我老婆都在事业单位": the user too
                elif _PARTNER_LED_RE.search(piece) or about_another_person(piece) or _SOMEONE_ELSE_RE.search(piece):
                    theirs = True
                elif _FIRST_PERSON_RE.search(piece):
                    theirs = False
                if not theirs and _of_a_life(piece):
                    out[row] = max(keep[row], clause[row])
            at += len(sentences)
    return out


#: A question asked in so many words, without a mark ("医生一般几点下班啊", "你觉得咋样").
_ASKED_RE = re.compile(r"几点|几个|多少|多久|多重|多大|多远|什么|啥|咋|怎么|怎样|如何|哪|为什么|为啥|有没有|能不能|是不是|可不可以|[吗呢]\s*$|"
                       r"^\s*(?:what|how|why|which|where|when|who|whats|what's|is|are|do|does|did|can|could|should|would|any)\b",
                       re.IGNORECASE)


#: A partner's own life, said first ("我老婆在呼和浩特当幼师", "my wife's a nurse"): theirs (see grounding), not lifted.
_PARTNER_LED_RE = re.compile(r"^\s*(?:(?:and|also|oh|but|plus|btw)[\s,]*)*(?:我的?|咱)?(?:老公|老婆|丈夫|妻子|爱人|媳妇|对象|男朋友|女朋友|"
                             r"男友|女友|未婚夫|未婚妻)|^\s*(?:(?:and|also|oh|but|plus|btw)[\s,]*)*(?:my|our) (?:husband|wife|"
                             r"partner|boyfriend|girlfriend|fianc[eé]e?|hubby|missus|other half)\b", re.IGNORECASE)
#: Someone other than the user's children named (a partner, a relative, a friend, a colleague), or a piece led by
#: "he"/"she": what follows with no subject is theirs ("… for my coworker Darlene, she's been there 31 years, started as
#: a receptionist").
_SOMEONE_ELSE_RE = re.compile(rf"\b(?:my|mi|our|his|her|their)\s+(?:[\w-]+\s+)?(?!(?:son|daughter|kid|baby|grandson|granddaughter|"
                              rf"grandkid|grandchild)s?\b)(?:{PERSON_EN})s?\b|(?:我|我们)的?(?!儿子|女儿|闺女|孩子|孙子|孙女)(?:{PERSON_ZH})|"
                              r"^\s*(?:(?:and|also|but|so|oh|plus|btw)[\s,]*)*(?:he|she|he's|she's|hes|shes|他|她)(?![\w'])",
                              re.IGNORECASE)
#: The user with them: "我跟我老婆都在事业单位", "my wife and I", "we both teach".
_WITH_THEM_RE = re.compile(r"我(?:跟|和|与|同)|我们|咱们|\b(?:and i|me and|we|we're|we've|both of us|the two of us)\b", re.IGNORECASE)
#: How the user is right now, in words a disclosure also uses ("累成狗了", "lol i just spilled coffee on my keyboard").
_PASSING_RE = re.compile(r"累成狗|累死|困死|饿死|单身狗|\b(?:lol|lmao|haha|omg|ugh)\b", re.IGNORECASE)
#: What the user thinks, not what they live ("i always thought it was sydney 😂", "我还以为是在北京").
_OPINION_RE = re.compile(r"\b(?:i|we) (?:always |just |really |honestly )?(?:thought|think|guess|bet|knew|figured|believe|"
                         r"reckon|feel like|suppose)\b|我(?:还|一直|总)?(?:以为|觉得|感觉|猜|估计|认为)", re.IGNORECASE)


def _of_a_life(piece: str) -> bool:
    """Whether a piece of a message speaks of the user's life in words (a topic of one: work, home, a pet, an age ...;
    a known place; a child or a pet; a name given; the user doing or having something), and neither asks, opines, tells
    a passing moment nor leads with someone else (a partner's own life is theirs)."""
    if _QUESTION_RE.search(piece) or _ASKED_RE.search(piece) or _OPINION_RE.search(piece) or _MOMENT_RE.search(piece) \
            or _PASSING_RE.search(piece) or _HYPOTHETICAL_RE.search(piece) or (
                (_PARTNER_LED_RE.search(piece) or about_another_person(piece)) and not _WITH_THEM_RE.search(piece)):
        return False
    lexical = disclosure.life_words(piece)
    return bool(corrections.topics(piece) or places_in(piece) or corrections.names(piece) or lexical)


def _of_the_user(chosen: list[str], before: str, message: str) -> list[str]:
    """The chosen pieces of a message without what they say of someone else: a piece led by "he"/"she" after someone
    else was named, and one with no subject that goes on from it ("she's been there 31 years, started as a
    receptionist …"), go; so do the clauses of someone else inside a piece."""
    out: list[str] = []
    dropped = False
    for i, piece in enumerate(chosen):
        if _not_a_fact(piece):
            continue
        theirs = bool(pronoun_about_another(piece, before + _said_before(message, piece, chosen[:i]))) or (
            dropped and bool(_VERB_LED_RE.match(piece)) and not _FIRST_PERSON_RE.search(piece))
        kept = "" if theirs else _without_others(piece, before + message)
        dropped = not kept
        if kept:
            out.append(kept)
    return out


def _newest_episodes(user_id: str, *, facts_too: bool = False) -> list[tuple[int, str]]:
    """The user's own current episodes (``facts_too``: and slot facts), newest first, as many as a job left or a move
    looks through."""
    mine = MemoryItem.objects.for_user(user_id).current().filter(source=MemoryItem.Source.USER_STATED)
    if not facts_too:
        mine = mine.filter(type=MemoryItem.Type.EPISODE)
    return list(mine.order_by("-created_at").values_list("pk", "content")[:WORK_SAID_FROM])


#: Words of a move: "we moved to …", "relocated", "搬到/搬回/搬去…", "现在住…".
_MOVED_RE = re.compile(r"搬(?:到|去|回|来|家到)?|现在住|\b(?:moved|relocated|shifted|moving back|now that (?:i'm|im|i am|we're|we are) "
                       r"(?:living |based |settled )?in (?-i:[A-Z])(?![^.!?]{0,40}\bfor (?:a|an|the|work|my)\b))", re.IGNORECASE)
#: A clause about where one comes from or goes, not where one lives: "I grew up in Leeds", "a trip to Crete".
_NOT_LIVED_RE = re.compile(r"老家|出生|长大|出差|旅游|旅行|[去来][^，。！？\s]{0,8}玩|度假|蜜月|婚礼|回国|\b(?:grew up|born|originally|conference|"
                           r"(?<!commute )(?<!commuting )(?<!drive it )(?<!drive in )from|trip|holiday|"
                           r"vacation|visit\w*|flight|fly\w*|honeymoon|wedding|going to|heading to|travel\w*|tour)\b",
                           re.IGNORECASE)


def _moved_to(message: str, new_values: Sequence[str]) -> set[str]:
    """The places a message says the user moved to ("we moved to Midrand to be closer to my mom", "搬咗去珠海香洲"), or none."""
    message = cantonese_as_mandarin(message)
    if not any(_MOVED_RE.search(c) and not _QUESTION_RE.search(c) and not _HYPOTHETICAL_RE.search(c)
               for c in corrections.clauses(message)) or _FOR_A_WHILE_RE.search(message):
        return set()
    # (the slot's value is a place whether or not the word lists know it: "we moved to Midrand")
    return {p.lower() for v in new_values for p in [*places_in(str(v)), str(v)] if str(v).strip()}


#: Come to live or work in a place, in Chinese chat ("来大理帮朋友管民宿", "我们跟老板去雄安了"): the place a word list knows.
_ARRIVED_ZH_RE = re.compile(r"(?:^|(?<=[\s，,。！!]))(?:现在|目前|已经|上个月|上周|年初|刚)?(?:我|我们|俺|俺们)?(?:[\u4e00-\u9fff]{0,4}?)"
                            r"(?<![想要准备打算计划])(?:来|到|回|去)了?(?P<p>[\u4e00-\u9fff]{2,3}?)(?:了|这边|那边|帮|做|开|上班|工作|打工|住|定居)")
#: ...or said as a home rented or bought there ("最近搬家了，在丰台租了个一居"; not "在三亚租了个民宿").
_HOME_TAKEN_ZH_RE = re.compile(r"(?:^|(?<=[\s，,。！!]))(?:现在|目前|最近)?(?:我|我们)?在(?P<p>[\u4e00-\u9fff]{2,3}?)(?:这边|那边)?(?:租|买)了"
                               r"(?:个|一个|套|一套|间|一间)?[\u4e00-\u9fff]{0,3}?(?:一居|两居|二居|三居|房子|公寓|单间|新房|老破小)")
#: ...or said as where the user is now, as the ground of a request ("既然我现在人在槟城 这边华人超市…"; not "我现在在东京，明天回国").
_NOW_IN_ZH_RE = re.compile(r"(?:^|(?<=[\s，,。！!]))(?:既然|反正)(?:我|我们)?(?:现在|目前|如今)(?:人|已经)?在(?P<p>[\u4e00-\u9fff]{2,3}?)"
                           r"(?=[\s，,。！!]|这边|那边|了|$)")
#: ...or said by what is new there, or what the rent costs ("海淀这边的新学校午休只有40分钟", "新家在通州", "上海这边房租也太离谱了").
_NEW_THERE_ZH_RE = re.compile(r"(?:^|(?<=[\s，,。！!]))(?:好久不见\s*|现在\s*)?(?P<p>[\u4e00-\u9fff]{2,3}?)这边的?"
                              r"(?:新(?:学校|公司|单位|家|房子|宿舍|小区|工作|工位)|房租)")
#: ...or getting used to it ("入职第一周累瘫 … 还得适应西安这个干", "还在适应伦敦的天气").
_GETTING_USED_ZH_RE = re.compile(r"(?:还得|还要|得|正在|慢慢|还在|刚)适应(?P<p>[\u4e00-\u9fff]{2,3}?)(?:这个|这边|那边|的)")
#: ...or the user's things sent there ("辞职打包把东西全寄回长沙了").
_BELONGINGS_ZH_RE = re.compile(r"(?:东西|行李|家当|家具)[\u4e00-\u9fff]{0,3}?(?:寄|搬|运|拉)(?:回|到|去)了?(?P<p>[\u4e00-\u9fff]{2,3}?)"
                               r"(?:了|这边|那边|[\s，,。！!]|$)")
#: ...in English: "the whole group is moving to Lausanne, I'm going too".
_ARRIVED_EN_RE = re.compile(r"\b(?:is|are) (?:moving|relocating) to (?P<p>[A-Z][\w'-]+(?: [A-Z][\w'-]+)?),? (?:and )?(?:i'm|im|i am) "
                            r"(?:going|coming|moving) (?:too|with (?:them|it))\b|"
                            # "we ended up shifting up to Taranaki", "new place in South Kalamassery is tiny", "renting a
                            # flat in Westville now"
                            r"\b(?:we|i)(?:'ve| have)? (?:ended up |just |finally |recently )?(?:shift(?:ed|ing)|mov(?:ed|ing)|"
                            r"relocat(?:ed|ing)) (?:up |down |over |back |out )?to (?P<q>(?-i:[A-Z])[\w'-]+(?: (?-i:[A-Z])[\w'-]+)?)|"
                            r"\b(?:new (?:place|flat|house|apartment|unit|home)|renting an? (?:flat|house|room|place|unit|apartment)|"
                            r"bought an? (?:house|flat|place|unit)) (?:is |here |out |up |down )?in (?P<r>(?-i:[A-Z])[\w'-]+(?: (?-i:[A-Z])[\w'-]+)?)|"
                            # "since the move to Tucson the Outback's AC has been struggling"
                            r"\b(?:since|after) (?:the|our|my) (?:move|relocation) (?:up |down |over |back |out )?to "
                            r"(?P<s>(?-i:[A-Z])[\w'-]+(?: (?-i:[A-Z])[\w'-]+)?)",
                            re.IGNORECASE)


def _arrived_at(message: str) -> set[str]:
    """The places a message with no location slot says the user now lives or works in, in words no slot pattern reads
    ("现在不带团啦 来大理帮朋友管民宿"), or none: not a trip, a stay, a plan or a wish ("来上海玩", "下个月去洛阳"), and only a place the
    word lists know (Chinese) or a capitalised name (English)."""
    if _FOR_A_WHILE_RE.search(message):
        return set()  # "暂时来大理帮朋友看店": a stay, not a move
    found: set[str] = set()
    for clause in corrections.clauses(message):
        if _QUESTION_RE.search(clause) or _HYPOTHETICAL_RE.search(clause) or _NOT_LIVED_RE.search(clause) \
                or _PLANNED_RE.search(clause):
            continue
        found |= {p.lower() for m in (*_ARRIVED_ZH_RE.finditer(clause), *_BELONGINGS_ZH_RE.finditer(clause),
                                      *_NOW_IN_ZH_RE.finditer(clause), *_NEW_THERE_ZH_RE.finditer(clause),
                                      *(_HOME_TAKEN_ZH_RE.finditer(clause) if "搬" in message else ()),
                                      *(() if _NOT_LIVED_RE.search(message) else _GETTING_USED_ZH_RE.finditer(clause)))
                  for p in places_in(m.group("p"))}
    # (across a comma: "the whole group is moving to Lausanne, I'm going too")
    return found | {(m.group("p") or m.group("q") or m.group("r") or m.group("s")).lower() for m in _ARRIVED_EN_RE.finditer(message)
                    if not _HYPOTHETICAL_RE.search(message) and not _PLANNED_RE.search(message[m.start():m.end() + 40])
                    and not (m.group("s") and _SYSTEMS_RE.search(message))}


#: Words of software and systems: "since the move to Kubernetes our deploys are faster" is no move of the user's.
_SYSTEMS_RE = re.compile(r"\b(?:deploy\w*|server\w*|cluster\w*|cloud|kubernetes|k8s|azure|aws|gcp|database\w*|codebase|repo\w*|"
                         r"framework\w*|stack|pipeline\w*|platform\w*|app|apps|api|backend|frontend|version|migration)\b", re.IGNORECASE)
#: A move only planned ("下个月去洛阳", "明年搬回成都", "next month"): not yet where the user is.
_PLANNED_RE = re.compile(r"下个?月|下周|明年|过几天|过段时间|以后|打算|准备|计划|想|要去|\b(?:next|soon|planning|plan to|will)\b",
                         re.IGNORECASE)


#: A reason given, where a clause of its own begins ("we fly from Heathrow because we live in Ealing").
_BECAUSE_RE = re.compile(r"\s+(?:because|cause|cuz|since)\s+", re.IGNORECASE)


def _lived_elsewhere(content: str, moved_to: set[str]) -> bool:
    """Whether an episode says in a clause of the user's own that they live or work in another place than the ones
    moved to ("I teach Grade 4 at a primary school in Centurion", "我退休了住自贡", "我喺深圳南山租紧个单间")."""
    # (a reason given is a clause of its own: "we fly from Heathrow because we live in Ealing")
    for clause in (part for c in corrections.clauses(cantonese_as_mandarin(content)) for part in _BECAUSE_RE.split(c)):
        places = _places_of(clause)
        if places and not places & moved_to and not any(p in m or m in p for p in places for m in moved_to) \
                and (_FIRST_PERSON_RE.search(clause) or _CJK_CLAUSE_RE.match(clause) or _LIVING_IN_RE.search(clause)) \
                and not _NOT_LIVED_RE.search(clause) and not about_another_person(clause) \
                and (_LIVES_OR_WORKS_RE.search(clause) or _WORK_SAID_RE.search(clause)):
            return True
        # (or studies there, said as who the user is: "hello 天津的高二学生", "合肥大四")
        if _STANDING_RE.match(re.sub(r"^\W*(?:hello|hi|hey|嗨|哈喽)\s*", "", clause, flags=re.IGNORECASE)) \
                and (standing := _standing_places(clause.replace("的", ""))) and not standing & moved_to:
            return True
    return False


_CJK_CLAUSE_RE = re.compile(r"^\s*(?:我|住|在|家在|家住)")
#: A place named after "in" in English, as written ("a primary school in Centurion"), which the word lists may not know.
_IN_PLACE_RE = re.compile(r"\b(?i:in|near|outside|around|commute from|commuting from|drive it from|drive in from|i stay) "
                          r"(?P<p>[A-Z][a-z]{2,}(?: [A-Z][a-z]{2,})?)\b")


def _places_of(text: str) -> set[str]:
    """The places ``text`` names, in lower case: the word lists' and, in English, a capitalised name after "in"."""
    return {p.lower() for p in places_in(text)} | {m.group("p").lower() for m in _IN_PLACE_RE.finditer(text)
                                                   if m.group("p").split()[0] not in _NOT_PLACE_WORDS} | {
        m.group("p") or m.group("q") for m in _LIVE_AT_ZH_RE.finditer(text)}


#: Where the user lives in Chinese chat, as written, which the word lists may not know ("我住伍家岗 离车站近", "我们家住在
#: 鼓楼，离医院骑车一刻钟").
_LIVE_AT_ZH_RE = re.compile(r"(?:我|我们|我家|我们家)(?:现在|目前)?(?:住在?|家在)(?:(?P<p>[\u4e00-\u9fff]{1,3}(?:区|县|镇|村|岗|路|街|城|湾|庄|坪|"
                            r"坝|园|苑|门|桥|口|山|湖|港|州|市))(?=[\s，,。！!]|这边|那边|附近|$)|"
                            r"(?<=住在|家在)(?!宿舍|公司|单位|家里|学校|附近|这边|那边|楼上|楼下|老家|市区|郊区|城里|乡下|村里|一楼|顶楼)"
                            r"(?P<q>[\u4e00-\u9fff]{2,3})(?=[，,。！!]))")
#: A commute said from where one sets out ("从仓山开车过去上班", "每天从番禺开车去天河上班").
_HOME_SAID_RE = re.compile(r"从[\u4e00-\u9fff]{2,4}?(?:家里|这边|那边)?(?:坐|搭|骑|开|揸)[\u4e00-\u9fff\d]{0,6}?(?:去|过去|到)?"
                           r"[\u4e00-\u9fff]{0,6}?(?:上班|上学|返工)")


#: Capitalised words after "in" that name no place ("in March", "in English").
_NOT_PLACE_WORDS = frozenset("""January February March April May June July August September October November December
Monday Tuesday Wednesday Thursday Friday Saturday Sunday English Chinese Spanish French German Python Java Excel
Christmas Easter Diwali Eid Thanksgiving Halloween Ramadan Mum Mom Dad Nan Gran Grandma Grandpa
The This That These Those Our Your His Her Their""".split())
#: Words of living or working somewhere ("I teach Grade 4 … in Centurion", "我退休了住自贡"); not of eating or owning there.
_LIVES_OR_WORKS_RE = re.compile(r"\b(?:live|lives|living|lived|based|staying|i stay|work|works|working|teach|teaches|teaching|rent|"
                                r"(?:here|out here|over here|up here|down here) in|"
                                r"commute from|commuting from|drive it from|drive in from|"
                                r"renting|moved|flat|apartment|house)\b|\b(?:we're|we are|i'm|im|i am) in\b|"
                                # the user there day in, day out ("I'm on gravel ranch roads around Bozeman all day")
                                r"\b(?:i'm|im|i am|we're|we are) (?:on|at|out|around|up|down)\b(?!.{0,40}\b(?:calls?|phones?|zoom|teams|screens?|"
                                r"emails?|laptops?|meetings?|computers?)\b).{0,50}\b(?:all day|every day|most days)\b|"
                                r"住|上班|工作|教书|定居|坐标|搬|家在|"
                                r"^\s*(?:我)?在[\u4e00-\u9fff]{1,8}?[做当](?![了个过完饭菜手检体核])[\u4e00-\u9fff]{2}",  # "在昆明做导游第八年了"
                                re.IGNORECASE)
#: A stay for a while, not a move ("moved to Lisbon for the summer", "暂时搬到…").
_FOR_A_WHILE_RE = re.compile(r"\bfor the (?:summer|winter|season|semester|term)\b|\bfor (?:a|a few|two|three|\d+) (?:weeks?|months?)\b|"
                             r"\btemporar\w*|暂时|临时|先住", re.IGNORECASE)
#: Chat's clause with no subject that says where one lives: "scottish guy living in hanoi".
_LIVING_IN_RE = re.compile(r"\b(?:living|based|staying)\s+in\b|\b(?:commute|commuting|drive it|drive in) from\b|"
                           r"\b(?:here|out here|over here|up here|down here) in\b", re.IGNORECASE)  # "it's 41 degrees here in Upington"


def _with_rest(remainders: list[MemoryDraft], rest: list[MemoryDraft], cut: list[tuple[int, MemoryDraft | None]],
               left_of: dict[int, MemoryDraft | None]) -> list[MemoryDraft]:
    """``remainders`` with ``rest`` added, in place of what an earlier correction of the run had left of the same
    episodes (``cut`` now cuts from that); ``left_of`` records what is left of each."""
    earlier = [left_of[pk] for pk, _ in cut if left_of.get(pk) is not None]
    left_of.update(cut)
    return [r for r in remainders if not any(r is e for e in earlier)] + rest


#: How many of the user's messages before a session are read for the people of theirs they speak of (whom "she" means),
#: and within how long before the session's first message.
LAST_SAID = 3
LAST_SAID_WITHIN = dt.timedelta(days=3)
#: How many of the user's newest memories are read for the names they give.
KNOWN_NAMES_FROM = 300


def _introduced_earlier(user_id: str, messages: Sequence[TurnText]) -> str:
    """The phrases of the user's latest turns before ``messages`` (of any session and agent, while their turns are
    held: SESSION_RETENTION_DAYS) that name someone ("my brother tomás", "our cat Pimento"), then the user's own people
    that the last LAST_SAID of those turns speak of ("my mom", "我女儿"), as a text to read the session after. One query of
    at most INTRODUCTIONS_FROM rows, by the turns' user index, and one for the session's start."""
    first = min((t.turn_id for t in messages if t.turn_id is not None), default=None)
    if first is None:
        return ""
    rows = list(Turn.objects.filter(user_id=user_id, role=Turn.Role.USER, pk__lt=first).order_by("-pk")
                .values_list("content", "created_at")[:INTRODUCTIONS_FROM])
    # then the user's own people that the last few messages spoke of, if recent: whom a "she" opening this session
    # means ("My mom is 78 …" yesterday, "her hip replacement was last year" now; not the "3个朋友" of a maths problem)
    opened = Turn.objects.filter(pk=first).values_list("created_at", flat=True).first()
    since = (opened or timezone.now()) - LAST_SAID_WITHIN
    return introductions("\n".join(content for content, _ in reversed(rows))) + "".join(
        f"{m.group(0)}.\n" for content, at in reversed(rows[:LAST_SAID]) if at >= since
        for m in _SOMEONE_OF_MINE_RE.finditer(content))


#: The user says they are single now ("single again lol", "现在单身", "我分手了", "we broke up"), naming no one.
_SINGLE_NOW_RE = re.compile(r"(?<![他她])(?:又|现在|目前|已经|恢复)(?:是)?单身(?!狗|汉|贵族|派对|公寓|的朋友|税|宿舍)了?|"
                            r"(?:^|(?<=[\s，,。！!]))(?:我|我们|我俩)(?:已经|上周|上个月|前几天|昨天)?(?:分手了|分了(?=$|[\s，,。！!~～…]|吧|啊|呢))|"
                            r"(?:^|(?<=[.!,;]\s))\W*single again\b|\b(?:(?:i'm|im|i am) (?:now |officially |newly )?single(?![\w-]| (?:parent|"
                            r"mom|mum|dad|income|room|bed|handed|minded))|i'm back to being single|"
                            r"(?:we (?:just |finally )?(?:broke up|split up|called it quits)|i (?:just )?(?:broke up|got dumped))"
                            r"(?=\s*(?:$|[,.;!?…]|(?:last|this|in|a few|after|over|like|lol|haha|and|so|but)\b)))",
                            re.IGNORECASE)


_PARTNER_WORD_RE = re.compile(r"^(?:老公|老婆|男朋友|女朋友|对象|未婚夫|未婚妻|wife|husband|partner|boyfriend|girlfriend|fianc\w*|spouse|"
                              r"gf|bf|hubby|missus|wifey)[,\s]*(?:叫|名叫)?", re.IGNORECASE)


def _partners_named(user_id: str, known: dict[str, str]) -> set[str]:
    """The known names of the user's partner, as the current partner facts give them ("gf Chloe", "女朋友阿琳")."""
    partners = [str(v).lower() for v in MemoryItem.objects.for_user(user_id).current()
                .filter(key="partner").values_list("value", flat=True)]
    # (the name the fact gives, without the word for whom: "男朋友阿杰" -> "阿杰", "gf chloe" -> "chloe")
    named = {name for p in partners if len(name := _PARTNER_WORD_RE.sub("", p).strip()) >= 2}
    return named | {name for name, topic in known.items() if topic == "family" and any(name in p for p in partners)}


def _naming(user_id: str, names: set[str]) -> list[int]:
    """The user's current partner facts and newest episodes that say one of ``names``."""
    said = re.compile("|".join(rf"(?<![\w-]){re.escape(n)}(?![\w-])" if n.isascii() else re.escape(n) for n in names),
                      re.IGNORECASE)
    facts = [pk for pk, content in MemoryItem.objects.for_user(user_id).current().filter(key="partner")
             .values_list("pk", "content") if said.search(content)]
    return facts + [pk for pk, content in _newest_episodes(user_id) if said.search(content)]


#: What someone reports of one of the user's own ("vet says Rex is actually eleven", "the doctor said my son is fine"):
#: ``{n}`` the name, or the user's own pet or child.
_TOLD_OF_OURS = (r"^\W*(?:(?:the|my|our)\s+)?(?:vet|doctor|doc|dentist|nurse|teacher|coach|breeder|groomer|trainer)\s+(?:says|said|reckons|"
                 r"thinks|told (?:me|us)|confirmed)(?: that)?\s+(?:{n}|(?:my|our)\s+(?:[\w-]+\s+)?(?:{pets}|son|daughter|kid|baby))\b")


def _told_of_ours(message: str, said: str) -> bool:
    """Whether ``message`` reports what a vet, a doctor or a teacher said of the user's own pet or child, named before
    (in ``said``, this session or an earlier one) or called "my …": the household's news, not the vet's."""
    names = [n for n, topic in corrections.names(said).items() if topic in ("pet", "family")]
    pattern = _TOLD_OF_OURS.format(n="|".join(re.escape(n) for n in names) or "(?!)", pets=EN_PETS)
    return bool(re.search(pattern, message, re.IGNORECASE))


def _known_names(user_id: str) -> dict[str, str]:
    """The names the user's current statements give to a pet, a child or partner, a project (with its topic)."""
    known: dict[str, str] = {}
    contents = (MemoryItem.objects.for_user(user_id).current().filter(source=MemoryItem.Source.USER_STATED)
                .order_by("-pk").values_list("content", flat=True)[:KNOWN_NAMES_FROM])
    for content in reversed(list(contents)):
        known.update(corrections.names(content))
    return known


def _corrected_earlier(drafted: Sequence[tuple[np.ndarray, MemoryDraft]], vectors: Sequence[np.ndarray],
                       about: list[str], named: set[str] = frozenset(), *, guess: bool = True) -> list[MemoryDraft]:
    """The episode drafted earlier in the same run that a correction replaces: the newest holding a value it
    retracts by name ("it's 4,700 not 5,100"); else, judged a correction, as corrected_items guesses among stored
    episodes, of the same topic (or, with none, closer still) and the closest in meaning."""
    holding = [draft for _, draft in drafted if draft.turn_id is not None and corrections.holds_any(draft.content, named)]
    if holding or not guess:
        return holding[-1:]
    least = CORRECTION_MIN_COSINE if about else NO_TOPIC_MIN_COSINE
    # An age is someone's: of the user's family or pet ("my daughter Rosalie, she's 6" then "she actually turned 7").
    wanted = set(about) | (_AGED if "age" in about else set())
    best: tuple[float, MemoryDraft] | None = None
    for vector, draft in drafted:
        if draft.turn_id is None or (about and not set(draft.value["topics"]) & wanted):
            continue
        if "age" in about and not corrections.TOPICS["age"].search(draft.content):
            continue  # an age corrected replaces what still says an age, not the words kept of its message
        cosine = max(float(np.dot(v, vector) / (np.linalg.norm(v) * np.linalg.norm(vector) or 1.0)) for v in vectors)
        if cosine >= least and (best is None or cosine > best[0]):
            best = (cosine, draft)
    return [best[1]] if best else []


def _counted_otherwise(content: str, counted: dict[str, set[str]]) -> bool:
    """Whether an episode gives another number of something a newer message counts ("80亩地" beside "一共120亩了")."""
    return any(unit in counted and not numbers & counted[unit] for unit, numbers in corrections.counts(content).items())


#: A shift ("调去day shift了" beside "做night shift 的"), a kind of value one holds one of at a time.
_SHIFT_RE = re.compile(r"\b(?:night|day|morning|evening|graveyard|swing|early|late|overnight) shifts?\b|"
                       r"(?<![一二三四五六七八九十\d])(?:大|小)?(?:夜班|白班|早班|晚班)", re.IGNORECASE)
#: A school year or a level ("四年级", "研二", "N2", "year 9", "中班").
_GRADE_RE = re.compile(r"[一二三四五六七八九1-9]年级|[初高][一二三]|(?<![科钻调考])(?:研[一二三]|博[一二三四五六])(?![\u4e00-\u9fff]{2})|(?<![A-Za-z])[Nn][1-5](?![\w])|"
                       r"(?<![A-Za-z])[A-C][12](?![\w])|\b(?:\d{1,2}(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|"
                       r"seventh|eighth|ninth|tenth|eleventh|twelfth) grade\b|\bgrade \d{1,2}\b|"
                       r"\b\d{1,2}(?:st|nd|rd|th) (?:std|standard)\b|"  # "in 3rd std" (India)
                       r"\b(?:freshman|sophomore|junior|senior) year\b|\bband [2-9]\b|\blevel [1-9]00\b|"
                       # "class 6" (India), "year 9" (UK, Australia), a kindergarten's "中班"/"大班"
                       r"(?<=\bin )class (?:[1-9]|1[0-2])(?:st|nd|rd|th)?\b|(?<=\bin )(?:year|yr) (?:[1-9]|1[0-3])\b(?! (?:old|ago|later))|"
                       r"(?<=[上读是])[大中小]班(?![长主车子级课])(?![^，。！？]{0,4}(?:下午|晚上|早上|夜|点))", re.IGNORECASE)
#: A clause that asks the assistant for something ("packing list for that trip pls", "帮我排个行程").
_ASKED_FOR_RE = re.compile(r"\b(?:pls|plz|please)\W*$|^\W*(?:pls|plz|please|can (?:you|u)|could (?:you|u))\b|^\W*(?:帮我|麻烦|给我(?:写|列|推荐|排))",
                           re.IGNORECASE)
#: A visa or a right to stay ("on a tourist visa", "residente temporal", "green card", "绿卡").
_VISA_RE = re.compile(r"\b(?:tourist|student|work|working holiday|spouse|partner|family|digital nomad|nomad|skilled|investor|"
                      r"h-?1b|f-?1|j-?1|o-?1|l-?1|e-?2|schengen|golden|d7|d8)[- ]visas?\b|\bresidente (?:temporal|permanente)\b|"
                      r"\b(?:permanent residen(?:ce|cy|t)|green card|blue card|residence permit|work permit|settled status|"
                      r"pre-settled status)\b|签证|绿卡|永居|居留(?:证|卡|许可)", re.IGNORECASE)
#: A visa said with what goes with it ("on a tourist visa (180 days)"), as a correction of it takes it out of a clause.
_VISA_SAID_RE = re.compile(rf"\s*(?:\b(?:on|with|got|have|holding) (?:an? |my |the )?)?(?:{_VISA_RE.pattern})(?: card)?(?:\s*\([^)]*\))?",
                           re.IGNORECASE)
#: A visa held, said as who the user is ("I'm on a student visa in Sydney"): it stays of what a correction of something
#: else leaves.
_VISA_HELD_RE = re.compile(rf"^\W*(?:(?:hi|hey|hello|so|and)\W+)*(?:i'm|im|i am|we're|we are) (?:here )?on an? {_VISA_RE.pattern}",
                           re.IGNORECASE)
#: A month alone in Chinese ("打算7月去" beside "改成10月中旬去了").
_MONTH_ALONE_RE = re.compile(r"(?:明年|今年|后年)?(?<![\d一二三四五六七八九十])(?:1[0-2]|[1-9]|十[一二]|[一二三四五六七八九十])月"
                             r"(?:份|初|中旬|上旬|下旬|底)?(?![\d一二三四五六七八九十号日天怀])")
#: Values of a kind a correction replaces one by another: a day on the calendar, an age, an amount of money, a school
#: grade, pay, a weight.
_VALUE_KINDS = (corrections.TOPICS["date"], corrections.TOPICS["age"],
                re.compile(r"(?:周|星期|礼拜)[一二三四五六日天](?![次回遍个])|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b",
                           re.IGNORECASE),  # a weekday ("改到周四"), not "一周三次"
                re.compile(r"[$¥￥€£]\s?\d[\d,.]*|(?<![\d,.])\d[\d,.]*\s?(?:块钱|块|元|万|dollars|bucks|usd|rmb|euros?|pounds|pesos|"
                           r"rand|naira|rupees|reais|zloty|złoty|yen|won|baht|ringgit)|"
                           # an amount a month ("max 18,000 pesos a month", "up to 25,000 a month now")
                           r"(?<![\d,.])\d[\d,.]*k?\s(?:a|per|/)\s?(?:month|mo|week|night)\b|"
                           r"\b\d+(?:\.\d+)?\s?(?:/\s?(?:hr|hour|h)|an hour|per hour)\b|时薪\d+|"
                           # pay in thousands ("I make about 85k a year", "base is 110k now"), not a 10k run
                           r"\b\d+(?:\.\d+)?k (?:a|per|/) ?(?:year|yr|annum)\b|\b(?:base|salary|pay|make|earn|making|earning|"
                           r"paid)(?: is| of| about| around| like)* \$?\d+(?:\.\d+)?k\b", re.IGNORECASE),
                _GRADE_RE,
                # a right to stay ("got my residente temporal card" beside "on a tourist visa")
                _VISA_RE,
                # pay ("到手6500" beside "一个月到手5800")
                re.compile(r"(?:到手|工资|月薪|底薪|税后|税前|时薪|日薪|工价)(?:大概|差不多|有|才|就|给|是)?\s?\d[\d,.]*\s?(?:k|K|w|千|万|块|元)?|"
                           r"(?:一天|每天|一个月|每月)(?:能挣|挣|赚|给|拿)?\d{2,5}(?:块|元)?(?![\d个次天步])"),
                # a body weight ("up to 74kg"), how often a week ("bumped to 5 days a week", "一周练5次"), how many
                # guests ("客人砍到80个", "95 guests")
                re.compile(r"\d+(?:\.\d+)?\s?(?:kg|kgs|lbs|公斤)(?![a-z])|体重[^，。\s\d]{0,4}\d+(?:\.\d+)?", re.IGNORECASE),
                _MONTH_ALONE_RE,
                re.compile(r"\b\d\s?(?:days?|times|x|nights?) (?:a|per|each|every) week\b|(?:一周|每周|一星期|每星期)[^，。\s]{0,3}?[一二三四五六七1-7]次",
                           re.IGNORECASE),
                re.compile(r"(?:客人|宾客|来宾|人数)[^，。！？\d]{0,6}\d+\s?(?:个|位|人|桌)?|\d+\s?(?:个|位)?(?:客人|宾客|来宾)|\d+\s?桌|"
                           r"请\d+\s?个?人|\b\d+\s+(?:guests|people|ppl|attendees)\b|"
                           r"\b(?:guest list|guest count|headcount)\b[^.,;!?]{0,30}?\b\d{2,4}\b", re.IGNORECASE),
                _SHIFT_RE,
                corrections.COUNT_RE,
                # a lift's working weight or a race's best time ("深蹲现在140" beside "深蹲也上到150了")
                re.compile(r"(?:卧推|深蹲|硬拉|推举)[^\d，。！？\s]{0,4}\d{2,3}|(?:全马|半马)\s?(?:pb|最好成绩|最好|成绩)?\s?\d{1,2}[:：]\d{2}|"
                           r"\bftp\D{0,3}\d{2,3}\b|\b(?:marathon|half|10k|5k) (?:pr|pb)(?: is| of)? \d{1,2}:\d{2}\b", re.IGNORECASE))


#: A clause about the name itself ("pepper didn't suit her", "名字我也记错了").
_NAMING_RE = re.compile(r"名字|叫|\b(?:names?|named|call(?:ed|ing)?|suit(?:ed|s)?|renam\w*|stick|stuck|answer\w*|respond\w*)\b",
                        re.IGNORECASE)  # (a name that "didn't quite stick" goes with its clause)


def _renamed(text: str, gone: set[str], new: dict[str, str]) -> str:
    """A renaming message's text without the old name: a clause about the name goes ("so pepper didn't suit her at
    all lol" of "..., we're calling her Juno now"); another clause stays, with the new name instead when the message
    gives one ("其实Mochi是公的" -> "其实Kiki是公的")."""
    fresh = [name for name in new if name not in gone]
    kept = []
    for clause in corrections.clauses(text):
        if not corrections.holds_any(clause, gone):
            kept.append(clause)
        elif not _NAMING_RE.search(clause):
            for name in gone if len(fresh) == 1 else ():
                clause = re.sub(re.escape(name), fresh[0].title() if fresh[0].isascii() else fresh[0], clause,
                                flags=re.IGNORECASE)
            kept.append(clause)
    return corrections.join_clauses(kept) if kept else text


def _gone_topics(message: str, gone: set[str], known: dict[str, str]) -> list[str]:
    """What a message saying a pet or relative is gone corrects: them ("pet", "family"), and the topics of its other
    clauses that say a change; not what it mentions in passing ("可乐上个月走了……店里空落落的" leaves "我在苏州开了家咖啡店"
    of the statement that named the café's cat)."""
    changed = {topic for clause in corrections.clauses(message)
               if not corrections.holds_any(clause, gone) and corrections.signals_change(clause)
               for topic in corrections.topics(clause)}
    return sorted({known[name] for name in gone if name in known} | changed)


def _unnamed(text: str, gone: set[str], known: dict[str, str], said_before: str) -> str:
    """A message about a pet or someone of the household who is gone, with what they were instead of their name
    ("煤球上个月走了" -> "我的宠物上个月走了", "Pickle died in March" -> "my pet died in March"; "my husband" when the
    replaced statements said "my husband Tom"): the loss is kept, the name and the kind of pet are no current fact."""
    chinese = is_chinese(text)
    for name in sorted(gone, key=len, reverse=True):
        kin = re.search(rf"(?P<k>{corrections.ZH_KIN if chinese else corrections.EN_KIN})s?\W{{0,2}}{re.escape(name)}",
                        said_before, re.IGNORECASE) if known.get(name) != "pet" else None
        own = (f"我的{kin.group('k')}" if chinese else f"my {kin.group('k').lower()}") if kin else \
            ("我的宠物" if known.get(name) == "pet" else "我的家人") if chinese else \
            ("my pet" if known.get(name) == "pet" else "my relative")
        text = re.sub(re.escape(name) if chinese else rf"(?<![\w-]){re.escape(name)}(?![\w-])", own, text,
                      flags=re.IGNORECASE)
    return text


def _tells_new_value(message: str, replaced: Sequence[str]) -> bool:
    """Whether ``message`` says a value of a kind the statements it replaces held, and not theirs ("the dinner is now June
    15" after "our anniversary dinner is on June 8"): a new value said beside a request is still said."""
    said_before = " ".join(replaced)
    for kind in _VALUE_KINDS:
        new = {m.group(0).lower() for m in kind.finditer(message)}
        if new and kind.search(said_before) and new - {m.group(0).lower() for m in kind.finditer(said_before)}:
            return True
    return False


#: Someone named in a clause by their relation to the user or another.
_KIN_IN_CLAUSE_RE = re.compile(rf"(?:{PERSON_ZH})|\b(?:{PERSON_EN})s?\b", re.IGNORECASE)
#: An age said in words of someone ("Lorcan is six", "she's seven", "he turned seven").
_AGE_IN_WORDS_RE = re.compile(r"\b(?:[Hh]e|[Ss]he|(?-i:[A-Z])[a-z]+|son|daughter|boy|girl|kid|baby)(?:'s| is| turned| turns| turning) "
                              r"(?:only |just |now |nearly |almost |actually )?"
                              r"(?P<n>(?i:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
                              r"sixteen|seventeen))\b(?=\s*(?:$|[,.;!?…]|years? old\b|(?i:and|actually|now|in|this|last|next|but|so)\b))")
#: A year, or a month of a year, something began or happened ("我是2006年参加工作的" corrected to "准确的是2005年7月", "since
#: 2019").
_YEAR_RE = re.compile(r"(?<![\d.])(?:19|20)\d{2}\s*年(?:\s*\d{1,2}\s*月(?!\s*\d{1,2}\s*[日号]))?|\b(?:in|since) (?:19|20)\d{2}\b",
                      re.IGNORECASE)
#: Kinds of value one holds one of at a time, whoever else is closer in meaning: a school year, a shift.
_REGRADED_KINDS = (_GRADE_RE, _SHIFT_RE)
#: Kinds of value one says anew in place of the last: an age, a school grade, a year.
_SWAPPED_KINDS = (corrections.TOPICS["age"], _GRADE_RE, _YEAR_RE)


def _without_kinds(text: str, kinds: Sequence[re.Pattern]) -> str:
    """``text`` without its clauses (``_TOPIC_SPLIT``) that say a value of one of ``kinds``; "" when none stays."""
    kept = [c for c in _TOPIC_SPLIT.split(text) if c and c.strip() and not any(k.search(c) for k in kinds)]
    return (corrections.join_clauses(kept) if is_chinese(text) else " ".join(k.strip() for k in kept)) if kept else ""


def _changes_besides(message: str, said_anew: dict[str, str]) -> bool:
    """Whether ``message`` says some other change than the values of ``said_anew`` ("…Lorcan's seven actually. And we
    ended up going with Gaelscoil na Cille instead"), beside words that only say something was said wrong."""
    values = [v for pair in said_anew.items() for v in pair]
    return any(corrections.signals_change(c) and not any(_said_word(v, c) for v in values)
               and not _ONLY_SAID_WRONG_RE.match(c.strip())
               for c in corrections.clauses(message))


def _said_word(value: str, clause: str) -> bool:
    """Whether ``value`` is said in ``clause`` as a word of its own ("one" is not in "iphone"), Chinese as written."""
    if not value.isascii():
        return value in clause
    return bool(re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", clause, re.IGNORECASE))


#: Something chosen in place of another ("went with X instead of Y", "换成了…").
_CHOSEN_INSTEAD_RE = re.compile(r"\binstead\b|\brather than\b|换成|改成|改去|换到", re.IGNORECASE)
#: Words that only say a value was said wrong ("跟你说 之前说错了", "sorry, typo", "I meant seven").
_ONLY_SAID_WRONG_RE = re.compile(r"\W*(?:跟你说|跟您说|诶|哦|啊|对了)?\s*(?:我)?(?:之前|上次|上回|刚才|前面)?(?:有个地方|有一处|有处)?"
                                 r"(?:说错|记错|搞错|写错|打错|口误|说得不准确|说得不对)了?\W*$|"
                                 r"\W*(?:\w+\W+){0,3}(?:correction|sorry|oops|typo|my bad|my mistake)(?:\W+\w+){0,3}\W*$",
                                 re.IGNORECASE)


def _values_said_anew(message: str, replaced: Sequence[str]) -> dict[str, str]:
    """For each kind of :data:`_SWAPPED_KINDS`, the one value the replaced statements held and the one other value
    ``message`` says of it, old (lower case) to new; none where either side says more than one."""
    said_before = " ".join(replaced)
    out: dict[str, str] = {}
    # An age in words ("my son Lorcan is six" … "Lorcan's seven actually, I meant seven"): the word, said once before.
    old_words = {m.group("n").lower() for m in _AGE_IN_WORDS_RE.finditer(said_before)}
    new_words = {m.group("n").lower() for clause in corrections.clauses(message)
                 if all(k.group(0).lower() in said_before.lower() for k in _KIN_IN_CLAUSE_RE.finditer(clause))
                 for m in _AGE_IN_WORDS_RE.finditer(clause)} - old_words
    if len(old_words) == 1 and len(new_words) == 1 and \
            len(re.findall(rf"\b{next(iter(old_words))}\b", said_before, re.IGNORECASE)) == 1:
        out[next(iter(old_words))] = next(iter(new_words))
    for kind in _SWAPPED_KINDS:
        old = {m.group(0).strip() for m in kind.finditer(said_before)}
        # (not one said of someone the replaced statements did not speak of: "其实她上大班了 她哥哥都10岁了", "his sister turns 7")
        new = {m.group(0).strip() for clause in corrections.clauses(message)
               if all(k.group(0).lower() in said_before.lower() for k in _KIN_IN_CLAUSE_RE.finditer(clause))
               for m in kind.finditer(clause)}
        if len(old) == 1 and len(new - old) == 1:
            was, now = next(iter(old)), next(iter(new - old))
            number = re.search(r"\d+$", now)
            # (a number said of its subject is written over where it is said of it: "class 5" -> "class 6")
            out[was.lower()] = number.group(0) if number and was.isascii() and re.search(r"\D\s?\d+$", was) else now
    return out


def _without_replaced_values(text: str, replaced: Sequence[str]) -> str:
    """``text`` without its clauses that still say a date, age, amount or grade of the statements it replaces when
    another clause says a new one ("酒店说5月20号那天早被人订了 我们只能往后挪到国庆 10月2号" keeps the 2 October)."""
    said_before = " ".join(replaced)
    parts = corrections.clauses(text)
    if len(parts) < 2 or not said_before:
        return text
    drop: set[int] = set()
    for kind in _VALUE_KINDS:
        old = {m.group(0).lower() for m in kind.finditer(said_before)}
        if not old:
            continue
        found = [{m.group(0).lower() for m in kind.finditer(c)} for c in parts]
        if any(f - old for f in found):
            drop |= {i for i, f in enumerate(found) if f and f <= old}
    kept = [c for i, c in enumerate(parts) if i not in drop]
    return corrections.join_clauses(kept) if kept and drop else text


_OR_RE = re.compile(r"\s*(?:还是|或者|\bor\b)", re.IGNORECASE)


def _asks_only(message: str) -> bool:
    """Whether every clause of ``message`` asks (a clause led by "还是"/"or" after a question is its alternative)."""
    parts = corrections.clauses(message)
    asked = False
    for clause in parts:
        if not (_QUESTION_RE.search(clause) or _ASKS_RE.match(clause) or (asked and _OR_RE.match(clause))):
            return False
        asked = True
    return bool(parts)


def _one_sentence(message: str) -> bool:
    """Whether the message is one sentence (its pieces are then its clauses, see _sentences)."""
    return len([1 for a, b in split_sentences(message) if message[a:b].strip()]) == 1


#: The assistant's view asked for ("你觉得…吗", "what do you think about …").
_OPINION_ASKED_RE = re.compile(r"你觉得|你认为|你怎么看|你咋看|你的看法|你会选|你更喜欢|\b(?:do you think|what do you think|how do you feel about|"
                               r"your (?:opinion|take|thoughts) on|would (?:you|u|ya) rather|if you had to (?:pick|choose)|"
                               r"what'?s your fav(?:ou?rite)?)\b", re.IGNORECASE)


#: The world as a sentence's subject ("网上都吵翻了", "everyone's talking about it"): no fact of the user's.
_THE_WORLD_RE = re.compile(r"^\W*(?:网上|网友|大家|新闻|外面|社会上|现在的人|好多人|很多人|\b(?:everyone|everybody|people|the internet|"
                           r"twitter|reddit|the news|the media)\b)", re.IGNORECASE)


#: Two things offered to choose from, and nothing else ("blade runner or blade runner 2049", "tea or coffee"): an answer
#: to the assistant's "which do you think?", no fact of the user's (English only: Chinese "还是" is mostly "still").
_EITHER_RE = re.compile(r"^\W*(?:[a-z'-]+\s+){0,2}[a-z'-]*[a-z]\s+or\s+(?!so\b|less\b|more\b|rather\b|thereabouts\b|not\b|two\b|three\b)"
                        r"(?:[a-z'-]+\s+){0,2}[a-z'-]+(?:\s+\d+)?\W*$", re.IGNORECASE)


def _not_a_fact(sentence: str) -> bool:
    """A sentence that tells no fact about the user: a condition ("If my elbow ever heals I might try padel"),
    a sentence about someone outside the user's household ("My sister just moved to Berlin"), one whose "I" is
    only in a quotation ("There's that line 'I like my coffee like I like my code'"), or someone's word on their
    own tastes ("my daughter says she likes math but hates homework"), or, with no word of the user's, the assistant's
    opinion asked ("你觉得ai以后会取代程序员吗") or the world as its subject ("网上都吵翻了")."""
    return bool(_conditional(sentence) or (about_another_person(sentence) and not _FAMILY_FACT_RE.search(sentence))
                or (_EITHER_RE.match(sentence) and not _FIRST_PERSON_RE.search(sentence))
                or _THEIR_OWN_WORD_RE.search(sentence)
                or ((_OPINION_ASKED_RE.search(sentence) or _THE_WORLD_RE.match(sentence))
                    and not _FIRST_PERSON_RE.search(sentence))
                or (any(_is_quotation(m.group(0)) for m in _QUOTED_RE.finditer(sentence))
                    and not _FIRST_PERSON_RE.search(_QUOTED_RE.sub(" ", sentence))))


def _conditional(sentence: str) -> bool:
    """Whether ``sentence`` supposes (``_HYPOTHETICAL_RE``), but not only in the question it ends with, after a statement of
    the user's own ("im sitting for my ohio contractors license exam nov 12, whats the best way to study if i only got
    nights")."""
    supposed = _HYPOTHETICAL_RE.search(sentence)
    if supposed is None:
        return False
    asked = _ASKED_AFTER_RE.search(sentence, 0, supposed.start())
    return not (asked and (_FIRST_PERSON_RE.search(sentence[:asked.start()]) or _TITLE_HERE_RE.match(sentence))
                and not _HYPOTHETICAL_RE.search(sentence[:asked.start()]))


#: Where a sentence turns to asking ("…, whats the best way to study if i only got nights", "…, trying to figure out if i
#: should raise prices").
_ASKED_AFTER_RE = re.compile(r"[,;]\s*(?:so |and |but )?(?:whats|what's|what is|what are|how (?:do|can|should|would|much|long)|"
                             r"best way|any (?:tips|ideas|advice)|should i|can i|could i|is it|would it|(?:i'm |im )?trying to "
                             r"(?:figure out|decide|work out)|wondering|not sure)\b", re.IGNORECASE)


def _is_quotation(quoted: str) -> bool:
    """Whether a quoted span is someone's words rather than a name in quotes ("店名改成“橘里橘气”了", "the 'Night Owls'"):
    a name is short, one phrase with no stop or comma inside."""
    inner = quoted[1:-1].strip()
    if re.search(r"[，。！？、,.!?;；]", inner):
        return True
    return len(inner.split()) > 3 if re.search(r"[A-Za-z]", inner) and " " in inner else len(inner) > 10


#: A quotation ("'…'", "“…”", "「…」"): someone else's words, whatever person they are in.
_QUOTED_RE = re.compile(r"(?:^|(?<=\s))'[^']{3,}'(?=$|[\s.,!?])|\"[^\"]{3,}\"|“[^”]{3,}”|‘[^’]{3,}’|「[^」]{2,}」|『[^』]{2,}』")
#: Someone's word on their own tastes: "she says she likes …", "他说他喜欢…".
_THEIR_OWN_WORD_RE = re.compile(r"\b(?:says|said|thinks|claims)\s+(?:she|he|they)(?:'s|'re)?\s+(?:really\s+|only\s+)?"
                                r"(?:likes|loves|hates|prefers|wants|doesn't like|does not like|is into)\b|"
                                r"[他她](?:说|觉得)[他她](?:最)?(?:喜欢|爱|讨厌|想)", re.IGNORECASE)


#: After a comma (not inside a number: "1,650") or a full-width colon ("人有点难搞：王姐对海鲜过敏"), or a space between two Chinese characters ("公公有糖尿病 婆婆对花生过敏").
_PIECE_RE = re.compile(r"(?<=[，；;：])|(?<=,)(?!\d)|(?<=[A-Za-z]:)\s+(?=[A-Za-z])|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])|"
                       # "but" before someone else ("we wanna order a cake but she's celiac")
                       r"\s+(?=but (?:she|he|they)(?:'s|'re| is| are| has| have| can't| doesn't| don't)\b)|"
                       # an emoji ends a piece too ("my family is a minefield 😅 my mom has celiac")
                       r"(?<=[\U0001F300-\U0001FAFF\u2600-\u27BF])\s+(?=[A-Za-z\u4e00-\u9fff])")
#: Where a replaced episode's remainder may be cut: after a comma, a stop or an emoji (not before "and": "my fiancé
#: Tom and I are writing our vows" is one statement).
_REMAINDER_SPLIT = re.compile(rf"(?:(?<=[，；;。！？!?{corrections.CHAT_END}])|(?<=,)(?!\d))\s*(?![{corrections.CHAT_END}])|"
                              r"(?<=[^\s.]\.)\s+|"  # chat's lower-case sentences: "leaning kia ev6. i commute 40 miles"
                              r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])|"  # chat writes a space for a Chinese comma
                              # another of the user's own ("I live in Freo with my boyfriend Josh | and our kelpie Ned")
                              r"\s+(?=and (?:our|my) (?!own\b)\w+ [A-Z][a-z]+\b)|"
                              # a new statement of the user's after "so" ("I'm a physio in Rathmines | so I'm thinking of …")
                              r"\s+(?=(?i:so (?:i|i'm|im|we|we're|i've|we've))\b)")
#: ...and, cutting by topic, after a number too ("体重52公斤 | 目标减到48 | 在成都一家设计公司…"), not before its unit
#: ("5000 块"). (Not by meaning: the bundled embedder finds such short clauses all alike: "我今年68" stays with "在苏州…".)
_TOPIC_SPLIT = re.compile(rf"{_REMAINDER_SPLIT.pattern}|"
                          r"(?<=\d)\s+(?=[\u4e00-\u9fff]{2})(?![个只位人块元万千百岁月日号年天次斤米分秒点左多来余]|公里|公斤|公分|小时|美元|平米|平方|"
                          r"英尺|厘米|毫升|分钟|欧元|英镑)")
#: What else the user does, said after "and" ("I'm a park ranger in the Cairngorms | and drive a Lada Niva …").
_AND_DOES_SPLIT = re.compile(r"\s+(?=and (?:drive|drives|own|owns|work|works|live|lives|have|has|run|runs|ride|rides|use|uses|"
                             r"play|plays|teach|teaches|study|studies|studying|training|raising|"
                             # ...or what else is the user's ("… with British Gas round Leeds | and my ACS reassessment is due …")
                             r"(?:my|our) (?!(?:wife|husband|partner|boss|manager|team|company|firm|employer|job|work|office|"
                             r"shop|business|clients?|customers?)\b)[\w-]+)\b)", re.IGNORECASE)


def _remainder_pieces(sentence: str) -> list[str]:
    """A replaced sentence's pieces, as what stays of it is read: its clauses (_TOPIC_SPLIT), and in English what the user
    does after "and"."""
    return [p for t in _TOPIC_SPLIT.split(sentence) if t
            for p in (_AND_DOES_SPLIT.split(t) if _USER_LEADS_EN_RE.match(t) else [t])]


#: An English clause led by the user ("Hi, I'm a park ranger …", "we run a B&B"), not "my dog Biscuit is 4 and has …".
_USER_LEADS_EN_RE = re.compile(r"^\W*(?:\w+\W+)?(?:i|i'm|im|i am|we|we're)\b", re.IGNORECASE)


#: A clause with the user as its subject ("我在佛山自己在家做烘焙卖", "平时自己做烘焙", "I run it from home").
_USERS_OWN_RE = re.compile(r"^\W*(?:我|咱|\b(?:I|I'm|I've|I'd|we|we're|we've|my|our)\b)|自己|\bmyself\b", re.IGNORECASE)
#: A clause that only gives a name ("叫乐乐", "named Biscuit"): what a remainder keeps of its sentence.
_NAME_CLAUSE_RE = re.compile(r"^\s*(?:(?:他|她|它)?(?:叫|名叫|名字叫)[\u4e00-\u9fffA-Za-z]{1,6}\s*$|(?:named|called) \w+[.!]?\s*$)",
                             re.IGNORECASE)
_ASKING_RE = re.compile(r"[?？]|怎么|如何|吗|\b(?:how|what|which|should|can you|could you)\b", re.IGNORECASE)
#: A clause that only says who the user is, by a school year or a title, with or without a place or a school before it
#: ("南京大三党", "重庆大一新生", "合肥大四", "浙大cs研二", "UI设计师"): what a correction of something else leaves of its
#: sentence (a new phone, a trip moved, a budget raised, a move).
_STANDING_RE = re.compile(r"^\W*(?:我是?|本人)?[\u4e00-\u9fffA-Za-z]{0,6}?(?:(?<![放加变长再老])大[一二三四五]|研[一二三]|博[一二三四五]|"
                          r"高[一二三]|(?<!年)初[一二三])(?:党|狗|新生|学生|在读|了)?[\W_]*$|"
                          rf"^\W*(?:我是?|本人|(?:打工人|社畜|牛马)\s*)?[A-Za-z]{{0,6}}(?:{ZH_TITLES})[\W_]*$|"
                          # schooling finished ("高中毕业" of "我23 高中毕业 对象在老家南通")
                          r"^\W*(?:我是?)?(?:高中|初中|中专|大专|本科|硕士|研究生|博士)(?:毕业|学历|在读)[\W_]*$")


def _restates(clause: str, restated: Sequence[re.Pattern], *, birthday: bool = True) -> bool:
    """Whether ``clause`` says a value of a kind the correction says anew: not a birthday's date unless the correction
    says a birthday ("my birthday is 12 May" of "… my son's party is on the 14th" when the party moved), nor the title
    words of a visa held ("I'm on a student visa in Sydney" when the user left a job) unless the visa is said anew."""
    visa_held = bool(_VISA_HELD_RE.match(clause)) and _VISA_RE not in restated
    return any(kind.search(clause) for kind in restated
               if not (kind is corrections.TOPICS["date"] and not birthday and _BIRTHDAY_SAID_RE.search(clause))
               and not (visa_held and kind in (_JOB_TITLE_SAID_RE, _DUTY_RE, _WORK_SAID_RE, _WORKED_ELSEWHERE_RE)))


def _without_month(clause: str, restated: Sequence[re.Pattern]) -> list[str]:
    """A Chinese clause that says a month said anew (``_MONTH_ALONE_RE``) and no other value restated, without the month
    ("打算带爸妈去新疆自驾"), or none when little else stays."""
    if _MONTH_ALONE_RE not in restated or not is_chinese(clause) or not _MONTH_ALONE_RE.search(clause) \
            or any(kind.search(clause) for kind in restated if kind is not _MONTH_ALONE_RE):
        return []
    left = _MONTH_ALONE_RE.sub("", clause).strip()
    return [left] if len(re.findall(r"[\u4e00-\u9fff]", left)) >= 6 else []


def _without_visa(clause: str, restated: Sequence[re.Pattern]) -> list[str]:
    """``clause`` without the visa it says, when a correction says another and the rest says something; else []."""
    if _VISA_RE not in restated:
        return []
    without = _VISA_SAID_RE.sub("", clause).strip(" ,.;")
    if any(kind.search(without) for kind in restated) or not keyword_tokens(without):
        return []
    return [without]


#: A title held, said in English as who the user is ("working as gameplay programmer at a mid-size studio", "data analyst at Zalando here").
_TITLE_HELD_EN_RE = re.compile(rf"^\W*(?:(?:and|also|but|so|hi|hey|hello)\W+)?(?:(?:i'm|im|i am|currently|now) )?(?:working|employed) as "
                               rf"(?:an? )?[\w -]{{2,40}}?[.!,]?$|^\W*(?:(?:hi|hey|hello|g'day)\W+)?(?:[\w-]+ ){{0,2}}(?:{EN_TITLES}) "
                               rf"(?:at|for|with) [\w'& -]{{2,30}}? here\b", re.IGNORECASE)
#: A clause that goes on about whoever the clause before it spoke of ("同事是清真，而且不吃辣"; "one of the devs,
#: Priya, is vegan").
_GOES_ON_RE = re.compile(r"^\s*(?:而且|并且|还|也|另外|以及|(?:and|plus|also|but)\b(?! (?:i|i'm|we|my|our)\b)|"
                         r"(?:is|has|can't|cannot|doesn't|does not|won't)\b)", re.IGNORECASE)
_NAME_ONLY_RE = re.compile(r"^\s*[A-Z][a-z]+(?: [A-Z][a-z]+)?\s*,\s*$")


#: Some of the people spoken of ("还有俩是回民", "有几个不吃辣", "两个人对海鲜过敏").
_SOME_OF_THEM_RE = re.compile(r"^\s*(?:还有|另外|其中|有)?(?:俩|两个人?|几个人?|三个人?|好几个人?|一半人?)(?:是|都|不|对|也|还|要|有)")


def _of_others(pieces: Sequence[str], said: str, *, pronouns: bool = False) -> list[bool]:
    """For each clause of a message, whether it speaks of someone else: named or a relation ("同事小王对芒果过敏"),
    or going on about the one the clause before spoke of, with no "I"/"we" of its own; with ``pronouns`` (a message
    about someone else), also led by "she"/"he" of someone named before it."""
    out: list[bool] = []
    for i, piece in enumerate(pieces):
        # ("她养了只萨摩耶叫芝麻" after "我表姐…": she is the cousin, and "平时还爱徒步" goes on about her)
        other = bool(about_another_person(piece) or named_another(piece.strip(), said) or _SOME_OF_THEM_RE.match(piece)
                     or _THEY_SAY_RE.match(piece) or (pronouns and i and pronoun_about_another(
                         piece, said[:said.rfind(piece.strip())] if piece.strip() in said else said)))
        if not other and i and not _FIRST_PERSON_RE.search(piece) and _GOES_ON_RE.match(piece):
            other = out[-1] or bool(_NAME_ONLY_RE.match(pieces[i - 1])
                                    and named_another((pieces[i - 1] + " " + piece).replace(",", " "), said))
        elif not other and i and out[-1] and not _FIRST_PERSON_RE.search(piece) and not _TO_THE_ASSISTANT_RE.search(piece) and (
                len(pieces[i - 1].strip()) <= 6 or len(piece.strip()) <= 6 or _repeats(piece, pieces[i - 1])
                or _VERB_LED_RE.match(piece) or _THEY_SAY_RE.match(pieces[i - 1]) or _ZH_GOES_ON_RE.match(piece)
                or _ZH_CHAIN_RE.match(piece) or _APPOSITIVE_RE.match(piece)):
            # "我们组 小李 不吃香菜": what follows someone named alone is said of them; "…小美花生过敏 挺严重的": a
            # few words with no subject go on about them
            other = True
        out.append(other)
    return out


#: A Chinese clause that goes on with the subject before it, led by when or how often ("他特别爱钓鱼，每年国庆都要去千岛湖，还有个
#: 5岁的孙子叫豆豆"): after a clause about someone else, it goes on about them.
#: (not "一直在医院陪护" after "我爸上周做了心脏搭桥手术": the one who stays there is the user)
_ZH_CHAIN_RE = re.compile(r"^\s*(?:每年|每周|每个月|每次|经常|总是|还有个|还有一个)(?![我咱])")
#: A Chinese clause with no subject that says where one works, studies or lives ("他儿子王建国从大连赶回来 在那边开出租的",
#: "她叫林小棠 在长沙湘雅做了五年护士"; not "一直在医院陪护"): after a clause about someone else, it goes on about them.
_ZH_GOES_ON_RE = re.compile(r"^\s*(?:在|从)(?![我咱]|家|宿舍|屋里|阳台|老家)[\u4e00-\u9fffA-Za-z]{1,8}?(?:当|做|干|开|上班|工作|读|上学|住|退休|种|养|卖)")
#: A piece addressed to the assistant ("以后回答直接给代码就行" after "导师很严"): the user's wish, not the one before's news.
_TO_THE_ASSISTANT_RE = re.compile(r"回答|回复|回我|帮我|给我|你(?!们)|\b(?:you|your|reply|replies|answers?)\b", re.IGNORECASE)
#: Someone else's word about themselves ("王阿姨说她白天去跳广场舞", "小雯说她养了只布偶"): their news, and so is what
#: follows it with no "I" of its own ("狗一个人在家所以叫").
_THEY_SAY_RE = re.compile(r"^\s*(?![我咱])[\u4e00-\u9fff]{1,5}?(?:说|讲|告诉我|跟我说)(?:她|他)(?![们说讲])")
#: An English clause with no subject, led by what someone did ("…, she's been at Lakeshore 31 years, started as a
#: receptionist and ended up running claims"): after a clause about someone else, it goes on about them.
_VERB_LED_RE = re.compile(r"^\s*(?:and\s+|then\s+)?(?:started|ended|retired|worked|works|lived|lives|loves|likes|hates|went|"
                          r"became|spent|raised|runs|ran|teaches|taught|plays|played|studied|studies|grew up|moved)\b")
#: Who the one just spoken of is, said beside them ("Sophie's dog, a corgi called Pudding, stole Kenji's lunch"): theirs,
#: and so is what follows it with no "I".
_APPOSITIVE_RE = re.compile(r"^\s*(?:a|an)\s+[a-z]+(?:\s+[a-z]+)?\s+(?:called|named)\s+(?-i:[A-Z])", re.IGNORECASE)


def _repeats(piece: str, before: str) -> bool:
    """Whether ``piece`` says again three characters of Chinese the piece before said ("在重庆不吃辣简直了" after
    "还有实习生小雅不吃辣"): it goes on about the same thing."""
    if "也" in piece:
        return False  # "最近也天天加班到十点": the user too
    grams = {before[i:i + 3] for i in range(len(before) - 2)}
    return any(piece[i:i + 3] in grams and _HAN3_RE.fullmatch(piece[i:i + 3]) and _DIET_WORD_RE.search(piece[i:i + 3])
               for i in range(len(piece) - 2))


_HAN3_RE = re.compile(r"[\u4e00-\u9fff]{3}")
_DIET_WORD_RE = re.compile(r"不吃|不喝|吃素|过敏|忌口|不能吃")


def _told_of_another(draft: MemoryDraft, message: str) -> bool:
    """Whether a slot draft's value was said only in clauses about someone else ("用户的饮食：不吃辣" from "…，主管完全
    不吃辣，…" or "同事是清真，而且不吃辣"; "Tobias has a peanut allergy")."""
    value = draft.value if isinstance(draft.value, str) else ""
    if not value or value not in message:
        return False
    pieces = _PIECE_RE.split(message)
    holding = [other for p, other in zip(pieces, _of_others(pieces, message), strict=True) if value in p]
    return bool(holding) and all(holding)  # none: a value with a comma in it ("$8,000")


#: A clause that refers back to what the clause before it said ("which …", "it's …").
_REFERS_BACK_RE = re.compile(r"^\W*(?:which|whose|it|it's|its|that's)\b", re.IGNORECASE)
_LED_BY_PRONOUN_RE = re.compile(r"^\W*(?:and |but |so )?(?:他|她|\b(?:she|he|she's|he's|shes|hes|they|they're)\b)", re.IGNORECASE)


def _without_others(sentence: str, said: str = "") -> str:
    """``sentence`` without its clauses about someone else ("…，同事小王对芒果过敏，还有个同事死活不吃香蕉，怎么搭配比较好",
    "Priyanka is vegan, Marcus has a sesame allergy …": named, and not as the user's household in ``said``), and ""
    when what is left is a request with no word of the user's own."""
    pieces = [p for p in _PIECE_RE.split(sentence) if p.strip()]
    if len(pieces) < 2:
        if _FAMILY_FACT_RE.search(sentence):
            return sentence  # "my grandson Tyrese is 9 and need help with a book report": who the user's household is
        # "Marco's also a chef at …"; "need help writing a speech for my coworker Darlene": a request for someone else
        theirs = named_another(sentence.strip(), said) or (
            _HELP_ASKED_RE.match(sentence) and _SOMEONE_OF_MINE_RE.search(sentence)
            and not _FIRST_PERSON_RE.search(_SOMEONE_OF_MINE_RE.sub("", sentence)))
        return "" if theirs else sentence
    others = _of_others(pieces, said)
    # What was said before this sentence (``said`` may run on past it): "他8岁" after "我儿子乐乐…" is the son, whatever
    # the sentence names later ("…我辞职在家当全职妈妈").
    prior = said[:found] if (found := said.rfind(sentence.strip())) >= 0 else said
    # "she"/"他" right after a clause about someone else is that person ("Priya has a nut allergy, she loves crime
    # novels"), not the user.
    # "oh also marcus doesnt drink anymore, hes 2 years sober": led by "he" after someone else named earlier in the
    # session (``said``), and not after the user's own household, is that person too.
    others = [other or (i > 0 and bool(_LED_BY_PRONOUN_RE.match(p))
                        and (others[i - 1] or bool(pronoun_about_another(p, prior + "".join(pieces[:i])))))
              for i, (p, other) in enumerate(zip(pieces, others, strict=True))]
    # "which"/"it" right after a clause about someone else goes on about what that clause said ("kemi's vegan and
    # dan's allergic to sesame, which rules out half my recipes"; "tomás got the interview!! it's on 4 june").
    for i in range(1, len(pieces)):
        others[i] = others[i] or (others[i - 1] and bool(_REFERS_BACK_RE.match(pieces[i]) or (
            (_VERB_LED_RE.match(pieces[i]) or _APPOSITIVE_RE.match(pieces[i]) or _APPOSITIVE_RE.match(pieces[i - 1]))
            and not _FIRST_PERSON_RE.search(pieces[i]))))
    # "but i dont want her out there at 6am w a dead car" after "she was a mail carrier …": the user's care for them,
    # no fact of the user's.
    others = [other or (any(others[:i]) and bool(_CARE_FOR_THEM_RE.match(p)))
              for i, (p, other) in enumerate(zip(pieces, others, strict=True))]
    kept = [p for p, other in zip(pieces, others, strict=True) if not other or _FAMILY_FACT_RE.search(p)]
    if len(kept) == len(pieces):
        return sentence
    rest = corrections.join_clauses(kept)
    # (whose someone is, "my coworker Darlene", is no word of the user's own)
    mine = _SOMEONE_OF_MINE_RE.sub("", rest)
    # (nor a word or two of a request left over: "Add story:")
    leftover = len(set(keyword_tokens(rest))) <= 2 and not _MYSELF_RE.search(rest) and not disclosure.life_words(rest)
    if not rest or (not _FIRST_PERSON_RE.search(mine) and (_ASKING_RE.search(rest) or _WISH_RE.search(rest)
                                                          or _HELP_ASKED_RE.match(rest) or leftover)):
        return ""
    return rest


_MYSELF_RE = re.compile(r"\bmyself\b|自己", re.IGNORECASE)
#: The user's wish or worry for the one spoken of ("i dont want her out there …", "i worry about him driving").
_CARE_FOR_THEM_RE = re.compile(r"^\W*(?:(?:but|and|so|tbh|honestly)\s+)*i(?:'d| would)? (?:(?:don't|dont|do not|really|just) )?"
                               r"(?:want|need|worry about|hate|hate to see|wish) (?:her|him|them)\b", re.IGNORECASE)
#: Someone of the user's named ("my coworker Darlene", "我同事小王").
_SOMEONE_OF_MINE_RE = re.compile(rf"\b(?:my|our) (?:[\w-]+ ){{0,2}}?(?:{PERSON_EN})s?\b|(?:我|我们)(?:的)?(?:{PERSON_ZH})",
                                 re.IGNORECASE)
#: A request for help ("need help writing a retirement speech for …", "帮我写个…").
_HELP_ASKED_RE = re.compile(r"^\W*(?:(?:i |i'd |we )?(?:need|want|would like|'d like) (?:some )?help|help me|帮我|帮忙)",
                            re.IGNORECASE)


#: A request worded as a wish ("so a mocktail idea would be cool", "有推荐吗"): no fact of the user's.
_WISH_RE = re.compile(r"推荐|建议|\b(?:would be (?:cool|great|nice|good|helpful|awesome|ideal|perfect)|ideas?|suggestions?|"
                      r"recommend\w*)\b", re.IGNORECASE)


#: The user as a clause's subject: "我" (not "我妈", "我的…"), "I"/"we".
_OWN_SUBJECT_RE = re.compile(r"(?<![帮给让叫问诉跟和替教带陪请])(?<![^摩]托)(?<!^托)(?:我|咱)(?!妈|爸|的|们的|家的|哥|姐|弟|妹|老公|老婆|同事|朋友)|\b(?:i|i'm|im|i've|i'd|we|we're|we've)\b",
                             re.IGNORECASE)


def _in_own_clause(draft: MemoryDraft, message: str, said: str) -> bool:
    """Whether a slot draft's value was said in a clause about the user of a message about someone else."""
    value = draft.value if isinstance(draft.value, str) else ""
    return bool(value) and any(value in clause for clause in own_clauses(_sentences(message), [], said + message))


_SOMEONE_BEFORE_RE = re.compile(r"他|她|\b(?:he|she|they|his|her|their)\b", re.IGNORECASE)


def _user_subject(clause: str) -> bool:
    """Whether the user is ``clause``'s subject: "I"/"我" before anyone else ("他让我帮忙问问…" is his)."""
    found = _OWN_SUBJECT_RE.search(clause)
    return found is not None and not _SOMEONE_BEFORE_RE.search(clause[:found.start()])


def own_clauses(pieces: Sequence[str], scores: Sequence[float], said: str) -> list[str]:
    """Of a message about someone else, its pieces that tell something of the user: the user their subject, about no
    one else, not a question, and (when scored one by one) scored at least SENTENCE_DROP."""
    if len(pieces) < 2:
        return []
    others = _of_others(pieces, said, pronouns=True)
    # Each piece's smaller clauses too (an emoji, "but"/"and" end one: "a little boy called Arlo 🥹 I want to …").
    return [c for i, (p, other) in enumerate(zip(pieces, others, strict=True))
            if (not other and (not scores or scores[i] >= SENTENCE_DROP)) or _FAMILY_FACT_RE.search(p)
            for c in corrections.clauses(p)
            if ((_user_subject(c) and not about_another_person(c)) or _FAMILY_FACT_RE.search(c))
            and not _QUESTION_RE.search(c) and not _ASKS_RE.match(c)
            and not _HYPOTHETICAL_RE.search(c) and not _MEANT_TO_RE.search(c) and not _CARE_FOR_THEM_RE.match(c)]


#: A birthday of the user's household ("我妈10月3号生日", "my mom's birthday is oct 3"): the user's calendar, kept from a
#: message about them as the user's own clauses are.
_FAMILY_BIRTHDAY = (r"我(?:妈妈?|爸爸?|老妈|老爸|老婆|老公|媳妇|对象|儿子|女儿|闺女)的?(?:\d{1,2}月\d{1,2}[号日](?:过)?(?:的?生日|[\u4e00-\u9fff\d]{0,3}大寿)|"
                    r"生日是?\d{1,2}月\d{1,2}[号日]?)|"
                    # "6月18号是我妈60大寿": the date first
                    r"\d{1,2}月\d{1,2}[号日](?:是|就是)?我(?:妈妈?|爸爸?|老妈|老爸|老婆|老公|媳妇|对象|儿子|女儿|闺女)的?"
                    r"(?:[\u4e00-\u9fff\d]{0,3}大寿|(?:\d{1,3}岁)?生日)|"
                    r"\bmy (?:mom|mum|mother|dad|father|wife|husband|partner|son|daughter)'s (?:birthday|bday) is (?:on )?(?:the )?"
                    r"(?:\d{1,2}|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)")
#: A grandchild's name ("孙子叫豆豆"): what the grandparent's assistant is asked later, not where the child lives.
_GRANDCHILD_NAMED = (r"^\s*(?:我的?)?(?:孙子(?!兵法)|孙女|外孙女?)叫[\u4e00-\u9fff]{1,3}\s*$|"
                     # "孙子浩浩放暑假要来住一个月": the grandchild named, coming to the user
                     r"^\s*(?:[^，,。\s]{1,6}[，,]\s*)?(?:我的?)?(?:孙子(?!兵法)|孙女|外孙女?)(?!叫|今年|明年|去年|今天|明天|下周|这周|周末|最近|也|都|还|在|要|又|就)"
                     r"[\u4e00-\u9fff]{2}(?=放|要|来|过来|[，,\s])|"
                     # "这周休班带孙子石头去江边钓鱼": the grandchild named, taken out by the user
                     r"(?:^|(?<=[\s，,。！!]))(?:我)?(?:这周|周末|今天|明天|下周|休班|休息)*(?:我)?带(?:我家)?(?:孙子(?!兵法)|孙女|外孙女?)"
                     r"(?!们|去|来|回|出|到|上|玩|一起|下楼|出门|天天|每天|明天|周末)[\u4e00-\u9fff]{2}(?:去|来|到|回)")
#: A child, grandchild or partner of the user's named with their age ("my grandson Tyrese is 9", "partner Aroha turns 30
#: next month", "儿子旦增6岁"): who is in the user's household, not that person's own news.
_HOUSEHOLD_AGED = (r"\b(?:my|our)\s+(?:(?:little|eldest|oldest|youngest|baby|middle|twin|step)\s+)?(?:son|daughter|grandson|"
                   r"granddaughter|grandkid|grandchild|kid|boy|girl|lad|lass)\s+(?!(?:is|was|has|had|just|and|who|turns|turned|"
                   r"turning|will|can|does|did)\b)[a-z][\w'-]+(?:'s|\s+is|\s+(?:just\s+)?turn(?:s|ed|ing))\s+(?:\d{1,2}|one|two|three|"
                   r"four|five|six|seven|eight|nine|ten|eleven|twelve)\b|"
                   r"(?:^|(?<=[\s,.]))(?<!'s )(?<!’s )(?<!business )(?<!tennis )(?<!dance )(?<!work )(?<!his )(?<!her )"
                   r"(?<!their )(?:my\s+)?(?:partner|wife|husband|fianc[eé]e?|missus|hubby)\s+(?!(?:is|was|has|just|and|"
                   r"who|turns)\b)[a-z][\w'-]+\s+(?:(?:just\s+)?turn(?:s|ed|ing)|is turning)\s+\d{2}\b|"
                   # "the twins are 5 so 8pm bedtime is a joke", "my boys are 7 and 9"
                   r"\b(?:the|my|our) (?:twins|boys|girls|kids) (?:are|r|just turned|turned) (?:\d{1,2}|one|two|three|four|five|six|"
                   r"seven|eight|nine|ten|eleven|twelve)\b(?! (?:min|minutes|hours|days|weeks|months|percent|%))|"
                   r"(?:^|(?<=[\s，,。！!]))(?:我|我家|我的)?(?:儿子|女儿|闺女|孙子|孙女|外孙女?)(?!今年|明年|去年|也|都|还|在|要|又|就|才|已经|刚|说|的)"
                   r"[\u4e00-\u9fff]{2}(?:今年|才|刚|已经)?满?[\d一二两三四五六七八九十]{1,3}岁")
#: Any of them: a fact of the user's family kept from a message about them.
_FAMILY_FACT_RE = re.compile(f"{_FAMILY_BIRTHDAY}|{_GRANDCHILD_NAMED}|{_HOUSEHOLD_AGED}", re.IGNORECASE)


#: A plan given up for the other person's sake ("我本来想送个芒果千层当伴手礼", "i was going to get her tulips"): no fact
#: of the user's.
_MEANT_TO_RE = re.compile(r"本来想|原本想|本打算|本来打算|差点|\b(?:i was going to|i was gonna|i almost|i nearly)\b", re.IGNORECASE)


#: A statement of where and how the user lives, said in so many words, that the classifier may score low when it is
#: short or casual ("现在住光谷这边", "我们上周分了", "现在单身挺好的", "yeah we're renting in auckland (mt eden)", "we're in a
#: 3rd floor flat in Glasgow", "i'm single now", "我妈10月3号生日"): kept as a disclosing sentence whatever it scored.
_LIFE_RE = re.compile(
    r"(?:^|(?<=[\s，,。！!～~]))(?:我们?|我俩|咱们?|现在|目前|已经|终于|一直)+住(?:在)?(?![院酒宾民哪几一的了过着啥这那]|[两三四五六七八九十\d]+晚|汉庭|如家)"
    r"[\u4e00-\u9fffA-Za-z]{2,8}?(?:这边|那边|这块|附近|[，,。！!\s]|$)|"
    r"(?:我|我们|现在|目前|已经|恢复)(?:也|还|又|就)?(?:是)?单身(?!狗|汉|贵族|派对|公寓|的朋友|税)|"
    # a temperament by its chat name ("我是个i人", "本人e人", "I'm an INFJ", "i'm such an introvert")
    r"(?:我|本人)(?:是|算)?(?:个|一个|纯|妥妥的|典型的|重度)?(?:[iIeE]人|(?-i:[IE][NS][TF][JP]))(?![A-Za-z])|"
    # a food the user cannot have ("gluten is a hard no for me", "i cant do dairy"), a shift pattern ("24 on 48 off",
    # "i'm on nights")
    r"\b(?:gluten|dairy|lactose|nuts|peanuts|shellfish|pork|red meat|meat|sugar|alcohol|booze|caffeine|spicy food|spice)"
    r"(?: is| are|'s)? (?:a )?(?:hard no|no-go|no go|off limits|off the table|a no|poison) for me\b|"
    r"\bi (?:can'?t|cannot) (?:do|have|eat|drink|handle|tolerate) (?:any )?(?:dairy|gluten|lactose|nuts|peanuts|shellfish|pork|"
    r"red meat|meat|sugar|alcohol|booze|caffeine|spicy food|spice)\b|"
    r"(?:^|(?<=[\s,.;]))(?:i (?:work|do) )?\d{1,2} on,? \d{1,2} off\b|"
    r"\b(?:i'm|im|i am) (?:on|working|doing) (?:nights|days|earlies|lates|12s|24s|the night shift|night shift|permanent nights)\b|"
    # a team or a club of the user's ("我们广场舞队想换个新歌", "我们合唱团下周演出"; not a work team)
    r"我们(?:的)?(?!团队|项目|部门|公司|小组)[\u4e00-\u9fff]{2,4}(?:队|社|团|俱乐部)(?=想|要|在|最近|下周|下个月|今年|明天|周末|又|新)|"
    # a baby due ("she's due in August, it's a girl" after "my wife Soo-ah and me need a baby name")
    r"\b(?:she's|she is|we're|we are|baby(?:'s| is)|(?:my )?wife(?:'s| is)) due (?:in |on |at the end of |early |late |mid[- ])?"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*|"
    # a lasting trait of the body ("我晕车超严重", "但我真的晕血", "i get carsick so bad")
    r"我(?:真的|本身|从小|一直|有点|特别|超|巨|很|容易|就|还)*(?:晕车|晕船|晕机|晕血|恐高|色弱|色盲|怕血)(?![的药贴])|"
    r"\b(?:i|i'm|im|i am)(?: always| really| so| super| very)? (?:get )?(?:carsick|seasick|airsick|motion sick|afraid of heights)\b|"
    # a creator's following ("我粉丝刚破5万", "账号现在2.3w粉", "my channel just hit 10k subs")
    r"(?:我|账号|号|频道)(?:的|现在|目前)?粉丝?(?:数)?(?:刚|已经|才|快|终于)?(?:破|过|到|有|涨到|涨了)?了?\d+(?:\.\d+)?\s?[wW万kK千]|"
    r"\b(?:i|i've|my (?:channel|account|page|tiktok|youtube|insta\w*))(?: just| finally| now)? (?:have|hit|has|got|reached|passed|at) "
    r"(?:~|about |like |over )?\d+(?:\.\d+)?\s?[kKmM]? (?:followers|subs|subscribers)\b|"
    r"\b(?:i'm|im|i am)(?: such| kind of| kinda| very much| a total| pretty much)? (?:an? )?(?:total |huge |big )?"
    r"(?:introvert|extrovert|(?-i:[IE][NS][TF][JP]))\b|"
    r"(?:我们|我俩|我和[\u4e00-\u9fffA-Za-z]{1,4}|[\u4e00-\u9fffA-Za-z]{1,4}和我)(?:已经|上周|上个月|前几天|前阵子|昨天|去年|年初|刚刚?)?"
    r"(?:分手了|分了(?![一二三四五六七八九十两\d几工组蛋活钱房]))|"
    rf"{_FAMILY_BIRTHDAY}|{_HOUSEHOLD_AGED}|"
    # a trade said as what the user is ("我自己是扎风筝的", "我就是在怡保旧街场开白咖啡档的", "我在鸣沙山那边牵骆驼的", "我揸小巴嘅")
    r"我(?:自己|就|本身|平时|其实|也)*(?:是|系)(?:在[\u4e00-\u9fffA-Za-z]{1,10}?)?(?!开玩笑|开个玩笑|做梦|搞笑|拉肚子)"
    r"(?:开|做|卖|跑|扎|修|养|种|干|搞|送|揸|牵|烤|酿|织|编|画|剪|教|杀|补|磨|烧)(?:(?![来去着不的了])[\u4e00-\u9fffA-Za-z]){1,8}?(?:的|嘅)"
    r"(?=$|[\s，,。！!～~]|嘛|啦|呀|哈|呢|啊)|"
    r"我(?:平时|一直|现在)?在[\u4e00-\u9fff]{1,8}?(?:那边|这边|那儿|这儿)?(?:牵|摆|揸|卖)[\u4e00-\u9fffA-Za-z]{1,6}?(?:的|嘅)"
    r"(?=$|[\s，,。！!～~])|我(?:系)?揸[\u4e00-\u9fffA-Za-z]{1,4}(?:嘅|的)|"
    # a trade said as what the user does, with no "是" ("跑冷链的 湛江到广州一趟", "我做车险理赔的 客户天天催"; not "做好的",
    # "跑马拉松的鞋")
    # ("做建筑设计的" alone may go on about someone named before: only "跑…的" leads a message so)
    r"(?:^\W*(?=跑)|我)(?:就|自己|也)?(?:跑|做|干|搞)(?!好|完|过|了|的|饭|菜|作业|梦|手术|检查|核酸|运动|家务|题|实验|攻略|计划|功课|准备|步|给)"
    r"(?:(?![来去着不的了用吃给])[\u4e00-\u9fffA-Za-z]){2,8}?的(?=$|[\s，,。！!～~]|嘛|啦|呀|哈|呢|啊)|"
    # a child or grandchild named, at a stage of life ("女儿小满刚满月", "女儿彤彤高三了")
    r"(?:^|(?<=[\s，,。！!]))(?:我|我家|我的)?(?:儿子|女儿|闺女|孙子|孙女|外孙女?)(?!今年|明年|去年|也|都|还|在|要|又|就|才|已经|刚|说|的|们|"
    r"和|跟|老是|总是|一直|最近|班|学校)[\u4e00-\u9fff]{2}(?:今年|刚|已经|才|都)?(?:满月|满周岁|出生了|[高初][一二三](?![点天])|"
    r"[一二三四五六]年级|上(?:幼儿园|小学|初中|高中|大学))|"
    # a child or partner named ("我女儿朵朵也跟着去 她7岁", "我老公阿杰…"): a name doubled or led by 小/阿, not "小学", "小区"
    r"(?:^|(?<=[\s，,。！!]))(?:我|我家|我的)(?:儿子|女儿|闺女|老公|老婆|媳妇|对象|男朋友|女朋友)(?:(?!天天|刚刚|偷偷|慢慢|常常|好好|悄悄|哈哈|渐渐|"
    r"明明|白白|早早|乖乖)(?P<twice>[\u4e00-\u9fff])(?P=twice)|[小阿]"
    r"(?!学|时|区|孩|姑|姨|叔|舅|朋友|说|店|组|吃|事|的|心|点|猫|狗|伙|姐|妹|弟|哥|家|年|号|班|半|些|会|便|明|红|气|腿|提|升|脑|里)[\u4e00-\u9fff])|"
    # what the user will spend on it ("住宿一晚300以内哈", "预算两千以内")
    r"(?:预算|一晚|每晚|一个月|每个?月|人均|一人|一个人)[^，。！？\s]{0,4}?(?:\d+|[一二两三四五六七八九十百千万]+)(?:块|元|k|K|w|万|千|百)?(?:钱)?(?:以内|以下|之内|封顶)|"
    # a pastime kept up with others on a weekday ("周三晚上跟同事打羽毛球")
    r"(?:^|(?<=[\s，,。！!]))(?:再问下\s*|另外\s*)?(?:我)?(?:每周[一二三四五六日天]?|周[一二三四五六日末]|星期[一二三四五六日天])(?:晚上|早上|下午|中午)?"
    r"(?:都|会|还)?(?:跟|和)[\u4e00-\u9fff]{1,3}(?:一起)?(?:练|打|下)(?:羽毛球|乒乓球|网球|篮球|台球|太极|瑜伽|围棋|象棋)|"
    # a thing of the user's own, said as "that one of mine" ("我那台长城炮后斗…", "还有我那台Proton Saga冷气不够冷")
    r"我(?:家)?(?:那|这)(?:台|辆|部)(?!车子?[\s，,。]|电脑[\s，,。]|手机[\s，,。]|分|词|门|戏|剧)[\u4e00-\u9fffA-Za-z0-9][\u4e00-\u9fffA-Za-z0-9 ]{1,10}|"
    # ...or a brand's thing ("我那个美的的空气炸锅才4.5L"): a make named, then what it is
    r"我(?:家)?(?:那|这)个(?:[\u4e00-\u9fff]{2,4}|[A-Za-z][\w-]{1,15})的(?:电饭煲|空气炸锅|冰箱|洗衣机|烤箱|微波炉|扫地机|电脑|笔记本|平板|手机|"
    r"相机|耳机|手表|自行车|电动车|摩托|吉他|钢琴|键盘)|"
    # where the user is, beside a landmark ("我们就在根河湿地边上 早上推窗就是湿地")
    r"(?:^|(?<=[\s，,。！!]))(?:我们?|咱们?)(?:家)?(?:就)?在(?![^\s，,。]*(?:酒店|宾馆|站|你|他|她|门口))"
    r"[\u4e00-\u9fffA-Za-z]{2,8}?(?:边上|旁边|脚下|对面)(?=$|[\s，,。！!～~])|"
    r"\b(?:i|we)(?:'re|re| are|'m|m| am)? (?:now |currently |still )?(?:renting|living|based) (?:in|out of|near)\b|"
    # where and as what the user works, said in chat ("i work the front desk at the hotel peter and paul", "i bartend at a
    # dive in the marigny", "i lifeguard at the ymca")
    r"\b(?:i|i've|ive|i have)(?: now| currently| still| just| also| actually)? (?:work|worked|been working|started working) "
    r"(?:at|for|as|the|in|on|nights|weekends|part[- ]time|full[- ]time)\b(?! (?:it|this|that|them|home|out|the problem)\b)|"
    r"\b(?:i|im|i'm)(?: now| currently| still| also)? (?:bartend|bartending|waitress|waitressing|lifeguard|lifeguarding|nanny|"
    r"nannying|babysit|tutor|tutoring|volunteer|volunteering|intern|interning|freelance|freelancing|teach|teaching) (?:at|for|in|on)\b|"
    r"\b(?:we're|we are|i'm|im|i am|we live|i live) in (?:a|an|our|my) (?:[\w-]+ ){0,3}(?:flat|apartment|house|condo|"
    r"townhouse|studio|bungalow|duplex)\b|"
    r"\b(?:i'm|im|i am) (?:now |officially |happily )?(?:single|divorced|engaged|married|widowed|pregnant)\b|"
    r"\b(?:we|i|[a-z]+ and i|me and [a-z]+) (?:have |had |just |finally )?(?:split up|broke up|separated|got divorced|"
    r"got engaged|got married)\b|"
    # what the user has taken up ("ive started learning ukulele on my days off", "最近开始学尤克里里")
    r"\b(?:i|i've|ive|i have)(?: just| recently| finally)? (?:started|been|taken up|picked up) (?:learning|taking|playing|"
    r"doing|going to) [\w -]{2,30}(?:lessons|classes|on (?:my )?(?:days off|weekends)|every|again)|"
    r"\b(?:i've|ive|i have)(?: just| recently| finally)? (?:taken|picked) up (?!(?:the|a|an|some|too|your|my|much|any|"
    r"overtime|extra|shifts?|cold|bug|virus|flu)\b)\w+|"
    # a grandchild or child named, taken somewhere by the user ("这周休班带孙子石头去江边钓鱼")
    r"(?:^|(?<=[\s，,。！!]))(?:我)?(?:这周|周末|今天|明天|下周|休班|休息)*(?:我)?带(?:我家)?(?:孙子|孙女|外孙女?|儿子|女儿|闺女)"
    r"(?!们|去|来|回|出|到|上|玩|一起|下楼|出门|天天|每天|明天|周末)[\u4e00-\u9fff]{2}(?:去|来|到|回)[\u4e00-\u9fff]{1,8}|"
    # what the user is learning these days, whatever it is ("最近在学冬不拉"; not "学校", "学费", "学习")
    r"(?:^|(?<=[\s，,。！!]))我?(?:最近|这阵子|这段时间|今年|业余)(?:开始)?(?:在)?学(?:了)?(?!校|生|期|费|习|历|院|员|姐|长|妹|弟|到|会|着|乖|坏|的|区|术|什|科|霸|啥|哪)"
    r"[\u4e00-\u9fffA-Za-z]{2,6}|"
    # the user's partner: named beside the user ("我和太太阿珍结婚三十周年"), their trade or their own business ("我未婚夫阿泽是演皮影戏的",
    # "我媳妇在元宝区开了个冷面馆")
    r"我(?:和|跟)(?:太太|老婆|老公|妻子|丈夫|爱人|媳妇|老伴|对象|男朋友|女朋友|未婚夫|未婚妻)[\u4e00-\u9fff]{0,3}?(?:结婚|在一起|恋爱|认识)|"
    r"(?:^|(?<=[\s，,。！!]))(?:还有|对了)?我(?:的)?(?:太太|老婆|老公|妻子|丈夫|爱人|媳妇|老伴|对象|男朋友|女朋友|未婚夫|未婚妻)[\u4e00-\u9fff]{0,3}?"
    r"(?:是(?:做|演|教|开|搞|干|修|当)(?!玩笑|个玩笑)[\u4e00-\u9fff]{1,8}的|"
    r"在[\u4e00-\u9fff]{1,8}?开了(?:个|家|一家)[\u4e00-\u9fff]{0,6}(?:店|馆|厂|铺|档|摊|工作室|公司|超市|诊所|餐厅|饭店))|"
    r"(?:^|(?<=[\s，,。！!]))我?(?:最近|现在|今年)?(?:开始)?(?:在)?学(?:了)?(?:钢琴|吉他|小提琴|大提琴|古筝|二胡|尤克里里|架子鼓|贝斯|萨克斯|游泳|滑雪|"
    r"画画|书法|舞蹈|拳击|日语|韩语|法语|德语|西班牙语|英语|编程|摄影|烘焙|做饭)|"
    # a pastime the user keeps up ("闲下来我还练书法", "下班还得去打羽毛球"), not someone else's ("我妈还练书法")
    r"(?:^|(?<=[\s，,。！!]))(?:我|咱)?(?:自己)?(?:平时|周末|下班|下了班|闲下来|闲的时候|没事|每周|每天|晚上|早上)?(?:我)?(?:还|也|就|会|常|经常|"
    r"一直|每周|每天)?(?:得)?(?:去)?(?:练|打|学|弹|拉|下)(?:书法|羽毛球|乒乓球|网球|篮球|台球|太极|瑜伽|围棋|象棋|钢琴|吉他|尤克里里|古筝|"
    r"二胡)|"
    # an instrument of the user's own ("playing him something on my cello", "我的古筝")
    r"\b(?:on|play(?:ing)?|practi[cs](?:e|ing)) my (?:cello|violin|viola|guitar|piano|drums|ukulele|uke|flute|clarinet|"
    r"saxophone|sax|trumpet|trombone|harp|banjo|mandolin|accordion|oboe|bass guitar)\b|"
    r"我(?:的|家的?)(?:钢琴|吉他|小提琴|大提琴|古筝|二胡|琵琶|尤克里里|架子鼓|萨克斯|长笛|电子琴)|"
    # an instrument the user plays ("我自己会弹尤克里里", "i play the cello")
    r"我(?:自己)?(?:会|在)(?:弹|拉|吹|打)(?:钢琴|吉他|小提琴|大提琴|古筝|二胡|琵琶|尤克里里|架子鼓|萨克斯|长笛|电子琴|鼓)|"
    r"\bi (?:can )?play (?:the )?(?:cello|violin|viola|guitar|piano|drums|ukulele|flute|clarinet|saxophone|sax|trumpet|"
    r"trombone|harp|banjo|mandolin|accordion|oboe|bassoon|euphonium)\b|"
    # how the user gets to work ("明天还得挤昌平线一个半小时去上班", "每天坐班车去上班")
    r"(?:^|(?<=[\s，,。！!]))(?:我)?(?:每天|天天|明天|平时|早上)?(?:都|还)?(?:得|要)?(?:挤|坐|搭|倒)(?!过|了|着)"
    r"[\u4e00-\u9fffA-Za-z\d]{0,6}?(?:号线|线|地铁|公交|班车|高铁|城铁|轻轨)[\u4e00-\u9fff\d]{0,8}?(?:去|来)?(?:上班|上学)|"
    # a stage of study said as what the user is now ("研三了 同济土木", "浙大cs研二 导师巨push"), a thesis of the user's own
    r"(?:^|(?<=[\s，,。！!])|(?<=[A-Za-z]))(?:我)?(?:今年|现在|已经)?(?:研[一二三]|博[一二三四五六])(?:了|啦)?(?=$|[\s，,。！!])|"
    r"(?:^|(?<=[\s，,。！!]))(?:我的?)?毕业论文(?:在|是)?(?:写|做|研究)(?!完|好|不|了)[\u4e00-\u9fffA-Za-z]{2,10}|"
    # the user's body said in figures ("175 现在82kg 目标75", "我现在82kg", "身高170"): not someone else's, led by no one
    r"(?:^|(?<=[\s，,。！!]))(?:我)?(?:现在|目前|体重|已经)?(?:卡在|减到|瘦到|胖到)?\d{2,3}(?:\.\d)?\s?(?:kg|KG|公斤|斤)(?=$|[\s，,。！!]|了|啦)|"
    r"(?:^|(?<=[\s，,。！!]))(?:我)?身高\s?1\d{2}|"
    # children by order and age ("大的朵朵5岁 小的小满才2岁")
    r"(?:^|(?<=[\s，,。！!]))(?:大的|小的|老大|老二|老三)(?:是|叫)?[\u4e00-\u9fff]{2}(?:今年|才|已经|刚)?\d{1,2}岁|"
    # the app or the device the user does a thing of theirs with ("热量我都用薄荷健康记", "拍视频就用iphone15pro")
    r"(?:我|^(?:拍|剪|记|录)[\u4e00-\u9fff]{0,3})(?:都|就|一直|平时|一般)用(?:的是)?(?![这那你啥哪什它])(?:[A-Za-z][\w+-]{2,19}|[\u4e00-\u9fff]{2,6}(?=记|拍|剪|练|刷))|"
    # an internship or a post ahead at a company ("暑假去百度实习 做大模型对齐")
    r"(?:^|(?<=[\s，,。！!]))(?:我)?(?:暑假|寒假|下个?月|明年|今年|下学期)(?:要|会|准备)?去(?!哪|玩|旅游|旅行)[\u4e00-\u9fffA-Za-z]{2,8}?实习|"
    # a pet taken in ("最后领养了只狸花 叫大王")
    rf"(?:^|(?<=[\s，,。！!]))(?:我|我们)?(?:最后|刚|终于|上周|前几天|去年)?(?:领养|收养|捡|养)了(?:一)?只[\u4e00-\u9fff]{{0,4}}(?:{ZH_PETS})|"
    # the user's own pet named ("还有我家狗旺财", "我们家的猫叫年糕")
    rf"我(?:家|们家)?的?(?:{ZH_PETS})(?:叫|名叫)?(?!{ZH_PETS}|[子叫不没最今昨明天也都还又就很太特真总老一是在有要会能的了跟和被把这那好可越每"
    rf"掉拆生吃咬跑睡挠抓舔吐拉病怕喜爱咳发])(?:[\u4e00-\u9fff]{{2,3}}(?=\s|[，,])|[\u4e00-\u9fff]{{2}}(?=最近|这两天|这几天|老是|总是|一直|今天))",
    re.IGNORECASE)


#: A sport's record or working weight ("全马pb 3:58", "半马最好1:48", "卧推卡80kg快一个月了", "ftp才180", "my half PR is 1:52",
#: "i climb V4 outdoors"): the user's, unless said beside someone else.
_RECORD_RE = re.compile(
    r"(?:^\W*(?:[\u4e00-\u9fff]{1,3}们\s*)?|我的?)(?:全马|半马|首马|10公里|5公里)\s?(?:pb|PB|最好成绩|最好|成绩|跑进)\s?(?:是|才|到)?\s?\d{1,2}[:：]\d{2}|"
    r"(?:^|(?<=[\s，,。！!]))(?:我)?(?:卧推|深蹲|硬拉|推举|引体)(?:卡在?|到|能做|做到|最大|极限|pr|PR)?\s?\d{2,3}\s?(?:kg|KG|公斤|斤|个)|"
    r"(?:^|(?<=[\s，,。！!]))(?:我)?(?:的)?(?:ftp|FTP)(?:才|是|有|到了?)\s?\d{2,3}(?![\d:])|\bmy ftp (?:is|of|at) \d{2,3}\b|"
    r"\bmy (?:marathon|half|half marathon|10k|5k|mile|deadlift|squat|bench) (?:pr|pb)(?:'s| is| was| of)?\s?\d|"
    r"\bi (?:climb|boulder|lead|send|project|climbed|sent) (?:around |mostly |up to |solid )?v\d{1,2}\b",
    re.IGNORECASE)
_SOMEONE_SAID_RE = re.compile(r"(?<!其)[他她]|\b(?:he|she|his|her|him|they|their|them)\b", re.IGNORECASE)


#: Where the user comes from, in Chinese chat ("我成都人 无辣不欢", "我是东北人"): a place the word lists know.
_HOMETOWN_ZH_RE = re.compile(r"(?:^|(?<=[\s，,。！!]))我(?:是|系)?(?P<p>[\u4e00-\u9fff]{2,3}?)人(?=$|[\s，,。！!]|哈|啊|呀|嘛|啦)|"
                             # a home town gone back to ("过年回兰州老家的时候", "下周末回佛山老家"; not "回老家")
                             r"(?<![他她爸妈公婆象友])回(?P<q>[\u4e00-\u9fff]{2,3}?)老家")  # (not "陪老公回湖南老家")


def _states_life(sentence: str) -> bool:
    """Whether ``sentence`` states where or how the user lives in so many words (``_LIFE_RE``), or where they come from
    (``_HOMETOWN_ZH_RE``), not as a question or a supposition; or asks about a condition of the user's own, named first
    (``_CONDITION_ASKED_RE``)."""
    return ((bool(_LIFE_RE.search(sentence) or _record_of_own(sentence) or _TITLE_HERE_RE.match(sentence) or ((hometown := _HOMETOWN_ZH_RE.search(sentence)) and (
        places_in(hometown.group("p") or hometown.group("q"))
        or hometown.group("p") in ("东北", "广东", "江浙", "本地", "北方", "南方"))))
             and not _QUESTION_RE.search(sentence)) or _of_own_condition(sentence)
            or bool(_OWN_NAMED_ASKED_RE.search(sentence))) \
        and not _conditional(sentence) and not _MEANT_TO_RE.search(sentence)


#: A title the user introduces themselves by ("wedding photographer here (halifax), …", "small bakery owner, we open at 7am").
_TITLE_HERE_RE = re.compile(rf"^\W*(?:(?:hi|hey|hello|yo|ok|so)\W+)?(?:(?!(?:the|my|our|your|his|her|their|a|an|this|that|one|"
                            rf"any|some|every|no|called|emailed|texted|fired|hired|met|asked|told|saw)\b)[\w-]+ ){{0,2}}(?:{EN_TITLES}|owner|photographer|groomer|"
                            rf"contractor|realtor|baker|stylist|barber|electrician|plumber|mechanic)"
                            rf"(?: at [\w&'-]+(?: [\w&'-]+)?)?(?: here\b|,)", re.IGNORECASE)


def _record_of_own(sentence: str) -> bool:
    """Whether ``sentence`` gives a sport's record or working weight (``_RECORD_RE``) with no one else spoken of in it ("半马2:10
    带他一起练会不会拖我后腿" is the husband's)."""
    return bool(_RECORD_RE.search(sentence)) and not _SOMEONE_SAID_RE.search(sentence)


#: A question about the user's own pet or child, named ("can my rabbit Waffles eat carrot tops?", "should my son Theo
#: …"): who is in the household, whatever is asked.
_OWN_NAMED_ASKED_RE = re.compile(rf"\b(?:can|could|should|does|do|is|will|would|why does|why is|how do i get)\s+my\s+(?:[\w-]+\s+)?"
                                 rf"(?:(?:{EN_PETS})|pup|puppy|kitten|son|daughter|kid|baby|grandson|granddaughter)\s+"
                                 r"(?-i:[A-Z][a-z][\w'-]+)\b|"
                                 # ...or in Chinese, named right after its kind ("家里猫团子最近掉毛好严重 是换季吗")
                                 rf"(?:我家|家里|我养的)的?(?:那只|这只|那条|这条)?(?:{ZH_PETS})(?!最近|今天|昨天|老是|总是|一直|现在|平时|已经|"
                                 r"特别|好像|突然|每天|天天|晚上|半夜|有点|不[吃爱肯喝]|生病|掉毛|吐了|拉)[\u4e00-\u9fff]{2}"
                                 r"(?=最近|今天|老是|总是|一直|又|突然|每天|天天|晚上|半夜|有点|不|超|[一二三两\d]+岁)", re.IGNORECASE)


#: A chronic condition named first in a question, as Chinese chat asks of one's own ("糖尿病能吃啥水果", "另外痛风能喝啤酒不",
#: "腰间盘突出 开车久了腰疼"; not "我妈糖尿病能吃啥", whose condition is someone else's).
_CONDITION_ASKED_RE = re.compile(
    r"(?:^|(?<=[\s，,。！!]))(?:另外|还有|对了|再问下|请问|问下|问一下)?\s*(?:我)?(?:有)?(?:糖尿病|高血压|高血脂|高血糖|血糖高|血压高|尿酸高|"
    r"高尿酸|痛风|胃溃疡|胃炎|肾结石|胆结石|脂肪肝|甲亢|甲减|哮喘|贫血|乳糖不耐受?|腰间盘突出|腰椎间盘突出|颈椎病|腰肌劳损|鼻炎|"
    r"荨麻疹|偏头痛|关节炎|痔疮)(?!的人|患者|会遗传|遗传|传染|会传染)(?=\s|[，,]|能|可以|适合|不能|该|要|吃|喝|怎么|咋|老是|又犯)")


def _of_own_condition(sentence: str) -> bool:
    """Whether ``sentence`` names a condition of the user's first (``_CONDITION_ASKED_RE``), in a sentence about no one else
    (it reads the sentence, not the message around it: "我爸查出来痛风了。痛风能喝啤酒吗？" still reads as the user's)."""
    return bool(_CONDITION_ASKED_RE.search(sentence)) and not about_another_person(sentence)


def _disclosing(sentences: list[str], whole_keep: float, keep: np.ndarray, correction: np.ndarray, at: int,
                model: disclosure.DisclosureModel, message: str) -> tuple[list[str], int]:
    """The sentences of a message its episode keeps ([] when it discloses nothing), and the next row."""
    if len(sentences) <= 1:
        return _whole(message, whole_keep, model), at
    # A sentence that states how the user lives before it asks ("我自己是扎风筝的 要不送她个手绘风筝？"): its statement.
    sentences = [_life_said(s) or s for s in sentences]
    scores = [max(float(keep[at + i]), SENTENCE_KEEP) if _states_life(sentences[i]) else float(keep[at + i])
              for i in range(len(sentences))]
    lives = any(_states_life(s) for s in sentences)
    if lives:
        whole_keep = max(whole_keep, CLAUSE_WHOLE_MIN)
    # A sentence judged a correction that says what changed keeps its place ("So pescatarian now I suppose!").
    changed = [float(correction[at + i]) >= model.correction_threshold and corrections.signals_change(sentences[i])
               for i in range(len(sentences))]
    at += len(sentences)
    text = "".join(sentences)
    clauses = _one_sentence(message.strip())
    if clauses and whole_keep >= model.keep_threshold:
        return _whole(message, whole_keep, model), at  # one sentence that discloses: kept as it was said
    # The whole decides; one sentence (or clause) alone only when nothing in the message is hypothetical ("假如
    # 预算只有两万...？我就随便问问" is not a plan), and a clause only when the whole is not plainly chatter.
    # (a supposition beside how the user lives keeps the latter: "还有我家狗旺财 柯基 以后要是带它回国探亲 …")
    # (a message the whole does not keep, lifted by a sentence, speaks of the user or a life somewhere: "ok pineapple on
    # pizza, pick a side, no fence sitting", "画师们吵翻了" beside "最近那个AI画画的新闻你咋看" do not; a value taken back,
    # "oh and its Fionn not Finn", and "daniela is 10 …, mateo … he's only 6" do)
    of_a_life = any(_FIRST_PERSON_RE.search(s) or _states_life(s) or _of_a_life(s) or places_in(s)
                    or corrections.signals_change(s) or corrections.swapped_values(s) or corrections.topics(s)
                    for s in sentences)
    if whole_keep < model.keep_threshold and (max(scores) < SENTENCE_KEEP or not of_a_life
                                              or (_HYPOTHETICAL_RE.search(text) and not lives)
                                              or (clauses and whole_keep < CLAUSE_WHOLE_MIN)):
        return [], at
    # The message tells something about the user: kept but for its questions about something else and its
    # sentences plainly not about the user (a sentence alone is often misread: "the shop is called Ember Lane
    # now" after "rebranded!!", so only clear ones go).
    # A sentence that retracts a value keeps its place whatever it scored alone: it holds the new value
    # ("oops, her name is Pickle, not Pickles.").
    kept = []
    by_score = False
    asked = ""  # the question just left out, if the sentence before was one
    for s, score, says_change in zip(sentences, scores, changed, strict=True):
        said = s
        if _QUESTION_RE.search(s) and not _FIRST_PERSON_RE.search(s) and not _of_own_condition(s) and score >= SENTENCE_KEEP:
            s = _without_question(s)  # the statement before the question stays
            s = "" if _FILLER_LEAD_RE.fullmatch(s) else s  # (not "last one," of "last one, any celiac safe spots …?")
        if (mood := _MOOD_END_RE.search(s)) and (mood.start() == 0 or not s[mood.start() - 1].isalnum()) \
                and len(keyword_tokens(rest := s[:mood.start()])) >= 4:
            s = rest  # "酒店那边出了点问题 改成明年5月2号了 唉": the news stays, the sigh goes
        # "she's a 6 month old lab mix" right after "we're adopting a rescue pup": the pet or child the sentence
        # before kept, not someone else (a sentence scored alone does not know whom "she" is).
        continued = bool(kept) and bool(_PRONOUN_LED_RE.match(s)) and bool(_OWN_HOUSEHOLD_RE.search(kept[-1])) \
            and not about_another_person(kept[-1])
        # "柯基" right after "还有我家狗旺财": a word or two of the pet or child the piece before named (a breed, an age).
        continued = continued or (bool(kept) and bool(_SHORT_CJK_RE.fullmatch(s.strip()))
                                  and bool(_OWN_HOUSEHOLD_RE.search(kept[-1])))
        # "its may 18 in fredericton." right after "signed up for my first half marathon!": when and where of it.
        continued = continued or (bool(kept) and bool(_IT_LED_RE.match(s)) and _when_or_where(s))
        # "my cat oolong is NOT impressed": a sentence naming the user's own pet or child tells who they are; so does
        # "his name is Biscotti" after the pet the sentence before spoke of.
        continued = continued or (bool(_OWN_NAMED_RE.search(s)) and not about_another_person(s)) or (
            bool(kept) and bool(_NAME_IS_RE.match(s)) and bool(corrections.topics(kept[-1]) & {"pet", "family"}))
        # (a question with no mark, "whats the tallest mountain in Canada btw", is one too)
        question = bool(s) and bool(_QUESTION_RE.search(s) or _UNMARKED_QUESTION_RE.match(s)) \
            and not _FIRST_PERSON_RE.search(s) and not _of_own_condition(s)
        if s and not question and not _MOOD_END_RE.search(s) \
                and (score >= SENTENCE_DROP or says_change or corrections.retracted_terms(s) or continued):
            if asked and _FIRST_PERSON_RE.search(s) and corrections.topics(asked) & _ASKED_OF_OWN \
                    and not about_another_person(s) and not _SOMEONE_ELSE_RE.search(s):
                # "any good bass guitar exercises for finger independence? i play in a covers band": what the question
                # names is what the statement after it is about (the user's instrument, pet, car, phone; not "are
                # huskies ok in apartments? my sister wants one").
                kept.append(asked)
            kept.append(s)
            by_score = by_score or score >= SENTENCE_DROP or bool(corrections.retracted_terms(s))
        asked = said.strip() if (question or not s) and (_QUESTION_RE.search(said) or _UNMARKED_QUESTION_RE.match(said)) \
            and not _ASKS_THE_ASSISTANT_RE.search(said) else ""
    # What changed joins what the message tells; alone it is no reading of the message (the caller decides).
    return (kept if by_score else []), at


_SHORT_CJK_RE = re.compile(r"[\u4e00-\u9fff]{2,4}")
#: A relative's slot key with no name in it ("妈", "mom", "little_brother").
_KIN_ONLY_RE = re.compile(r"(?:弟弟|妹妹|哥哥|姐姐|老弟|老妹|弟|妹|哥|姐|妈妈|爸爸|老妈|老爸|妈|爸)|(?:(?:little|big|younger|older|baby|kid|twin)_)?"
                          r"(?:brother|sister|bro|sis|mom|mum|mother|dad|father)", re.IGNORECASE)
#: A Chinese message led by "他"/"她" ("还有他芒果过敏 …", "她今年上二年级"), not "他们", "他说", nor someone of theirs.
_KID_LED_RE = re.compile(r"^\W*(?:还有|而且|另外|对了|然后|哦|嗯)?\s*(?:他|她)(?!们|说|讲|妈|爸|老公|老婆|家|的|觉得)")
#: The user's own child spoken of in Chinese ("我家乐乐", "我儿子", "接娃", "孩子明年幼升小").
_OWN_KID_SAID_RE = re.compile(r"(?:我|我家|咱家)(?:的)?(?:儿子|女儿|闺女|孩子|娃|宝宝|大宝|二宝)|[接送带陪](?:娃|孩子)|我家[\u4e00-\u9fff]{2}(?=明年|今年|现在|[0-9一二三四五六七八九十]+岁|上|在|读)|"
                              r"(?:^|(?<=[\s，,。！!]))(?:孩子|娃|儿子|女儿|闺女)(?:明年|今年|现在|上|在|读)")
#: What leads a question and says nothing ("last one,", "ok also", "another q", "还有", "对了").
_FILLER_LEAD_RE = re.compile(r"\W*(?:(?:ok(?:ay)?|oh|and|also|so|btw|last|one more|another|quick|final|random)\W*)*"
                             r"(?:one|q|question|thing)?\W*|\W*(?:还有|对了|另外|最后|再问)\W*", re.IGNORECASE)
#: A name given, with no word for whom: "shes called Wren", "his name is Bram", "names are Ottilie and Cass", "她叫朵朵".
_NAMES_GIVEN_RE = re.compile(r"\b(?:s?he'?s|s?he is|hes|shes|they're|theyre|they are) (?:called|named) "
                             r"(?!(?:in|me|us|him|her|them|off|out|back|up|after|for|it)\b)[A-Za-z][\w'-]+|"
                             r"\b(?:his|her|their) names?(?: is| are|'s| r)\b ?[A-Za-z][\w'-]+|^\W*(?:(?:ok|oh|and|also|btw)\W+)*"
                             r"names?(?: are| is|'s| r)\b (?-i:[A-Z])[\w'-]+|"
                             r"(?:^|[\s，,。])(?:他|她|它)(?:叫(?![我你他她它咱人])|名字叫|大名叫|小名叫)[\u4e00-\u9fff]{2,4}",
                             re.IGNORECASE)
#: Someone outside the household spoken of ("my coworker is having a baby shower"): a name after it is theirs.
_SOMEONE_ELSE_SAID_RE = re.compile(
    rf"\b(?!(?:son|daughter|kid|husband|wife|partner|grandson|granddaughter)s?\b)(?:{PERSON_EN})s?\b|"
    rf"(?!儿子|女儿|闺女|孩子|孙子|孙女|外孙|老公|老婆|爱人)(?:{PERSON_ZH})", re.IGNORECASE)
#: The user's child or pet spoken of in chat, with or without "my" ("kid 2 starts year 3", "twins turning 6", "我女儿").
_HOUSEHOLD_SAID_RE = re.compile(rf"\b(?:kids?|kid \d|son|daughter|twins|baby|toddler|eldest|youngest|\d+ ?yo|"
                                rf"(?!lab\b)(?:{EN_PETS})s?|pupp(?:y|ies)|kitten)\b|我家|儿子|女儿|闺女|孩子|宝宝|娃|孙子|孙女|外孙|{ZH_PETS}",
                                re.IGNORECASE)
#: The user's own pet or child named in a sentence: a sentence led by "she"/"he" after it is still the user's news.
_OWN_HOUSEHOLD_RE = re.compile(rf"(?:我家|我们家|我的|我)(?:{ZH_PETS}|儿子|女儿|孩子|宝宝|娃)|\b(?:my|our|we're adopting an?|we adopted an?|"
                               rf"we got an?|i got an?|i adopted an?)\s+(?:[\w-]+\s+){{0,3}}?(?:(?:{EN_PETS})s?|pupp(?:y|ies)|"
                               rf"pups?|sons?|daughters?|kids?|baby|twins|toddler)\b", re.IGNORECASE)
#: The user's own pet or child named, in any case ("my cat oolong is NOT impressed", "our dog fennel just sits there").
_OWN_NAMED_RE = re.compile(rf"\b(?:my|our)\s+(?:[\w-]+\s+)?(?:(?:{EN_PETS})s?|pup|puppy|kitten|son|daughter|kid|baby)\s+"
                           r"(?!(?:is|was|has|and|just|keeps|seems|loves|hates|who|that|when|so|really|also|always|never|"
                           r"still|finally|only|usually|totally|literally|absolutely|partner|monitor|food|bed|toys?|sitter|"
                           r"walker|groomer|vet|seat|gate|crate|carrier|insurance|brother|sister)\b)[a-z][\w'-]+"
                           r"(?:'s|\s+(?:is|was|has|just|keeps|kept|seems|loves|hates|won't|doesn't|didn't|can't|sits|sleeps|"
                           r"gets|got|turned|turns|still|always|never))\b|"
                           rf"(?:我家|我们家|我的|我)(?:{ZH_PETS}|儿子|女儿)叫[\u4e00-\u9fff]{{2,4}}", re.IGNORECASE)
#: "his name is Biscotti", "her name's Pickle".
_NAME_IS_RE = re.compile(r"^\s*(?:(?:and|also|oh|btw)[\s,]*)*(?:his|her|its|their) name(?:'s| is)\s+\w+", re.IGNORECASE)
#: A sentence that goes on about what the one before said ("its may 18 in fredericton.", "it's at the town hall").
_IT_LED_RE = re.compile(r"^\s*(?:(?:and|also|but|so|oh|plus|btw)[\s,]*)*(?:it's|its|it is|it'll be|it will be)\b", re.IGNORECASE)


def _when_or_where(sentence: str) -> bool:
    """Whether ``sentence`` gives a date on the calendar or a known place."""
    return bool(corrections.TOPICS["date"].search(sentence) or places_in(sentence))


_PRONOUN_LED_RE = re.compile(r"^\s*(?:(?:and|also|but|so|oh|plus|btw)[\s,]*)*(?:她|他|它|\b(?:he|she|he's|she's|hes|shes|"
                             r"he'll|she'll|it's|its)\b)", re.IGNORECASE)


def is_transcript(messages: Sequence[str]) -> bool:
    """Whether a session's user messages are a transcript between people (see TRANSCRIPT_MIN_TURNS): a user who
    begins one message with "Update:" or "PS:" is not one."""
    labels = [label.group(0).rstrip(":： ").strip() for label in map(_SPEAKER_LABEL_RE.match, messages) if label]
    return (len(labels) >= TRANSCRIPT_MIN_TURNS and len(labels) >= TRANSCRIPT_SHARE * len(messages)
            and len(set(labels)) >= 2)


def _logged(messages: Sequence[TurnText], parts: list[list[str]], keep: np.ndarray) -> list[MemoryDraft]:
    """A transcript is kept as the dialogue log it is: each turn that says anything (TRANSCRIPT_KEEP) becomes a
    ``system_log`` event of its session and turn, as ``import_log`` would store it, so that recall reads it with
    its neighbours (the window channels) and its speaker's label (the speaker prior). A log records what each
    speaker said; it neither fills nor corrects the user's slots."""
    out, at = [], 0
    for turn, sentences in zip(messages, parts, strict=True):
        pieces = sentences if len(sentences) > 1 else []
        scores = [float(keep[at + 1 + i]) for i in range(len(pieces))] or [float(keep[at])]
        at += 1 + len(pieces)
        said = any(score >= TRANSCRIPT_KEEP and not (_QUESTION_RE.search(s) and not _FIRST_PERSON_RE.search(s))
                   for s, score in zip(pieces or [turn.content.strip()], scores, strict=True))
        if said:
            # A turn that instructs the assistant goes through the write path's quarantine as what the user said
            # (a log event is not checked there: an operator's import is trusted, a user's "transcript" is not).
            logged = not instruction_signals(turn.content)
            out.append(MemoryDraft(
                content=turn.content.strip(), type=MemoryItem.Type.EVENT if logged else MemoryItem.Type.EPISODE,
                source=MemoryItem.Source.SYSTEM_LOG if logged else MemoryItem.Source.USER_STATED,
                confidence=round(0.6 + 0.3 * max(scores), 3), agent_id=turn.agent_id, session_id=turn.session_id,
                turn_id=turn.turn_id, excerpt=turn.content[:500],
                tags={**context_tags(turn.content), "extractor": "transcript"},
            ))
    return out


#: Words of a passing moment: a mood, a day, what was just watched ("this week felt like a month", "I just binged
#: the whole season lol send help", "周一综合症又犯了").
_MOMENT_RE = re.compile(r"今天|今早|今晚|这会儿|刚才|这周|这礼拜|周一|综合症|不想上班|不想干|[😭😩🥲😵]|手都.{0,2}麻|下雨|下雪|无聊死|"
                        r"\b(?:today|tonight|this morning|this afternoon|this week|rn|atm|at the moment|send help|gonna|mondays?|"
                        r"raining|pouring|snowing|washout|bored|going feral|"
                        r"amirite|kicked in|"
                        r"just (?:finished|binged|watched)|tiny victories|re-?watch(?:ed|ing)|"
                        # news of the world ("wild that Iceland is erupting again, saw it on the news", "刚看到新闻说…")
                        r"on the news|in the news|saw (?:it|that) on)\b|新闻|热搜", re.IGNORECASE)


#: How many words a passing moment is told in at most ("今天好累，现在只想躺着", "so tired today, just want to sleep now").
MOMENT_MAX_WORDS = 12


def _a_moment(text: str) -> bool:
    """Whether ``text`` only tells how the user is right now: a word of the moment, and none of the topics a lasting
    fact speaks of (work, home, a pet, health, a plan ...: "started at a dermatology clinic this week" stays), in a few words
    (a plan told at length is no mood: "so yeah scrapping the van plan. gonna knock out the back storage wall …")."""
    return bool(_MOMENT_RE.search(text)) and not corrections.topics(text) and not corrections.names(text) \
        and len(keyword_tokens(text)) < MOMENT_MAX_WORDS \
        and not (places_in(text) and _LIVES_AT_RE.search(text)) and not _states_life(text)


#: Words of living somewhere, beside a place: "we're in a flat in Glasgow", not "今天在上海 好冷啊".
_LIVES_AT_RE = re.compile(r"住|搬|定居|老家|房子|我家|家里|小区|\b(?:live|living|lived|flat|apartment|house|moved|based|rent\w*|home)\b",
                          re.IGNORECASE)


#: Topics of a thing of the user's own a question may name before the statement that says it is theirs (an instrument,
#: a pet, a car, a phone).
_ASKED_OF_OWN = frozenset({"music", "pet", "car", "phone", "health"})
#: A question about the assistant or the conversation, not about a thing ("did you see …", "can you remember …").
_ASKS_THE_ASSISTANT_RE = re.compile(r"\b(?:did|have|do|are|were) (?:you|u) (?:see|watch|hear|know|remember|like|think)\b|"
                                    r"你(?:看|听|知道|记得|觉得)", re.IGNORECASE)


def _whole(message: str, whole_keep: float, model: disclosure.DisclosureModel) -> list[str]:
    """A one-sentence message: kept whole when it discloses, unless it is a question about something else
    ("does the Switch OLED work with ...?") or a sigh."""
    text = _life_said(message.strip()) or message.strip()
    if _MOOD_END_RE.search(text) or (whole_keep < model.keep_threshold and not _states_life(text)):
        return []
    if _QUESTION_RE.search(text) and not _FIRST_PERSON_RE.search(text) and not _of_own_condition(text):
        # "另外想问下周末打羽毛球膝盖有点疼，要戴护膝吗": what it tells before the question stays.
        text = _without_question(text)
    return [text] if text else []


#: A clause that begins as a question ("What does the 'budget' field actually control, …").
_ASKS_RE = re.compile(r"\s*(?:请问|想问(?!题)|问一下|问下(?![来去])|怎么|如何|为什么|为啥|哪|啥|什么|是不是|能不能|可不可以|有没有|\b(?:what|how|why|when|where|who|which|"
                      r"whats|what's|can|could|should|would|is|are|do|does|did|any)\b)", re.IGNORECASE)


def _life_said(sentence: str) -> str:
    """What a sentence that also asks states of how the user lives, said in so many words (``_LIFE_RE``); "" if none."""
    if not _QUESTION_RE.search(sentence):
        return ""
    rest = _without_question(sentence)
    return rest if rest and _states_life(rest) else ""


def _without_question(sentence: str) -> str:
    """``sentence`` without its clauses that ask ("commute is 45 min by bus now tho, any podcast recs?" -> "commute is
    45 min by bus now tho,"); "" when it is all question."""
    rest = "".join(c for c in _CLAUSE_RE.split(sentence)
                   if c and not _QUESTION_RE.search(c) and not _ASKS_RE.match(c)).strip()
    return "" if _GREETING_ONLY_RE.fullmatch(rest) else rest  # "您好，请问…？" leaves no statement


#: A greeting and nothing more.
_GREETING_ONLY_RE = re.compile(r"\W*(?:您好|你好|嗨|哈喽|早上好|晚上好|谢谢您?|hi|hello|hey|thanks|thank you|morning)?\W*",
                               re.IGNORECASE)


def corrected_items(user_id: str, text: str, slots: list[str], about: list[str], vectors: Sequence[np.ndarray], *,
                    min_cosine: float = 0.75, guess: bool = True, gone: set[str] = frozenset(),
                    judged: bool = False, new_values: Sequence[str] = ()) -> list[int]:
    """The user's current memories a correction replaces (working/corrections.py): those holding a value it
    retracts by name (or a name ``gone``); else the episodes that filled one of its single-valued slots (or spoke of
    that slot's kind of value: a car make); else, when ``guess``, the episode of the same topic closest in meaning,
    or (``judged`` a correction by the classifier) of any topic, closer still; but a new slot value of no topic that
    nothing held replaces nothing by meaning alone (unless said to correct a mistake)."""
    current = (MemoryItem.objects.for_user(user_id).current().filter(source=MemoryItem.Source.USER_STATED)
               .only("id", "type", "content", "value"))
    label = _SPEAKER_LABEL_RE.match(text)
    if label is not None:
        # A transcript's speaker corrects their own statements, not another speaker's ("Tim: ..." is not "John:").
        current = current.exclude(Q(content__regex=_SQL_SPEAKER_LABEL) & ~Q(content__startswith=label.group(0).strip())
                                  & ~Q(content__startswith="用户"))
    named = corrections.retracted_terms(text) | gone
    found: list[int] = []
    if named:
        # Narrowed in SQL (a substring of the content), then matched as the terms are meant.
        # A stem is not always a substring of its word ("spotifi" of "spotify"): its first letters narrow.
        holding = functools.reduce(operator.or_, (Q(content__icontains=term[:-1] if term.isascii() and len(term) > 4
                                                   else term) for term in named))
        found = [m.pk for m in current.filter(holding) if corrections.holds_any(m.content, named)]
        if found:
            # A message that changes several things ("sold the vivaro and got a ford ranger … moved the holiday to
            # september and we're doing sardinia instead"): what it takes back by name, and by meaning the plan of a
            # topic it changes that those do not speak of.
            about = _left_to_guess(current, found, about, text)
            if not guess or not about:
                return found
        elif not about and not slots:
            # What it takes back by name, nothing held, and no topic to guess by ("还有Mavic 3 炸机了 …新买了台Air 3"
            # when the Mavic was never kept): not whatever is closest ("我在绵阳做无人机航拍").
            return []
    episodes = current.filter(type=MemoryItem.Type.EPISODE)
    replaceable = [s for s in slots if s not in _ADDITIVE_SLOTS]
    if guess and not found and corrections.signals_change(text) and (thing := CHANGED_THING_RE.search(text)):
        # The thing that changed, named ("还有支教的事也变了 … 我被分到西藏林芝了"): the newest statement that named it.
        newest = episodes.filter(content__contains=thing.group("x")).order_by("-created_at", "-pk").first()
        if newest is not None:
            return [newest.pk]
    if replaceable and not found:
        held = _any_of("slots", replaceable)
        kinds = [corrections.SLOT_VALUE_TOPICS[s] for s in replaceable if s in corrections.SLOT_VALUE_TOPICS]
        if kinds:
            held |= _any_of("topics", kinds)
        ids = list(episodes.filter(held).values_list("pk", flat=True))
        if "location" in replaceable:
            # A new place to live replaces what named another place with no trip in it ("北京冬天暖气太干了…" before
            # "搬来深圳才俩月"; "what can I grow on a balcony in Austin?" before "moved to Denver").
            new = {p for v in new_values for p in places_in(str(v))}
            ids += [pk for pk, value in episodes.filter(value__has_key="places").exclude(_any_of("topics", ["travel"]))
                    .exclude(pk__in=ids).values_list("pk", "value") if new and not set(value.get("places") or ()) & new]
        if ids:
            return ids
    if guess and not named and (regraded := _held_otherwise(episodes, text)):
        # A school year or a shift said anew ("纠正一下 我上次打错了 是研二", "moved to days"): the one statement that gave
        # another of that kind, of the same people, is one it corrects, whatever else is closer in meaning (and what else
        # it changes is guessed as ever: "wedding's now 6 Sept … Also I got my band 6!").
        found = [regraded, *_their_slot_facts(current, [regraded], about, frozenset({"partner"}))]
    if not guess or (replaceable and set(replaceable) <= _STYLE_SLOTS):
        # How the user wants answers ("以后直接给书名就行") corrects an earlier wish of that kind, nothing else.
        return found
    if replaceable and not about and not _SAID_WRONG_RE.search(text):
        # A new value of a slot with nothing that held it ("我退休前是老师 现在在青岛" where only "前年查出2型糖尿病" was
        # said): no episode of no topic is its old value, however close in meaning.
        return found
    bundled = disclosure.bundled_model_name()
    if get_embedder().model_name != bundled:
        return found  # stored vectors of another model than the classifier's
    # Of the same topic, else (a topic the vocabulary does not know: "现在改学吉他") any episode, closer still.
    # A slot fact of a slot of that topic is a candidate too: a short message is often kept as its slot fact
    # alone ("用户在美团工作", "The user's project: The Sunday Byte").
    same = episodes.filter(_any_of("topics", about)) if about else episodes
    # (a partner fact only when the correction says who the partner is: corrections.PARTNER_SAID_RE)
    unsaid = frozenset() if corrections.PARTNER_SAID_RE.search(text) else frozenset({"partner"})
    about = _with_birthday(about, text)
    of_topic = [slot for slot, kinds in corrections.SLOT_TOPICS.items() if kinds & set(about) and slot not in unsaid]
    if of_topic:
        facts = current.exclude(type=MemoryItem.Type.EPISODE)
        if _DIET_SAID_RE.search(text) and not _ALLERGY_RE.search(text):
            # (an allergy is no diet a correction of the diet changes: "改成吃素了" leaves "我花生过敏")
            facts = facts.exclude(content__iregex=_ALLERGY_SQL)
        same = same | facts.filter(functools.reduce(operator.or_, (Q(key=slot) | Q(key__startswith=f"{slot}:")
                                                                   for slot in of_topic)))
    if set(about) <= {"health"} and _INTOLERANCE_RE.search(text) and not _DIET_SAID_RE.search(text):
        # An allergy or an intolerance told ("update … now i need a dessert but im lactose intolerant") corrects what was
        # said of one, not a diet ("im vegetarian" stays).
        same = same.filter(content__iregex=_INTOLERANCE_SQL)
    # The whole message, then its pieces that say something changed. A correction that says a date moves a dated
    # plan first ("now doing the Portuguese route from Porto instead, and pushing it to September because of Margaux's
    # work" moves the Camino in May, not the walks with Margaux).
    dated = same.filter(_any_of("topics", ["date"])) if "date" in about else same.none()
    best = _nearest(dated.filter(embedding_model=bundled).exclude(embedding=None).exclude(pk__in=found), vectors)
    if best is None or best[0] < (min_cosine if about else NO_TOPIC_MIN_COSINE):
        best = _nearest(same.filter(embedding_model=bundled).exclude(embedding=None).exclude(pk__in=found), vectors)
    if best is not None and best[0] >= (min_cosine if about else NO_TOPIC_MIN_COSINE):
        return list(dict.fromkeys([*found, best[1], *_their_slot_facts(current, [best[1]], about, unsaid)]))
    if found:
        return found
    if about and judged and not (set(about) & _OWN_KIND_TOPICS and set(about) <= {*_OWN_KIND_TOPICS, "device"}) \
            and set(about) != {"health"} and corrections.signals_change(text) and not replaceable:
        # Judged a correction (not only a word such as "现在"): the vocabulary's topics are coarse and incomplete
        # ("还是不出国了…现在在准备考公" is travel, what it corrects study), so any episode this close in meaning, as
        # for a correction of no known topic. Not for a thing of its own kind (a phone, a car, a pet) never said
        # before: "我手机换了 … 现在用的vivo X100" is no correction of "我在鸣沙山那边牵骆驼的". Nor with no word of a change
        # ("我教初中物理的 国庆前还一堆卷子要改" scored one, and is no correction of "国庆想去坝上露营"); nor of a slot's new value
        # ("我退休前是会计 现在在青岛" is no correction of "我今年61 前年查出高血压").
        closest = _nearest(episodes.filter(embedding_model=bundled).exclude(embedding=None).exclude(pk__in=found), vectors)
        if closest is not None and closest[0] >= NO_TOPIC_MIN_COSINE:
            return [*found, closest[1], *_their_slot_facts(current, [closest[1]], about, unsaid)]
    return found


#: A thing of the user's named as what changed ("还有支教的事也变了", "哦还有新疆那个行程，…提前到4月中旬了"), in Chinese (read
#: only of a message that says a change).
CHANGED_THING_RE = re.compile(r"(?:^|(?<=[\s，,。！!]))(?:还有|另外|对了|哦还有)?(?P<x>(?![我你他她它]|说到|老公|老婆|孩子)[\u4e00-\u9fff]{2,4}?)(?:的事|那事|那件事|那个事|的计划|那个?计划|"
                              r"那趟|那个行程|的行程|的安排)(?:情)?(?:[\u4e00-\u9fff]{0,3}?(?:也|又|还)?(?:变了|有变|改了|改期了|延期了|推迟了|提前了|黄了|"
                              r"泡汤了|取消了|定了)|(?=[\s，,。！!]|$))")


#: A name and the age said of it ("豆豆上周刚过完6岁生日", "儿子豆豆5岁", "Lily is 5", "Lily turned 6").
_NAME_AGED_ZH = r"{name}(?:今年|现在|已经|刚刚?|上周|上个月|前天|昨天|都|也|就|才|过完|满|过了|马上|快)*(?P<n>\d{{1,2}})(?:周)?岁"
_NAME_AGED_EN = (r"\b{name}(?:'s| is| turned| just turned| turns| is now| is turning| is actually|'s actually)\s"
                 r"(?P<n>\d{{1,2}}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
                 r"sixteen|seventeen|eighteen|nineteen|twenty)"
                 r"(?=\s*(?:$|[,.;!?…]|years? old\b|yo\b|now\b|and\b|but\b|so\b|last\b|this\b|next\b|on\b|today\b|yesterday\b|"
                 r"lol\b|btw\b|already\b|actually\b))")


def _aged_anew(user_id: str, message: str, known: dict[str, str]) -> dict[str, str]:
    """For each child or pet of the user's that ``message`` names with one age, the words of a current memory that
    gave it another age and those words with the new one ("豆豆5岁" -> "豆豆6岁", "lily 5" -> "6", as
    corrections.with_swapped reads them); none where the age is the same."""
    swaps: dict[str, str] = {}
    for name, kind in known.items():
        if kind not in ("family", "pet"):
            continue
        pattern = (_NAME_AGED_EN if name.isascii() else _NAME_AGED_ZH).format(name=re.escape(name))
        said = {m.group("n") for m in re.finditer(pattern, message, re.IGNORECASE)}
        if len(said) != 1:
            continue
        new = next(iter(said))
        for content in MemoryItem.objects.for_user(user_id).current().filter(content__icontains=name) \
                .values_list("content", flat=True):
            for m in re.finditer(pattern, content, re.IGNORECASE):
                if m.group("n") != new:
                    # (English as corrections.with_swapped takes a number said of its subject: "lily 5" -> "6")
                    old = m.group(0)
                    if name.isascii():
                        swaps[f"{name.lower()} {m.group('n')}"] = new
                    else:
                        swaps[old] = old[:m.start("n") - m.start()] + new + old[m.end("n") - m.start():]
    return swaps


def _held_otherwise(episodes, text: str) -> int | None:
    """The one episode of ``episodes`` that says another school year or shift than the one ``text`` says (of no one
    the episode does not speak of), or None."""
    for kind in _REGRADED_KINDS:
        said = [(m.group(0).lower(), clause) for clause in corrections.clauses(text) for m in kind.finditer(clause)]
        if len({value for value, _ in said}) != 1:
            continue
        value, clause = said[0]
        kin = [k.group(0).lower() for k in _KIN_IN_CLAUSE_RE.finditer(clause)]
        # (among the newest: a correction speaks of what was said lately)
        holding = [pk for pk, content in episodes.order_by("-pk").values_list("pk", "content")[:WORK_SAID_FROM]
                   if (others := {m.group(0).lower() for m in kind.finditer(content)}) and value not in others
                   and all(k in content.lower() for k in kin)]
        if len(holding) == 1:
            return holding[0]
    return None


#: A birthday named: a date said with it may be the user's birthday's.
_BIRTHDAY_SAID_RE = re.compile(r"生日(?!会|派对|宴|聚会|蛋糕|礼物|趴|旅行|旅游|饭|餐|出游|活动|惊喜)|\b(?:birthday|bday|b-day)\b(?! (?:party|"
                               r"parties|dinner|lunch|drinks|cake|present|gift|card|bash|celebration|trip|weekend|getaway|"
                               r"holiday|plans?|surprise|brunch|night|meal))", re.IGNORECASE)


def _with_birthday(about: list[str], text: str) -> list[str]:
    """``about`` with the birthday's topic when ``text`` says a date of a birthday ("wait sorry, 12 May is my sister
    birthday, mine is 21 May", "哦不对 5月12号是我妹生日 我的是5月21号"): a correction of it replaces the birthday fact and
    what said the old date (not any date moved: "the party moved to the 15th" leaves "my birthday is 12 May")."""
    if "date" in about and corrections.BIRTHDAY_TOPIC not in about and _BIRTHDAY_SAID_RE.search(text):
        return sorted([*about, corrections.BIRTHDAY_TOPIC])
    return about


#: Words of a move, in the clause that says it.
_MOVE_SAID_RE = re.compile(r"搬|\b(?:mov(?:e|ed|ing)|relocat\w*)\b", re.IGNORECASE)
#: Topics of what a move takes along (a car, a phone, a pet, an instrument).
_TAKEN_ALONG_TOPICS = frozenset({"car", "phone", "device", "pet", "music"})
#: An allergy, in the message and (as SQL) in a slot fact.
_ALLERGY_RE = re.compile(r"过敏|\ballerg", re.IGNORECASE)
_ALLERGY_SQL = r"过敏|allerg"
#: An allergy or an intolerance, in the message and (as SQL) in what it may correct.
_INTOLERANCE_RE = re.compile(r"过敏|不耐受|乳糖|麸质|\b(?:allerg\w*|intoleran\w*|celiac|coeliac)\b", re.IGNORECASE)
_INTOLERANCE_SQL = r"过敏|不耐受|乳糖|麸质|allerg|intoleran|celiac|coeliac"
#: Words of a diet ("改成吃素了", "went vegan", "quit keto").
_DIET_SAID_RE = re.compile(r"吃素|素食|全素|纯素|饮食|吃肉|无肉|荤|生酮|减脂|节食|断食|\b(?:diet|vegan|vegetarian|veggie|keto|paleo|"
                           r"carnivore|pescatarian|plant[- ]based|meat)\b", re.IGNORECASE)
#: Topics of a thing of its own kind: a correction of one alone (a brand may add "device") is not guessed among episodes
#: of another topic; nor one of health alone (an allergy said first is no correction of a job: "推荐点追剧零食 注意我花生过敏!!
#: 别给我推带花生的 上次差点进医院" scored one).
_OWN_KIND_TOPICS = frozenset({"phone", "car", "pet", "music"})
#: Work named only as where a thing came from ("work gave me an iphone 15", "公司配的车"): no word of the job.
_WORK_AS_SOURCE_RE = re.compile(r"\b(?:work|the company|my company|the office) (?:gave|got|issued|provided|bought|lent) (?:me|us)\b|"
                                r"\b(?:work|company|office) (?:phone|laptop|car|van|ute|truck)\b|公司(?:发|配)的",
                                re.IGNORECASE)


#: Topics of a plan a message may change beside what it takes back by name, when it says a new value of them.
_PLAN_TOPICS = frozenset({"date", "travel"})


def _left_to_guess(current, found: list[int], about: list[str], text: str) -> list[str]:
    """The topics of a plan (a date, a trip) a correction speaks of that the memories it takes back by name do not,
    when it says where or when they are now ("moved the holiday to september and we're doing sardinia instead")."""
    if not _NOW_AT_RE.search(text):
        return []
    covered = {t for value in current.filter(pk__in=found).values_list("value", flat=True) if isinstance(value, dict)
               for t in value.get("topics") or ()}
    return sorted(t for t in about if t in _PLAN_TOPICS and t not in covered)


def _nearest(candidates, vectors: Sequence[np.ndarray]) -> tuple[float, int] | None:
    """The (cosine, id) of the candidate closest to any of ``vectors``."""
    best: tuple[float, int] | None = None
    for vector in vectors:
        nearest = (candidates.annotate(distance=exact_cosine_distance("embedding", vector.tolist()))
                   .order_by("distance").values_list("pk", "distance").first())
        if nearest is not None and (best is None or 1.0 - float(nearest[1]) > best[0]):
            best = (1.0 - float(nearest[1]), nearest[0])
    return best


def _still_the_users_job(user_id: str, replaced: Sequence[int], message: str, *, new_job: bool,
                         transferred: bool = False) -> tuple[int, ...]:
    """Of the memories a change of job replaces, those it does not: a promotion ("got promoted to shift supervisor at the
    packhouse") replaces the old title, not where the user works (a memory saying where stays unless it says a title
    too); a new job in the same trade ("moved jobs too, I'm in the physio dept at University Hospital Galway") keeps the
    title the message says again, and a transfer (``transferred``) the title it says nothing of. One query."""
    rows = MemoryItem.objects.for_user(user_id).filter(pk__in=replaced).values_list("pk", "key", "value", "content")
    if new_job:
        return tuple(pk for pk, key, value, _ in rows
                     if not (key == "job_title" and (transferred or (isinstance(value, str) and len(value) >= 2
                                                                     and value.lower() in message.lower()))))
    return tuple(pk for pk, key, _, content in rows
                 if key == "job_title" or _JOB_TITLE_SAID_RE.search(content)
                 or not (key == "employer" or _WORK_SAID_RE.search(content) or "work" in corrections.topics(content)))


def _saying_their_values(user_id: str, replaced: Sequence[int]) -> list[int]:
    """The current episodes that said the value of a slot fact a correction replaces ("不过我最近在生酮 自己不吃那些" of "用户的
    饮食：生酮"): they go with it (what else they said stays, cut by the old value). One query for the facts, one per
    value (a correction replaces one or two)."""
    if not replaced:
        return []
    current = MemoryItem.objects.for_user(user_id).current()
    # (not a place: a town is named in trips and plans too; the moves above say which statements of a place go)
    values = {(v.strip(), key.split(":")[0]) for key, v in current.filter(pk__in=list(replaced))
              .exclude(type=MemoryItem.Type.EPISODE).exclude(key__in=["location", "timezone"]).values_list("key", "value")
              if isinstance(v, str) and len(v.strip()) >= 2 and not v.strip().isdigit()}
    # (an episode of the slot's topics only: "we watched Amazon Prime all weekend" is no statement of the employer)
    return [m.pk for value, slot in sorted(values)
            for m in current.filter(type=MemoryItem.Type.EPISODE, content__icontains=value).exclude(pk__in=list(replaced))
            .only("id", "content", "value")
            if corrections.holds_any(m.content, _as_terms({value.lower()}))
            and (slot not in corrections.SLOT_TOPICS or corrections.SLOT_TOPICS[slot]
                 & set((m.value or {}).get("topics") or () if isinstance(m.value, dict) else ()))
            and not about_another_person(m.content)]


def _fact_topics(user_id: str, replaced: Sequence[int]) -> set[str]:
    """The topics of the slot facts a correction replaces: what the episodes it replaces no longer say of them either
    ("我吃素三年了 蛋奶也不吃的那种" keeps no "蛋奶也不吃" when "现在鱼和蛋都吃了" replaced the diet)."""
    if not replaced:
        return set()
    return {topic for content in MemoryItem.objects.for_user(user_id).filter(pk__in=list(replaced))
            .exclude(type=MemoryItem.Type.EPISODE).values_list("content", flat=True)
            for topic in corrections.topics(content)}


def _replaced_texts(user_id: str, replaced: Sequence[int], refilled: list[str]) -> list[str]:
    """What the memories a message replaces say: those it supersedes, and the current facts of the single-valued
    slots it fills again (the write path replaces those: "用户用的手机：小米13" before "现在换成iPhone 15了")."""
    if not replaced and not refilled:
        return []
    scope = Q(pk__in=list(replaced)) | (Q(key__in=refilled) & ~Q(type=MemoryItem.Type.EPISODE))
    return list(MemoryItem.objects.for_user(user_id).current().filter(scope).values_list("content", flat=True))


def _their_slot_facts(current, episode_ids: list[int], about: list[str], unsaid: frozenset[str] = frozenset()) -> list[int]:
    """What the same messages said beside the replaced memories: for a replaced episode, the slot facts heard with
    it, of a slot whose topic the correction speaks of ("i bike to work every day" -> the commute slot, replaced
    with its episode by "i take the train now instead"; "我女儿今年上二年级" -> its child fact, by "她其实是三年级"),
    but of a slot whose values add up only when the message told one value of it (a correction of one of two pets
    is not one of both), and of no slot ``unsaid``; for a replaced slot fact, the episode that filled its slot. What a
    replaced statement said is not left current on its own."""
    topics = set(about)
    heard, episodes_of = {}, {}
    for turn_id, kind, key, value in current.filter(pk__in=episode_ids).values_list("turn_id", "type", "key", "value"):
        if turn_id is None:
            continue
        if kind != MemoryItem.Type.EPISODE:  # a slot fact: the episode of the same message that filled its slot
            episodes_of.setdefault(turn_id, set()).add(key.split(":")[0])
            continue
        slots = (value or {}).get("slots") or [] if isinstance(value, dict) else []
        # a generic "The user said: …" restates a sentence of the message: it goes with it (what stays of the
        # message is its remainder's)
        wanted = [s for s in slots if (corrections.SLOT_TOPICS.get(s, frozenset()) & topics and s not in unsaid)
                  or s == "event"]
        if wanted:
            heard.setdefault(turn_id, set()).update(wanted)
    out = []
    if heard:
        facts = list(current.exclude(type=MemoryItem.Type.EPISODE).filter(turn_id__in=list(heard))
                     .values_list("pk", "turn_id", "key"))
        values_told = collections.Counter((turn_id, key.split(":")[0]) for _pk, turn_id, key in facts)
        out += [pk for pk, turn_id, key in facts if (slot := key.split(":")[0]) in heard[turn_id]
                and (slot not in _ADDITIVE_SLOTS or slot == "event" or values_told[(turn_id, slot)] == 1)]
    if episodes_of:
        told = current.filter(type=MemoryItem.Type.EPISODE, turn_id__in=list(episodes_of))
        out += [pk for pk, turn_id, value in told.values_list("pk", "turn_id", "value")
                if isinstance(value, dict) and set(value.get("slots") or ()) & episodes_of[turn_id]]
    return [pk for pk in out if pk not in episode_ids]


def _retraction_said_by(draft: MemoryDraft, turn_id, user_id: str, replaced: Sequence[int]) -> bool:
    """Whether ``draft`` is a diet's retraction note ("no longer: keto") from ``turn_id`` whose value only memories
    the turn's episode replaces held."""
    # Only a diet, which has one current value: "no longer likes jazz" stays a preference of its own.
    if draft.turn_id != turn_id or (draft.tags or {}).get("slot", "") != "retract_diet":
        return False
    item = str((draft.value or {}).get("item", "")) if isinstance(draft.value, dict) else ""
    if not item:
        return False
    holding = MemoryItem.objects.for_user(user_id).current().filter(content__icontains=item).values_list("pk", flat=True)
    held = set(holding)
    return bool(held) and held <= set(replaced)


def _old_values(user_id: str, text: str, slots: list[str], gone: set[str] = frozenset(), replaced: Sequence[int] = (),
                new_values: Sequence[str] = ()) -> set[str]:
    """The values a correction takes back: those it names ("I left Alibaba", a pet ``gone``), else the current
    values of the single-valued slots it fills again (the employer it replaces), for a new place to live the places
    the replaced episodes named, and for a correction of no slot that says where things are now the other places of
    the episodes it replaces."""
    named = corrections.retracted_terms(text) | gone
    # The values of the slot facts it replaces ("The user is line cook" with "im the new sous chef at the Langham"):
    # what stays of their message does not say them either.
    # (a slot whose values add up is keyed "<slot>:<value>": a generic "The user said: …" is no value taken back)
    facts = (MemoryItem.objects.for_user(user_id).filter(pk__in=list(replaced)).exclude(type=MemoryItem.Type.EPISODE)
             .values_list("key", "value")) if replaced else []
    dropped = {str(v).strip().lower() for key, v in facts
               if key.split(":")[0] not in _ADDITIVE_SLOTS and isinstance(v, str) and len(str(v).strip()) >= 2}
    parted_names = corrections.parted(text) | set(gone)
    replaceable = [s for s in slots if s not in _ADDITIVE_SLOTS]
    # A correction of no slot that says where things are now ("it's now at my aunt's farm in herefordshire",
    # "现在改去大阪"): the other places of the episodes it replaces are the old ones.
    moved = _places_left(user_id, text, replaced) if not replaceable else set()
    if named - parted_names - {t for n in parted_names for t in keyword_tokens(n)}:
        return named | _as_terms(dropped | moved)
    # (someone parted from, "Naledi and I broke up", beside a slot said anew: "… picked up a secondhand VW Polo")
    parted = named
    if not replaceable:
        return parted | _as_terms(dropped | moved)
    values = (MemoryItem.objects.for_user(user_id).current().exclude(type=MemoryItem.Type.EPISODE)
              .filter(key__in=replaceable).values_list("value", flat=True))
    said = dropped | {str(v).strip().lower() for v in values if isinstance(v, str | int) and str(v).strip()}
    if "location" in replaceable and replaced:
        new = {p for v in new_values for p in places_in(str(v))}
        said |= {p for value in MemoryItem.objects.for_user(user_id).filter(pk__in=list(replaced), type=MemoryItem.Type.EPISODE)
                 .values_list("value", flat=True) if isinstance(value, dict) for p in value.get("places") or () if p not in new}
    return parted | _as_terms(said)


def _places_left(user_id: str, text: str, replaced: Sequence[int]) -> set[str]:
    """The places of the ``replaced`` episodes that a correction saying where things are now leaves behind: not the
    ones it names, nor where the user is ("合肥大四 国庆打算和室友去大理" when the trip goes to Xiamen), unless the user
    moves; a trip's place the word lists do not know too ("planning Tenerife in feb" when "going Algarve in may
    instead")."""
    if not replaced or not _NOW_AT_RE.search(text):
        return set()
    now_at = set(places_in(text)) | {m.group("p").lower() for pattern in (_TRIP_TO_RE, _IN_PLACE_RE)
                                      for m in pattern.finditer(text) if not _WHEN_NAME_RE.fullmatch(m.group("p"))}
    if not now_at:
        return set()
    home_too = bool(_LIVES_WORD_RE.search(text))
    return {p for value, content in MemoryItem.objects.for_user(user_id).filter(
                pk__in=list(replaced), type=MemoryItem.Type.EPISODE).values_list("value", "content")
            for p in [*((value or {}).get("places") or () if isinstance(value, dict) else ()),
                      *(m.group("p").lower() for pattern in (_TRIP_TO_RE, _IN_PLACE_RE) for m in pattern.finditer(content)
                        if not _WHEN_NAME_RE.fullmatch(m.group("p")))]
            if p not in now_at and (home_too or p not in _standing_places(content))}


#: Words that say where something is now: "it's now at …", "moved everything to …", "改去/改到/换到/搬到…".
_NOW_AT_RE = re.compile(r"改去|改到|改在|改成|换成|换到|换去|搬到|挪到|转场(?:到|去)|\bthe new (?:place|flat|apartment|house|home) (?:is )?in\b|\b(?:now (?:at|in|doing|having)|moved (?:\w+ ){0,2}to|switched to|"
                        r"instead)\b",
                        re.IGNORECASE)


#: Where an event or a plan is held: "at a barn venue just outside Bath", "在希尔顿酒店".
_VENUE_RE = re.compile(r"\b(?:at|in|near|outside|to) (?:a|an|the|our|my) (?:[\w'-]+ ){0,3}(?:venue|barn|hotel|winery|vineyard|hall|"
                       r"church|chapel|restaurant|farm|manor|estate|park|beach|villa|resort|club|gardens?|brewery|castle|lodge|"
                       r"inn|pub|cottage|cabin)s?\b|\b(?:just )?outside (?-i:[A-Z])[a-z]+|"
                       r"在[\u4e00-\u9fff]{1,10}?(?:酒店|饭店|餐厅|会所|教堂|庄园|农庄|民宿|公园|草坪|礼堂|宴会厅)", re.IGNORECASE)


#: A capitalised name of a time, not a place ("a week in October", "in Easter").
_WHEN_NAME_RE = re.compile(r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
                           r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Easter|Christmas|Thanksgiving|Spring|"
                           r"Summer|Autumn|Fall|Winter)(?: \w+)?")
#: Where a trip goes, capitalised ("planning Tenerife in feb", "a week in Crete", "flying to Lisbon").
_TRIP_TO_RE = re.compile(r"\b(?i:planning|plan|going|go|trip|holiday|vacation|flying|fly|heading|visiting|week|weekend|"
                         r"fortnight|honeymoon)(?: (?i:a|our|my|the))?(?: (?i:trip|holiday|vacation|week|getaway))?"
                         rf"(?: (?i:to|in|at))? (?P<p>(?!(?:The|This|That|Ryanair|EasyJet|Jet2|Delta|United|Emirates|Qantas|"
                         rf"Airbnb)\b)(?!(?:{_WHEN_NAME_RE.pattern})\b)[A-Z][a-z]{{3,}}"
                         r"(?: [A-Z][a-z]+)?)")


def _standing_places(text: str) -> set[str]:
    """The places ``text`` says the user lives, studies or works in ("合肥大四", "住朝阳", "我在杭州做小红书", "living in
    Douglas in Cork", "We're in Leslieville")."""
    return {p for p in {*places_in(text), *(m.group("p").lower() for m in _IN_PLACE_RE.finditer(text))} if re.search(
        rf"(?:住|家在|坐标|base|人在|我在)\s?{re.escape(p)}|{re.escape(p)}(?:\w{{0,4}}?(?:大[一二三四五]|研[一二三]|博[一二三四五]|"
        rf"高[一二三]|初[一二三])|人(?![\u4e00-\u9fff])|本地)|\b(?:(?:live|living|lives|based)(?: \w+){{0,2}}?|i'm|im|i am|we're|"
        rf"we are|home is) in {re.escape(p)}\b", text, re.IGNORECASE)}


def _as_terms(values: set[str]) -> set[str]:
    """Values as corrections.holds_any reads terms: Chinese as written, Latin as keyword tokens ("honda civic")."""
    return {term for value in values for term in ([value] if not value.isascii() else keyword_tokens(value))}


def _remainders(user_id: str, replaced: Sequence[int], old: set[str], about: Sequence[str],
                restated: Sequence[re.Pattern] = (),
                prior: dict[int, MemoryDraft | None] | None = None, *,
                names_only: bool = False, swaps: dict[str, str] | None = None, moved: bool = False,
                took_along: frozenset[str] = frozenset({"home"}),
                vectors: Sequence[np.ndarray] = (), pieces: Sequence[str] = ()) -> list[tuple[int, MemoryDraft | None]]:
    """For each replaced episode, a new episode of what else it said (same session, turn and time): a correction of
    one fact does not take the others with it (see _remainder). An episode an earlier correction of the same run
    replaced (``prior``: what it left of it, None for nothing) is cut from what that one left, not from its whole
    text again ("moved to Porto" then "not with Klarwerk anymore" leave neither Lisbon nor Klarwerk). A value said in
    place of another (``swaps``: "its Fionn not Finn", "keisha's 15 not 16") is written over the old one instead:
    "and the dog Fionn is the ring bearer … will a lurcher behave" keeps the lurcher."""
    if not replaced:
        return []
    if not (old or about or restated or swaps):
        # Nothing to cut by (a correction of no known topic naming no value: "现在早上跟小区几个老头打太极"): what
        # replaced it is cut by meaning, the rest stays ("我今年68 在苏州跟儿子一块住" of "…每天晚上下楼跳广场舞…").
        # (from what an earlier correction of the run left of it, if one did)
        prior = prior or {}
        return [(episode.pk, None if episode.pk in prior and prior[episode.pk] is None
                 else _cut_by_meaning(prior.get(episode.pk) or _draft_of(episode), vectors, pieces))
                for episode in MemoryItem.objects.for_user(user_id).filter(pk__in=list(replaced), type=MemoryItem.Type.EPISODE)]
    prior = prior or {}
    out: list[tuple[int, MemoryDraft | None]] = []
    for episode in MemoryItem.objects.for_user(user_id).filter(pk__in=list(replaced), type=MemoryItem.Type.EPISODE):
        said = (prior.get(episode.pk) or episode).content
        if swaps and not (episode.pk in prior and prior[episode.pk] is None) \
                and (swapped := corrections.with_swapped(said, swaps)) != said:
            out.append((episode.pk, MemoryDraft(
                content=swapped, type=episode.type, source=episode.source, confidence=float(episode.confidence),
                agent_id=episode.agent_id, session_id=episode.session_id, turn_id=episode.turn_id,
                excerpt=episode.excerpt, valid_from=episode.valid_from or episode.created_at,
                value={**(episode.value if isinstance(episode.value, dict) else {}), "places": places_in(swapped)},
                tags=episode.tags or {})))
            continue
        if episode.pk in prior:
            left = prior[episode.pk]
            out.append((episode.pk, left and _remainder(left, old, about, restated, keep_whole=True, names_only=names_only,
                                                        moved=moved, took_along=took_along)))
            continue
        out.append((episode.pk, _remainder(_draft_of(episode), old, about, restated, names_only=names_only,
                                           moved=moved, took_along=took_along, vectors=vectors, pieces=pieces)))
    return out


#: How much less like the correction than its closest clause another clause of a replaced episode must be to stay.
MEANING_MARGIN = 0.015
#: How many clauses that say something a replaced episode needs for what is closest to the correction to be cut from it.
MEANING_MIN_CLAUSES = 3
#: How much closer a word said in both makes a clause to a correction's piece.
SHARED_WORD = 0.02
#: Characters that say nothing of what a Chinese clause is about.
_FUNCTION_HAN = frozenset("我你他她它们的了是在有不也都就还要会能想去来到和跟与个这那么吗呢吧啊呀哦嘛很太好多少没一上下天年月日人家点些里时"
                          "现已经再又才刚把被给让说看做得着过从对为")


#: A question asked as "A not A" at the end ("够不够", "要不要紧"), or a short one ending in 不 ("要紧不", "行不"), with no mark.
_A_NOT_A_RE = re.compile(r"(?<![一时])([\u4e00-\u9fff])不\1[\u4e00-\u9fff]?\s*$|^\s*[\u4e00-\u9fff]{1,3}不\s*$")


def _words(text: str) -> set[str]:
    """The words of ``text`` a correction's piece and a clause may share: its Chinese characters that name something,
    its Latin keyword tokens."""
    return {c for c in text if _HAN_RE.match(c) and c not in _FUNCTION_HAN} | set(keyword_tokens(text) if not
                                                                                   is_chinese(text) else ())


def _draft_of(episode: MemoryItem) -> MemoryDraft:
    """A stored episode as a draft of the same session, turn and time (what a remainder is cut from)."""
    return MemoryDraft(content=episode.content, type=episode.type, source=episode.source,
                       confidence=float(episode.confidence), agent_id=episode.agent_id, session_id=episode.session_id,
                       turn_id=episode.turn_id, excerpt=episode.excerpt,
                       valid_from=episode.valid_from or episode.created_at, tags=episode.tags or {})


def _cut_by_meaning(episode: MemoryDraft, vectors: Sequence[np.ndarray], pieces: Sequence[str]) -> MemoryDraft | None:
    """What a replaced episode said besides what is closest to the correction: its clauses less like each of
    ``vectors`` (the correction's pieces that say a change, else the whole; their texts ``pieces``) than the clause
    closest to it by MEANING_MARGIN, without questions, requests and moods; None when nothing would stay. Close is
    in meaning and in words: a word the piece shares with a clause ("舞是不去了" with "每天晚上下楼跳广场舞") counts
    SHARED_WORD each (the bundled embedder finds short clauses of one message all alike)."""
    clauses = [c.strip() for c in _REMAINDER_SPLIT.split(episode.content) if c and c.strip()]
    said_something = [len(keyword_tokens(c)) >= 2 and not _QUESTION_RE.search(c) for c in clauses]
    if sum(said_something) < 2 or not len(vectors):
        return None
    vectors_of = np.asarray(disclosure.bundled_vectors(clauses), dtype=np.float32)
    vectors_of /= np.maximum(np.linalg.norm(vectors_of, axis=1, keepdims=True), 1e-9)
    new = np.asarray(vectors, dtype=np.float32)
    new /= np.maximum(np.linalg.norm(new, axis=1, keepdims=True), 1e-9)
    shared = np.asarray([[min(3, len(_words(c) & _words(p))) for p in pieces] for c in clauses], dtype=np.float32) \
        if len(pieces) == len(vectors) else np.zeros((len(clauses), len(vectors)), dtype=np.float32)
    # Of each piece, its closest clauses that say something (not "g'day", "哈哈", a question).
    closeness = np.where(np.asarray(said_something)[:, None],
                         vectors_of @ new.T + SHARED_WORD * shared, -1.0)
    nearest = (closeness >= closeness.max(axis=0) - MEANING_MARGIN).any(axis=1)
    if sum(said_something) < MEANING_MIN_CLAUSES and not (
            shared.any() and list(shared.max(axis=1) > 0) == list(nearest)):
        # Of two things said, which one the correction replaces is a guess the bundled embedder gets wrong too often
        # ("training for the two oceans ultra in april. doing about 60km a week." by "out of running … Two Oceans is
        # off"), unless the words say it: only the closest shares a word with it ("we run an 8 barrel system" of "im
        # head brewer at a small brewery in asheville, we run an 8 barrel system" by "it's actually a 15 barrel system").
        return None
    kept = [c for c, near in zip(clauses, nearest, strict=True) if not near
            and not (_ASKS_RE.match(c) and (_QUESTION_RE.search(c) or is_chinese(c))) and not _QUESTION_RE.search(c)
            and not _REQUEST_LEAD_RE.match(c) and not _MOOD_END_RE.search(c) and not _A_NOT_A_RE.search(c)
            and (len(keyword_tokens(c)) >= 2 or _says_where(c) or _USERS_OWN_RE.search(c))]  # "我是老师", "在杭州"
    joined = corrections.join_clauses(kept) if is_chinese(episode.content) else " ".join(kept).strip(" ,，;；")
    return _remainder_draft(episode, joined) if kept and len(joined) >= 4 else None


#: Topics a date is said of: a date moved replaces the date, not the wedding, the trip or the launch.
_DATED = frozenset({"date", "deadline", "family", "travel", "schedule", "venture", "study"})
_DATE_SAID_RE = re.compile(rf"(?:\b(?:on|for|to|by|in) (?:the )?|(?:定在|改到|挪到|是|在)\s*)?(?:{corrections.TOPICS['date'].pattern})",
                           re.IGNORECASE)


def _undated(sentence: str, birthday: bool = False) -> str:
    """``sentence`` without its calendar dates, or "" when little else remains. A birthday's date is another's than a
    plan's: of a sentence of several clauses, a correction of a ``birthday`` takes the clauses that say one and leaves
    the others whole; any other takes the dates of the others ("my birthday is 12 May and my son's party is on the 14th"
    keeps "my birthday is 12 May" after "the party moved to the 15th", "my son's party is on the 14th" after "my
    birthday is actually the 21st")."""
    clauses = corrections.clauses(sentence)
    if len(clauses) < 2 or not any(_BIRTHDAY_SAID_RE.search(c) for c in clauses):
        left = _DATE_SAID_RE.sub("", sentence)
    elif birthday:
        left = corrections.join_clauses([c for c in clauses if not _BIRTHDAY_SAID_RE.search(c)])
    else:
        left = corrections.join_clauses([c if _BIRTHDAY_SAID_RE.search(c) else re.sub(
            r"\b(?:is|'s|are|was)\s*$", "", _DATE_SAID_RE.sub("", c).rstrip()) for c in clauses])
    # (the month a date named, said again bare, goes with its clause: "… wanted to know if July is actually decent")
    months = {m.lower() for m in _MONTH_NAME_RE.findall(" ".join(_DATE_SAID_RE.findall(sentence)))}
    if months and left:
        left = corrections.join_clauses([c for c in corrections.clauses(left)
                                         if not {m.lower() for m in _MONTH_NAME_RE.findall(c)} & months])
    left = re.sub(r"\s+(?=[,.;!?])", "", re.sub(r"\s{2,}", " ", left)).strip()
    return left if len(keyword_tokens(left)) >= 3 and left != sentence.strip() else ""


_MONTH_NAME_RE = re.compile(r"\b(?:(?i:january|february|march|april|june|july|august|september|october|november|december)|May)\b")


#: The topics a sentence with an age may speak of and still lose only its age.
_AGED = frozenset({"age", "family", "pet", "study", "music", "sport", "hobby"})
_AGE_SAID_RE = re.compile(r"(?:今年|现在|已经|才|刚)?(?:" + corrections.TOPICS["age"].pattern + ")", re.IGNORECASE)


def _without_age(sentence: str, only_age: bool) -> str:
    """``sentence`` without the ages it says, or "" when little else remains (or it spoke of more than ages and
    what they belong to)."""
    if not only_age:
        return ""
    left = corrections.join_clauses([c for c in (re.sub(r"\s{2,}", " ", re.sub(
        r"\b(?:is|'s|are|was)\s+(?=and\b|,|$)", "", _AGE_SAID_RE.sub("", part))).strip()  # "my son is and ..."
        for part in corrections.clauses(sentence)) if c])
    return left if len(keyword_tokens(left)) >= 3 and left != sentence.strip() else ""


#: Where the user is, said in a few words: "在南京", "人在成都", "we're in boston", "based in leeds".
_WHERE_RE = re.compile(r"^\W*(?P<at>(?:我|我们|人)?(?:现在|目前)?(?:在|住在|坐标))?\s*(?P<zh>[\u4e00-\u9fff]{2,8})\W*$|"
                       r"^\W*(?:(?:and|also|but|so)\s+)?(?:i'm|im|i am|we're|were|we are|based|living|i live|we live)\s+in\s+"
                       r"(?P<en>[a-z][a-z .'-]{1,30}?)(?:\s+(?:now|btw|tho|lol))?\W*$", re.IGNORECASE)


def _says_where(clause: str) -> bool:
    """Whether ``clause`` only says where the user is, at a known place ("在南京", "we're in boston")."""
    found = _WHERE_RE.match(clause.strip())
    if found is None:
        return False
    places = places_in(found.group("zh") or found.group("en") or "")
    # a bare piece only when it is a place, or one with its district ("重庆", "重庆渝北区"; not "成都火锅", "北京时间")
    zh = found.group("zh") or ""
    return bool(places) and bool(found.group("at") or found.group("en") or any(
        zh == p or (zh.startswith(p) and _ZH_DISTRICT_RE.match(zh[len(p):])) for p in places))


#: Where the user lives, said first in a sentence that goes on about something else ("We're in Leslieville and thinking
#: of a small thing at home").
_WHERE_LEAD_RE = re.compile(r"^\W*(?i:we're|we are|were|i'm|i am|im|we live|i live|living|based) in (?:[A-Z][a-z]+)(?: [A-Z][a-z]+)?"
                            r"(?=\s+(?i:and|but|so|with)\b|[,.;!]|$)")
#: A few words that only name what the clause before said ("the #9 Ashland route" of "I drive a bus for the CTA, the #9
#: Ashland route, …"): they go with it.
_APPOSITION_RE = re.compile(r"^\W*(?:the|a|an)\b(?!.*\b(?:is|are|was|were|has|have|i|i'm|im|we|we're|my|our)\b)[^.!?]*$",
                            re.IGNORECASE)
#: A Chinese place word of a district or a town ("高新区", "余杭区"): taken out of a clause that says more ("我在成都高新区一家
#: 做宠物医疗saas的创业公司写前端" -> "我在成都一家…") when the place is what changed, unless the clause says where the user
#: lives (_LIVES_WORD_RE: "住上海徐汇" goes whole).
_LIVES_WORD_RE = re.compile(r"住|家在|坐标|定居|搬")
_ZH_DISTRICT_RE = re.compile(r"[\u4e00-\u9fff]{1,6}(?:新区|开发区|区|县|镇|街道)$")


def _where_worked(clause: str, restated: Sequence[re.Pattern]) -> list[str]:
    """Of a clause that said the old job ("我在济南一中教物理"), the town the user was in ("我在济南"), which a job left does
    not take with it; else nothing."""
    if _WORK_SAID_RE not in restated:
        return []
    if (found := _IN_TOWN_RE.match(clause)) is None:
        # "I'm a pit boss at the casino on the riverfront in Dubuque": the town, as the user's own words say it
        town = next((m.group(1) for m in _EN_IN_TOWN_RE.finditer(clause)
                     if places_in(m.group(1)) == [m.group(1)] or not _NOT_A_TOWN_RE.match(m.group(1))), "")
        return [f"I'm in {town}"] if town and not _HAN_RE.search(clause) else []
    town = next((found.group(1)[:n] for n in range(2, len(found.group(1)) + 1)
                 if places_in(found.group(1)[:n]) == [found.group(1)[:n]]), "")
    # a word of its own in the clause ("济南" of "我在济南一中教物理", not "中国" of "我在中国银行上班")
    from ..text.tokenize import _default_tokenizer  # the segmenter places_in reads the longer list with

    return [clause[:found.start(1)] + town] if town and town in _default_tokenizer().lcut(clause) else []


#: "… in Dubuque", "out in Rossaveal": a town named in an English clause.
_EN_IN_TOWN_RE = re.compile(r"\b(?:in|out in|here in|based in) ([A-Z][a-z][\w'-]*(?: (?!I\b|I'|Im\b)[A-Z][a-z][\w'-]*)?)")
#: Capitalised words after "in" that name no town: a month, a day, a language, a season.
_NOT_A_TOWN_RE = re.compile(r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
                            r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|Monday|Tuesday|Wednesday|Thursday|Friday|"
                            r"Saturday|Sunday|English|Spanish|French|German|Chinese|Mandarin|Cantonese|Japanese|Korean|"
                            r"Python|Excel|Java|Spring|Summer|Autumn|Fall|Winter|Christmas|Easter|The|My|Our|A|An|I)\b")
#: "我在济南…", "我一直在青岛…": a clause that begins with where the user is.
_IN_TOWN_RE = re.compile(r"^\s*我(?:一直|现在|目前)?在([\u4e00-\u9fff]{2,4})")


def _without_old_value(clause: str, old: set[str]) -> str:
    """``clause`` without the date, age, amount or grade that holds an old value ("我满30岁" of "我3月12号满30岁" when
    "12号" is taken back), or "" when it still holds one or little else remains."""
    if not corrections.holds_any(clause, old):
        return clause
    for kind in _VALUE_KINDS:
        for found in kind.finditer(clause):
            if corrections.holds_any(found.group(0), old):
                clause = clause.replace(found.group(0), "")
    if not _LIVES_WORD_RE.search(clause):
        for term in (t for t in old if not t.isascii() and (_ZH_DISTRICT_RE.match(t) or places_in(t) == [t])):
            clause = clause.replace(term, "")
    for term in (t for t in old if t.isascii()):
        # Where the old value was ("working remotely for Klarwerk"): the rest of the clause stays.
        # (or the old town: "i'm an HVAC tech in Winnipeg" after a move keeps "i'm an HVAC tech"; not "I'm in Vancouver so
        # Pacific time", which says where the user lives)
        clause = re.sub(rf"\s*\b(?:at|for|with|in|near|outside)\s+(?:the\s+)?{re.escape(term)}\w*(?:'s)?",
                        lambda m, said=clause: m.group(0) if _WHERE_VERB_END_RE.search(said[:m.start()])
                        or (m.group(0).strip().split()[0].lower() in ("in", "near", "outside") and not _TRADE_LEAD_RE.match(said))
                        else "", clause,
                        flags=re.IGNORECASE)
    return clause if not corrections.holds_any(clause, old) and len(keyword_tokens(clause)) >= 2 else ""


#: Topics of when, not of a life ("this weekend", "5 days"): no topic a judged correction needs to be one.
_WHEN_TOPICS = frozenset({"schedule", "date"})


def _took_along(message: str) -> frozenset[str]:
    """The topics a move keeps the old statements of, but for their place: a shop or a studio moved ("店搬到营口了",
    "the studio moved to Leith") takes along the trade said at the old place; the user moving ("来大理帮朋友管民宿")
    only where they live; nothing, when the move says what the user does there now ("来大理帮朋友管民宿")."""
    if _BUSINESS_MOVED_RE.search(message):
        return _MOVED_WITH
    # (nothing when the move says what the user does there now: "来大理帮朋友管民宿" leaves no "在做导游第八年了")
    # (not what the new place is known for: "这边主要做白瓷")
    doing = any((_NOW_DOING_ZH_RE.search(c) or _WORK_SAID_RE.search(c) or _users_new_job(c))
                and not (_QUESTION_RE.search(c) or _ASKED_RE.search(c) or _PLACE_KNOWN_FOR_RE.match(c))
                for c in _TOPIC_SPLIT.split(message))
    return frozenset() if doing else frozenset({"home"})


#: What a place is known for, said of it ("这边主要做白瓷", "当地多半做茶"), not of the user.
_PLACE_KNOWN_FOR_RE = re.compile(r"^\s*(?:这边|那边|当地|这里|那里)(?:主要|基本|大多|大部分|都|多半|一般)")
#: What the user does, said in Chinese ("来大理帮朋友管民宿", "在这边开了个面馆").
_NOW_DOING_ZH_RE = re.compile(r"(?:帮[\u4e00-\u9fff]{1,4})?(?:管|做|当|开了?个?|干|教)(?!过|完|好|了|心|始|然|地|嘛|啥|饭|梦|时)"
                              r"[\u4e00-\u9fff]{2,6}")
#: Topics a move of a business speaks of that a clause of the trade it took along may share.
_MOVED_WITH = frozenset({"home", "venture", "work"})
#: A business said to have moved: "店搬到营口了", "铺子搬到南开区了", "the shop moved to Leith".
_BUSINESS_MOVED_RE = re.compile(r"(?:店|铺子?|工作室|档口?|摊子?|公司|诊所|馆)(?:也|已经|终于)?(?:搬|迁)|\b(?:shop|studio|business|"
                                r"office|practice|salon|clinic|cafe|bakery|workshop|store)(?:'s| has| is)? (?:moved|relocated|"
                                r"moving)\b", re.IGNORECASE)
#: A Chinese district or town word ("和平区", "余杭区"): a place, though the word lists may not know it.
_ZH_PLACE_WORD_RE = re.compile(r"[\u4e00-\u9fff]{2,4}?(?:新区|开发区|区|县|镇)(?!长|别|域|分|间|块)")
#: Words of where one lives: what a move leaves no clause of ("renting a 2 bed flat near the park", "小区楼下").
_DWELLING_RE = re.compile(r"住|租|房|小区|公寓|宿舍|楼下|隔壁|\b(?:rent\w*|flat|apartment|house|condo|neighbou?r\w*|street|"
                          r"suburb|estate|dorm)\b", re.IGNORECASE)


#: A clause that says the user's trade first ("i'm an HVAC tech in Winnipeg", "we run a B&B in Tenby"): its town may go
#: alone; in any other clause "in X" is what the clause is about ("planning 2 weeks in japan in april").
_TRADE_LEAD_RE = re.compile(r"^\W*(?:(?:and|also|so|but)\s+)?(?:(?:i'm|im|i am)\s+(?:an?|the)\s|(?:i work|i run|we run|i own|we own)\b)",
                            re.IGNORECASE)
#: Words before "in X" that make it where the user lives ("I'm in Vancouver", "we live in Leeds").
_WHERE_VERB_END_RE = re.compile(r"\b(?:i'm|im|i am|am|we're|we are|are|live|lives|living|based|stay|staying)\s*$", re.IGNORECASE)


#: A list: "wharton, emory and duke", "a, b, c", "成都、重庆和西安".
_LIST_RE = re.compile(r"(?:[\w'-]+(?: [\w'-]+)?,\s+)+[\w'-]+(?: [\w'-]+)?,?\s+(?:and|or)\s+[\w'-]+|"
                      r"(?:[\w'-]+,\s+){2,}[\w'-]+|[\u4e00-\u9fffA-Za-z0-9]{1,10}(?:、[\u4e00-\u9fffA-Za-z0-9]{1,10})+", re.IGNORECASE)


def _unlisted(sentence: str, old: set[str]) -> str:
    """``sentence`` without the old values it names as items of a list ("wharton" of "my top schools are wharton,
    emory and duke"; "成都" of "想去成都、重庆和西安"), when then it holds none of them and still says something;
    else ``sentence`` as it is."""
    out = sentence
    listed = _LIST_RE.search(sentence)
    if listed is None:
        return sentence
    for term in old:
        if not corrections.holds_any(listed.group(0), {term}):
            continue
        word, end = (re.escape(term), "") if not term.isascii() else (rf"\b{re.escape(term)}\w*", r"(?=\s|[.!?,;]|$)")
        out = re.sub(rf"{word}\s*(?:[,，、]\s*|\s(?:and|or)\s+|[和或])(?=\S)|(?:\s*[,，、]\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+|[和或])"
                     rf"{word}{end}", "", out, flags=re.IGNORECASE)
    if out == sentence or corrections.holds_any(out, old) or len(keyword_tokens(out)) < 3:
        return sentence
    return out


#: A request to the assistant with no question mark ("can u draft a save the date", "write me a save the date"): what
#: is left of a corrected message keeps no such clause.
_REQUEST_LEAD_RE = re.compile(r"^\W*(?:(?:can|could|would|will) (?:you|u|ya)\b|(?:pls|please|write|draft|make|give) (?:me|us)\b|"
                              r"help me\b)", re.IGNORECASE)


#: A question asked with no mark ("whats the tallest mountain in Canada btw", "为啥切洋葱会流眼泪"): a wh-word first.
_UNMARKED_QUESTION_RE = re.compile(r"^\W*(?:(?:ok|so|and|also|btw|ha|haha|lol|nice|oh|(?:random|quick|silly|dumb|weird|serious) (?:question|q))\W+)*(?:(?:whats|what's|what|who|where|when|why|"
                                   r"how|which)\b(?!')|为什么|为啥|有没有|是不是|怎么|"
                                   # "问找工作是不是得先搞定签证" (voice input, no mark): asking, as "请问…" is
                                   r"请问|想问(?!题)|问一下|问下(?![来去])|问问|问(?![了过题候号])(?=[\u4e00-\u9fff][^，。！？\s]{0,12}(?:是不是|能不能|要不要|有没有|吗|什么|怎么)))",
                                   re.IGNORECASE)
#: The assistant's opinion asked for, as a sentence of its own ("I need your honest opinion", "gimme ur take").
_OPINION_WANTED_RE = re.compile(r"(?:^|(?<=[.!?]))\s*(?:(?:ok|so|and|but)\s+)?(?:i need|i want|i'd like|gimme|give me|tell me) "
                                r"(?:your|ur) (?:honest |real |hot |unfiltered )?(?:opinion|take|thoughts|verdict|answer)\W*(?=$)",
                                re.IGNORECASE)
#: A verb first, as a question asked with no mark puts it ("does pineapple belong on pizza").
_VERB_FIRST_RE = re.compile(r"^\W*(?:does|do|did|is|are|was|were|can|could|should|would|will|has|have)\b", re.IGNORECASE)
#: A question said to come, then asked with a verb first and no mark ("ok serious question, does pineapple belong on pizza.").
_LEAD_THEN_ASK_RE = re.compile(r"^\W*(?:(?:ok|okay|so|and|also|btw|hey)\W+)*(?:random|quick|silly|dumb|weird|serious|honest|real|"
                               r"stupid|odd|fun|genuine) (?:question|q)\W+" + _VERB_FIRST_RE.pattern[4:], re.IGNORECASE)
#: The user or their household in English: "I", "we", "my", "our dog".
_ENGLISH_SELF_RE = re.compile(r"\b(?:i|i'm|im|i've|ive|i'd|my|me|mine|we|we're|we've|us)\b|"
                              r"\bour (?!(?:lifetimes?|time|times|generation|world|planet|country|society|species|era|days)\b)",
                              re.IGNORECASE)
_LEADING_ASK_RE = re.compile(r"^\W*(?:(?:ok|so|and|but|also|btw|hey|random question|quick question)[\s,]*)*(?:did|do|does|is|are|was|"
                             r"were|will|would|can|could|should|have|has)\s+(?:(?:you|u|anyone|anybody|it|there|they|he|she|"
                             r"people|humans|we)\b)", re.IGNORECASE)
#: An either-or asked with no mark ("is chicago deep dish actually pizza or a casserole"; not "Did marketing at Unilever for
#: 6 years or so").
_EITHER_OR_RE = re.compile(r"^\W*(?:(?:ok|so|and|but|also|btw|hey)[\s,]*)*(?:(?:is|are|does|do|should|would|can|could|will)\s+"
                           # (was/were/did only when what follows "or" asks too: "was Y2K actually overblown or did the
                           # remediation work", not "Was a nurse at St Marys for 10 years or 11")
                           r"|(?:was|were|did)\s+(?=[\w' -]{2,40}? or (?:did|was|were|is|are|does|do|has|have)\b))"
                           r"[\w' -]{2,40}? or (?!(?:so|something|two|whatever|more|less|thereabouts)\b)(?:an? |the )?[\w' -]{2,30}[.?!]?$",
                           re.IGNORECASE)


def _asks_the_world(message: str) -> bool:
    """An English message that only asks about the world: each sentence a question (or a word or two beside one), no
    "I"/"we"/"my" in it, and no topic of a life ("did you see the new James Webb photos? mental", "what do you reckon,
    will humans actually get to Mars in our lifetime"). Chinese chat drops its subjects too often to read it so."""
    if is_chinese(message):
        return _asks_the_world_zh(message)
    # (an opinion asked for is no one's life: "ok serious question, does pineapple belong on pizza. I need your honest
    # opinion")
    message = _OPINION_WANTED_RE.sub(" ", message)
    # (a topic of a life is no one's in a question said to come or an either-or: "ok serious question, does pineapple
    # belong on pizza.", "was Y2K actually overblown or did the remediation work")
    if _ENGLISH_SELF_RE.search(_GENERIC_WE_RE.sub(" ", message)) or (corrections.topics(message) and not (
            _LEAD_THEN_ASK_RE.match(message) or _EITHER_OR_RE.match(message.strip()))):
        return False
    sentences = [s.strip() for s in _sentences(message) if s.strip()]
    asked = [bool(_QUESTION_RE.search(s) or _UNMARKED_QUESTION_RE.match(s) or _LEADING_ASK_RE.match(s) or _LEAD_THEN_ASK_RE.match(s)
                  or _EITHER_OR_RE.match(s) or _QUESTION_LEAD_ONLY_RE.match(s)
                  or (i > 0 and _QUESTION_LEAD_ONLY_RE.match(sentences[i - 1]) and _VERB_FIRST_RE.match(s)))
             for i, s in enumerate(sentences)]
    # (a remark on what was asked, with no one's life in it, goes with it: "why do we still do daylight saving time tho,
    # it literally helps nobody")
    return any(asked) and all(a or len(set(keyword_tokens(s))) <= 1 or (_REMARK_RE.match(s) and any(
        q and not _QUESTION_LEAD_ONLY_RE.match(p) for p, q in zip(sentences[:i], asked[:i], strict=True)))
                              for i, (s, a) in enumerate(zip(sentences, asked, strict=True)))


def _asks_the_world_zh(message: str) -> bool:
    """A Chinese message that asks why or what of the world, or marvels at its news, with no one of the user's in it: no
    我/咱/俺, no word of kin or a household, no keeping of a pet ("问个问题 为啥网上那些猫都那么喜欢钻纸箱…", "关羽的青龙偃月刀
    到底多重", "嫦娥六号从月球背面带土回来了 太牛了吧"). Chinese chat drops its subject, so a question alone is not enough
    ("在昆山电子厂上夜班 白天睡不着 有啥办法" is the user's night shift): it must ask why, or marvel."""
    # ("给我讲哈规则": "me" of a request is no one's life)
    if _ZH_SELF_RE.search(_ASKED_OF_ME_RE.sub("", message)) or _ZH_HOUSEHOLD_RE.search(message) or _LIFE_RE.search(message) \
            or corrections.topics(message) & _OWN_NEWS_TOPICS:
        return False
    return bool(_ZH_WORLD_ASKED_RE.search(message) or _ZH_MARVEL_RE.search(message))


#: "me" as what a request is made for ("给我讲哈规则", "帮我查查").
_ASKED_OF_ME_RE = re.compile(r"(?:给|帮|告诉|教|跟)我(?=讲|说|查|看|解释|介绍|科普|推荐|想|算|写|翻译|列)")
#: A sentence that only says a question follows ("random question,").
_QUESTION_LEAD_ONLY_RE = re.compile(r"^\W*(?:(?:ok|okay|so|back|here'?s)\W+)*(?:(?:(?:w|with)\s+)?(?:another|one more|a|an)?\s*"
                                    r"(?:random|quick|silly|dumb|weird|serious|stupid|odd|fun)?\s*(?:question|q)|"
                                    r"settle (?:this|a debate|an argument)|hot take|real talk|be honest)\W*$", re.IGNORECASE)
#: "we" of everyone, in a question about the world ("why do we still do daylight saving time", "do we really only use 10%
#: of our brains"): no one of the user's.
_GENERIC_WE_RE = re.compile(r"^\W*(?:(?:so|ok|and|but|also|btw)\W+)*why do we (?=(?:still|even|say|call|celebrate|have|need|use|"
                            r"dream|yawn|sneeze|get|cry|laugh)\b)|\bour (?:brains?|bodies|ancestors)\b", re.IGNORECASE)
#: A remark on what was just asked ("it literally helps nobody"), led by what it is about.
_REMARK_RE = re.compile(r"^\W*(?:it|it's|its|that|that's|this|they|which|seems|literally)\b", re.IGNORECASE)
#: Topics of news of the user's own, said with no subject ("确诊糖尿病了 为什么会这样", "房东要涨租800 太离谱了").
_OWN_NEWS_TOPICS = frozenset({"health", "home", "work", "study", "body", "family", "date", "schedule", "travel"})
#: The user or the household in Chinese ("我", "咱", "俺", "我家", "养了", a word of kin).
_ZH_SELF_RE = re.compile(r"我|咱|俺|本人|自己|人家")
_ZH_HOUSEHOLD_RE = re.compile(rf"家里|养了|养的|(?:{corrections.ZH_KIN})|老妈|老爸|爸|妈|爷爷|奶奶|外公|外婆|姥姥|姥爷|哥|姐|弟|妹|同事|朋友|室友|"
                              r"领导|老板|上班|工作|公司|单位")
#: Why or what of the world: "为啥", "为什么", "到底多…", "是真的吗", "啥意思".
_ZH_WORLD_ASKED_RE = re.compile(r"为啥|为什么|为何|到底(?:多|是|有|为|咋|怎么)|是真的吗|是不是真的|真的假的|(?:啥|什么)意思|怎么来的|咋来的|"
                                r"哪个(?:更|比较)|谁(?:更|比较)|"
                                # "A跟B有啥子区别", "五仁月饼到底好不好吃，你站哪一边"
                                r"(?:跟|和|与)[\u4e00-\u9fffA-Za-z]{1,8}?有(?:啥子?|什么|哪些|啥)(?:区别|不同|差别)|"
                                r"到底(?P<a>[\u4e00-\u9fff])不(?P=a)|你站哪(?:一)?边|你(?:怎么看|咋看|支持哪)|"
                                # the assistant's kind asked about ("你们这人工智能以后是不是啥都能干了")
                                r"你们(?:这|这些)?(?:人工智能|AI|ai|机器人)")
#: Marvelling at news ("…带土回来了 太牛了吧", "这也太离谱了").
_ZH_MARVEL_RE = re.compile(r"(?:太|真|好|也太)(?:牛|厉害|离谱|夸张|神奇)了?(?:吧|啊|呀)?(?:\s|[!！。~～]|$)|绝了(?:\s|[!！。]|$)")


#: What one does at a company named in capitals ("staff eng at Shopify").
_AT_COMPANY_RE = re.compile(r"^\W*(?:\w+:\s*)?(?:[\w-]+ ){1,3}at (?-i:[A-Z])[\w&.'-]+\W*$", re.IGNORECASE)
#: A trade said as what the user is, in English ("hi i'm a cooper", "im a mosaic restorer").
_TRADE_SAID_EN_RE = re.compile(r"\b(?:i'm|im|i am) an? (?:[\w-]+ )?[\w-]+(?:er|or|ist|ian|man|woman|wright|smith|maker|keeper)\b",
                               re.IGNORECASE)


#: What one eats or drinks, said in a clause.
_EATS_RE = re.compile(r"吃|喝|\b(?:eat|eats|eating|ate|drink|drinks|drinking)\b", re.IGNORECASE)


def _remainder(episode: MemoryDraft, old: set[str], about: Sequence[str],
               restated: Sequence[re.Pattern] = (), *, keep_whole: bool = False, moved: bool = False,
               took_along: frozenset[str] = frozenset({"home"}),
               names_only: bool = False, vectors: Sequence[np.ndarray] = (), pieces: Sequence[str] = ()) -> MemoryDraft | None:
    """What a replaced episode said besides what the correction replaces, as an episode of its own: its sentences that
    hold no old value the correction names and speak of none of the correction's topics, and of the others their
    clauses about some other topic ("儿子8岁，学小提琴一年了，…" replaced by a message about the drums keeps "儿子8岁").
    None when nothing would stay, or nothing was replaced (but ``keep_whole``: then the episode as it is; given the
    correction's ``vectors``: what is not closest to it, _cut_by_meaning). Of a correction only of a name
    (``names_only``: renamed, or a pet or relative gone), a clause of the user's own without the old name stays
    ("我在佛山自己在家做烘焙卖", "平时自己做烘焙" beside "店名改成…" or "可乐上个月走了"; not "小母猫，才八个月大" of the cat whose
    name and sex were corrected)."""
    text = episode.content
    if names_only and old:
        # A child's name gone: what was said of them stays, the name taken off the word of who they were.
        # (a child's only: a partner gone takes the plans made with them, "me and my gf are doing a road trip" would stay)
        for name in old:
            text = re.sub(rf"\b(son|daughter|kid|baby)\s+{re.escape(name)}\b" if name.isascii()
                          else rf"(儿子|女儿|闺女|孩子|宝宝){re.escape(name)}", r"\1", text, flags=re.IGNORECASE)
    replaced = set(about)
    kept, dropped = [], text != episode.content
    for sentence in (text[a:b].strip() for a, b in split_sentences(text)):
        if not sentence:
            continue
        if (unlisted := _unlisted(sentence, old)) != sentence:
            # One item of a list taken back ("dropping wharton"): the others stay as said ("my top schools are emory
            # and duke").
            kept.append(unlisted)
            dropped = True
            continue
        # A job left or changed: a sentence saying the old title ("我在建行做柜员 每天坐8个小时 腰好疼") keeps its other clauses.
        titled = _JOB_TITLE_SAID_RE in restated and bool(_JOB_TITLE_SAID_RE.search(sentence))
        # A number of something said anew: the sentence giving the old number keeps its other clauses ("80亩地" of
        # "俺家在五常种稻子 80亩地 都是稻花香").
        counted = corrections.COUNT_RE in restated and bool(corrections.COUNT_RE.search(sentence))
        # Of a correction of no topic, a value of the kind it says anew ("先考个N3" beside "现在开始啃N1").
        counted = counted or (not replaced and any(kind.search(sentence) for kind in restated))
        # A job left or changed: a sentence saying where the user worked ("I'm a croupier at the casino … in Dubuque"),
        # whatever topic its words name, keeps its other clauses and the town.
        worked = (_WORK_SAID_RE in restated or _WORKED_ELSEWHERE_RE in restated) and bool(_WORK_SAID_RE.search(sentence))
        if not corrections.holds_any(sentence, old) and not corrections.topics(sentence) & replaced and not titled \
                and not counted and not worked:
            kept.append(sentence)
            continue
        if "date" in replaced and not corrections.holds_any(sentence, old) and \
                corrections.topics(sentence) & replaced <= _DATED and (
                    undated := _undated(sentence, birthday=corrections.BIRTHDAY_TOPIC in replaced)):
            # A date moved ("the wedding is now October 5th"): what else the sentence said stays, without its date
            # ("I'm getting married at a winery in Napa").
            kept.append(undated)
            dropped = True
            continue
        if "age" in replaced and not corrections.holds_any(sentence, old) and (
                aged := _without_age(sentence, corrections.topics(sentence) & replaced <= _AGED)):
            # An age corrected ("哦不对 她上周过完生日已经7岁了"): what else was said of them stays without the age
            # ("我女儿 叫果果 在学画画").
            kept.append(aged)
            dropped = True
            continue
        # A sentence of what is replaced keeps only its clauses about something else that can be named: "儿子8岁"
        # (family) of "儿子8岁，学小提琴一年了，…", not "一天至少三杯美式" of "我每天离不开咖啡，一天至少三杯美式".
        # A correction of one value of a kind ("钢琴课改到周四了": a weekday) keeps the clauses that name no topic and
        # state no value of that kind ("目标明年6月考八级" of "30岁开始学钢琴 每周二晚上上课 目标明年6月考八级").
        # A clause naming a place speaks of where the user is ("在南京" of "我是自由职业 做平面设计 在南京 …").
        dropped = True
        kept += [c for said, c in ((c, _without_old_value(c, old)) for c in _remainder_pieces(sentence)) if c.strip()
                 and (((topics := corrections.topics(c) | ({"home"} if _says_where(c) else set())) and not topics & replaced)
                      or _NAME_CLAUSE_RE.match(c)
                      # who the user is ("南京大三党" of "南京大三党 想用我的华为Mate 60拍…" when the phone is new), unless
                      # the correction says their school year or job anew
                      or (c == said and not _restates(c, restated)
                          and (_VISA_HELD_RE.match(c)  # ("I'm on a student visa in Sydney," when the course changed)
                               or ((_STANDING_RE.match(c) or _TITLE_HELD_EN_RE.match(c))
                                   and not topics & replaced - {"work"}
                                   and ("work" not in topics & replaced or not {_JOB_TITLE_SAID_RE, _WORK_SAID_RE,
                                                                                 _WORKED_ELSEWHERE_RE} & set(restated)))))
                      or (names_only and _USERS_OWN_RE.search(c) and not topics & replaced and not _ASKING_RE.search(c))
                      or (restated and not topics and not _ASKING_RE.search(c) and len(keyword_tokens(c)) >= 2
                          and not _APPOSITION_RE.match(c))
                      # a move replaces where, not what: "我在泉州做铁观音电商" keeps "我在做铁观音电商", "我在锦州开了个理发店"
                      # "我在开了个理发店" (the clause that said the old place, without it; not where the user lives, another
                      # place, what else the move changed: a way to work, a phone)
                      or (moved and took_along and c != said and "home" not in topics
                          and not topics & (replaced - took_along)
                          and not places_in(c) and not _ZH_PLACE_WORD_RE.search(c)
                          and not _DWELLING_RE.search(c) and not _ASKING_RE.search(c) and len(keyword_tokens(c)) >= 2
                          and not _APPOSITION_RE.match(c) and not _HELP_ASKED_RE.match(c))
                      # a trade of the user's own said in a clause that does not hold what the correction names ("Hi, I'm a
                      # park ranger in the Cairngorms" of "… and drive a Lada Niva around the estate" when "the Niva finally
                      # gave up")
                      or (old and not moved and c == said and not topics & replaced and _USERS_OWN_RE.match(c)
                          and (_JOB_TITLE_SAID_RE.search(c) or _TRADE_SAID_EN_RE.search(c))
                          and not _ASKING_RE.search(c) and len(keyword_tokens(c)) >= 2)
                      # (nor, of a move, a trade said that names no place: "hi i'm a cooper"; or a company: "context: staff
                      # eng at Shopify" of "… based in Ottawa")
                      or (moved and c == said and not topics and not places_in(c) and not _IN_PLACE_RE.search(c)
                          and bool(_TRADE_SAID_EN_RE.search(c) or _AT_COMPANY_RE.search(c))))
                 and not _MOOD_END_RE.search(c)
                 and not ("health" in replaced and _EATS_RE.search(c))]  # a diet changed: "每天鸡胸肉吃到想吐" goes
        if _WORK_SAID_RE in restated and not moved:
            # the town of the old job's clause stays though the clause went by its topic ("… croupier at the casino on
            # the waterfront in Dubuque so nights are long")
            kept += [w for c in _TOPIC_SPLIT.split(sentence) if _WORK_SAID_RE.search(c) and c not in kept
                     for w in _where_worked(c, restated) if w not in kept]
        where = _WHERE_LEAD_RE.match(sentence)
        if where and "home" not in replaced and not corrections.holds_any(where.group(0), old) \
                and not any(where.group(0) in k for k in kept):
            kept.append(where.group(0))  # "We're in Leslieville" of "We're in Leslieville and thinking of a party at home"
    if restated and dropped:
        # Of a value the correction says anew (a grade, an age, a date, an amount), the old one does not stay (but a
        # birthday's date, unless the correction says a birthday: "my birthday is 12 May" of "… and my son's party is
        # on the 14th" when "the party moved to the 15th").
        birthday = corrections.BIRTHDAY_TOPIC in replaced
        kept = [k for piece in kept for c in _TOPIC_SPLIT.split(piece) if c.strip()
                for k in ([c] if not _restates(c, restated, birthday=birthday)
                          # (a visa said anew takes only the old one's words: "now in CDMX on a tourist visa (180 days)")
                          # (a month said anew takes only the old month: "打算带爸妈去新疆自驾" of "打算明年5月带爸妈去新疆自驾")
                          else _without_visa(c, restated) or _without_month(c, restated)
                          or ([] if moved else _where_worked(c, restated)))]
    # A question stays in the replaced message's history, not in what it told ("can you help me tidy up my headline?").
    kept = [c for piece in kept for c in (_REMAINDER_SPLIT.split(piece) if is_chinese(piece) else [piece])
            if c.strip() and not (_ASKS_RE.match(c) and (_QUESTION_RE.search(c) or is_chinese(c)))
            and not (c.rstrip().endswith(("?", "？")) and not _FIRST_PERSON_RE.search(c))  # not "3 day itinerary?"
            and not _REQUEST_LEAD_RE.match(c)]
    joined = corrections.join_clauses(kept) if is_chinese(text) else " ".join(kept).strip(" ,，;；")
    if keep_whole and not dropped:
        return episode
    if not dropped and len(vectors):
        # Replaced by meaning, though nothing in it holds what the correction names or speaks of: what is closest in
        # meaning to the correction goes, the rest stays.
        return _cut_by_meaning(episode, vectors, pieces)
    if not kept or not dropped or _CHAT_WORD_RE.fullmatch(joined) or (len(joined) < 6  # not "legend."
                                                                     and not _says_where(joined)  # "我在济南" stays
                                   and not _STANDING_RE.match(joined)  # as do "南京大三党"
                                   and "health" not in corrections.topics(joined)):  # and "vegan"
        return None
    return _remainder_draft(episode, joined)


#: A word of chat that says nothing of the user ("legend.", "cheers", "好嘞").
_CHAT_WORD_RE = re.compile(r"\W*(?:legend|cheers|ta|thanks|thank you|lol|haha+|ok(?:ay)?|sweet|cool|nice|great|awesome|sure|yep|"
                           r"yeah|hi|hey|hello|g'day|mate|好的|谢谢|哈哈+|嗯+|好嘞|收到|懂了)\W*", re.IGNORECASE)


def _remainder_draft(episode: MemoryDraft, joined: str) -> MemoryDraft:
    """An episode of what stays (``joined``) of a replaced one: same session, turn and time."""
    return MemoryDraft(
        content=joined[:MAX_CHARS], type=MemoryItem.Type.EPISODE, source=MemoryItem.Source.USER_STATED,
        # where it says the user is, as any episode: a later move finds it ("Live in Leeds and commute to Bradford")
        value={"slots": [], "topics": sorted(corrections.topics(joined)),
               **({"places": places} if (places := places_in(joined)) else {})}, confidence=episode.confidence, quality=0.9,
        agent_id=episode.agent_id, session_id=episode.session_id, turn_id=episode.turn_id, excerpt=episode.excerpt,
        valid_from=episode.valid_from,
        tags={**{k: v for k, v in (episode.tags or {}).items() if k not in BOOKKEEPING_TAGS},
              "extractor": "episodes"},  # its context tags, and whose draft it is
    )


def _says_a_change(message: str) -> bool:
    """Whether ``message`` says in words that something changed or was wrong: the classifier's judgement alone does
    not make a message of no known topic replace whatever it is closest to ("Deck's coming along. Been doing
    woodworking as a hobby for 30 years …" is no correction of the deck)."""
    return corrections.signals_change(message) or bool(_TAKES_BACK_RE.search(message) or _SAID_WRONG_RE.search(message))


def _said_before(message: str, sentence: str, chosen_before: Sequence[str]) -> str:
    """What ``message`` said before ``sentence``, kept or not: "my colleague Sanjay …" names whom a following
    "He's vegetarian …" is about, though only the latter was kept."""
    at = message.find(sentence)
    return message[:at] if at >= 0 else "".join(chosen_before)


def _with_speaker(message: str, text: str) -> str:
    """The episode's text with the speaker label its message began with ("Caroline: ..." in a transcript),
    when the sentences kept do not begin with it: recall's speaker prior reads it (memory/priors.py)."""
    label = _SPEAKER_LABEL_RE.match(message)
    if label is None or text.startswith(label.group(0).strip()):
        return text
    return f"{label.group(0).strip()} {text}"


def _any_of(field: str, names: list[str]) -> Q:
    """Episodes whose ``value[field]`` holds one of ``names`` (jsonb containment, in SQL)."""
    return functools.reduce(operator.or_, (Q(value__contains={field: [name]}) for name in names))


def _said_by_its_slots(message: str, values: Sequence[str]) -> bool:
    """A message of one short sentence each clause of which names a value its slots were filled with
    ("我们公司是做母婴用品的"): the slot facts hold all it says. "对了我在杭州做跨境电商，我家猫叫可乐" and "I work at
    Google and my dog is Max" say more than their slot values; "预算1500，望江校区附近好找吗" does not."""
    text = message.strip()
    if len(split_sentences(text)) != 1:
        return False
    if not (len(text) <= SHORT_ZH if is_chinese(text) else len(text.split()) <= SHORT_EN):
        return False
    named = [(value, set(keyword_tokens(value)) - _GENERIC_TOKENS) for value in values]
    return all(len(keyword_tokens(clause)) <= 1 or _ASKING_RE.search(clause)  # "对了", "btw", a question
               or any(value in clause or tokens & set(keyword_tokens(clause)) for value, tokens in named)
               for clause in corrections.clauses(text))


#: Words of a slot fact's wording that name no value ("用户在腾讯工作", "The user works at Google").
_GENERIC_TOKENS = frozenset({"用户", "user", "work", "工作"})


