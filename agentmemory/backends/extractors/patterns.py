"""The rule-based extractor's vocabulary: the slots (key -> memory type and wording) and the Chinese and English
patterns that fill them, retract them, or mark a correction or a request to remember."""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Slot:
    type: str
    zh: str
    en: str
    multi: bool = False  # several values may hold at once (likes): the key then names the value too
    confidence: float = 0.85
    quality: float = 0.8


#: The slot vocabulary: key -> memory type and how a value is worded.
SLOTS: dict[str, Slot] = {
    "name": Slot("fact", "用户的名字是{v}", "The user's name is {v}", confidence=0.9, quality=0.9),
    "employer": Slot("fact", "用户在{v}工作", "The user works at {v}", quality=0.85),
    "job_title": Slot("fact", "用户的职业是{v}", "The user is {v}", quality=0.8),
    "company_industry": Slot("fact", "用户的公司是做{v}的（公司行业：{v}）", "The user's company is in {v}",
                             confidence=0.9, quality=0.9),
    "company_focus": Slot("fact", "用户的公司主打{v}", "The user's company focuses on {v}", quality=0.75),
    "location": Slot("fact", "用户住在{v}", "The user lives in {v}", quality=0.8),
    "tech_stack": Slot("fact", "用户使用的技术栈：{v}", "The user's tech stack: {v}", multi=False, quality=0.85),
    "budget": Slot("preference", "用户的预算：{v}", "The user's budget: {v}", quality=0.85),
    "reply_style": Slot("preference", "用户希望回答{v}", "The user wants answers: {v}", quality=0.85),
    "diet": Slot("preference", "用户的饮食：{v}", "The user's diet: {v}", multi=True, quality=0.85),
    "likes": Slot("preference", "用户喜欢{v}", "The user likes {v}", multi=True, quality=0.7),
    # "不再喜欢 X" / "no longer like X": a new version of the same likes:X slot, which it supersedes.
    "unlikes": Slot("preference", "用户不再喜欢{v}", "The user no longer likes {v}", multi=True, quality=0.8),
    "dislikes": Slot("preference", "用户不喜欢{v}", "The user dislikes {v}", multi=True, quality=0.75),
    "do_not_recommend": Slot("preference", "不要再向用户推荐{v}", "Do not recommend {v} to the user again",
                             multi=True, confidence=0.9, quality=0.85),
    "decision": Slot("decision", "用户的决定：{v}", "The user decided: {v}", multi=True, quality=0.75),
    "event": Slot("event", "{v}", "{v}", multi=True, confidence=0.7, quality=0.6),
    "feedback": Slot("feedback", "用户对回答的反馈：{v}", "The user's feedback on an answer: {v}", multi=True,
                     quality=0.7),
    # A retraction ("香菜我现在能接受了", "you can suggest crypto again", "不是周杰伦"): the next version of
    # the retracted value's slot, value {"item": X, <slot>: false}; the write path supersedes that value.
    "retract_dislikes": Slot("preference", "用户不再讨厌{v}", "The user no longer dislikes {v}", multi=True, quality=0.8),
    "retract_do_not_recommend": Slot("preference", "可以再向用户推荐{v}", "{v} may be recommended to the user again",
                                     multi=True, quality=0.8),
    "retract_diet": Slot("preference", "用户的饮食不再是：{v}", "The user's diet is no longer: {v}", multi=True,
                         quality=0.8),
    # Life facts beyond work and taste (each also kept as an episode in the user's words).
    "birthday": Slot("fact", "用户的生日是{v}", "The user's birthday is {v}", confidence=0.9, quality=0.9),
    "age": Slot("fact", "用户今年{v}岁", "The user is {v} years old", quality=0.85),
    "pet": Slot("fact", "用户的宠物：{v}", "The user's pet: {v}", multi=True, quality=0.85),
    "child": Slot("fact", "用户的孩子：{v}", "The user's child: {v}", multi=True, quality=0.85),
    "partner": Slot("fact", "用户的伴侣：{v}", "The user's partner: {v}", quality=0.85),
    # A brother, a sister or a parent, by their name or their age ("我弟豆豆今年8岁", "my mom Rosa is 70").
    "family": Slot("fact", "用户的家人：{v}", "The user's family: {v}", multi=True, quality=0.8),
    "car": Slot("fact", "用户开的车：{v}", "The user drives {v}", quality=0.85),
    "device": Slot("fact", "用户用的设备：{v}", "The user's device: {v}", multi=True, quality=0.8),
    "phone": Slot("fact", "用户用的手机：{v}", "The user's phone: {v}", quality=0.85),
    "instrument": Slot("fact", "用户会的乐器：{v}", "The user plays {v}", multi=True, quality=0.85),
    "education": Slot("fact", "用户的学校和专业：{v}", "The user's education: {v}", multi=True, quality=0.85),
    "health": Slot("fact", "用户的健康状况：{v}", "The user's health: {v}", multi=True, quality=0.85),
    "commute": Slot("fact", "用户的通勤方式：{v}", "The user's commute: {v}", quality=0.8),
    "timezone": Slot("fact", "用户的时区：{v}", "The user's time zone: {v}", quality=0.85),
    "project": Slot("fact", "用户的项目：{v}", "The user's project: {v}", multi=True, quality=0.85),
    # What the user asked to keep, in their words (not "the user asked to remember", which the quality
    # gate rightly takes for a statement about the conversation).
    "note": Slot("preference", "用户说：{v}", "The user said: {v}", multi=True, confidence=0.95, quality=0.8),
}

# One clause: up to the next Chinese or English clause mark.
ZC = r"[^，。！？；、,.!?;:\n：]"
#: ...that does not go past a trade said ("做古DNA的 导师让我…": "的" and a space end it).
_ZW = r"(?:(?!的\s)[^，。！？；、,.!?;:\n：])"
_EC = r"[^,.;!?\n]"

# Values that are not worth a memory on their own (pronouns, fillers).
EMPTY_VALUES = {"", "的", "了", "它", "这个", "那个", "这样", "那样", "it", "that", "this", "them", "so", "too"}

#: Remember intent: the user asks for something to be kept from now on.
REMEMBER_RE = re.compile(
    r"记住|记一下|记下来|请记得|别忘了|不要忘了|以后都按这个来|以后都这样|以后都|今后都|从现在起|从现在开始|下次别再|下次不要|"
    r"以后别再|以后不要|\bremember (?:that|this|:)|\bremember\b|\bfrom now on\b|\bgoing forward\b|"
    r"\bnever (?:again )?recommend\b|\bdon't ever\b|\bkeep in mind\b|\bnote that\b",
    re.IGNORECASE,
)
REMEMBER_PREFIX_RE = re.compile(
    r"^\s*(?:请|你要|麻烦)?(?:记住|记一下|记下来|请记得|别忘了|不要忘了)[：:，,\s]*|"
    r"^\s*(?:please\s+)?(?:remember|keep in mind|note)(?:\s+that)?[：:,\s]*",
    re.IGNORECASE,
)
CORRECTION_RE = re.compile(
    r"其实|改口|更正|纠正一下|说错了|不对，|已经迁到|已经迁移到|已经换成|已经改成|现在改用|现在用的是|"
    r"\bactually\b|\bcorrection\b|\bno longer\b|\bnot anymore\b|\bnow (?:we|I) (?:use|work|live)\b|"
    r"\bwe(?:'ve| have) (?:migrated|moved|switched)\b",
    re.IGNORECASE,
)

_AMOUNT = (r"(?:[0-9０-９][0-9０-９,.]*|[一二两三四五六七八九十百千]+(?=[万千百亿元块]))\s*"
           r"(?:万|千|百|亿|k|K|w|W|元|块|美元|美金|USD|RMB|dollars|yuan|新?台币|港币|港元|马币|令吉|日元|日币|韩元|欧元|英镑|澳元|澳币|"
           r"加币|新币|泰铢)*"
           r"(?:(?<=[万千])[1-9一二两三四五六七八九](?![0-9０-９个天人晚岁年月位间套张口号]))?")  # "1万5", "两万五"
_NUM = rf"{_AMOUNT}(?:\s*[-~～到至]\s*{_AMOUNT})?"  # a range too: 3k-4k, 5到8万
# An amount of money, unit or currency required (a bare number is not a budget).
ZH_MONEY_RE = re.compile(r"(?:[0-9０-９][0-9０-９,.]*|[一二两三四五六七八九十]+(?=[万千亿]))\s*(?:(?:万|千|百|亿|w|W)+(?:元|块|美元|美金|人民币)?|元|块|美元|美金|人民币)")
EN_MONEY_RE = re.compile(r"[$€£¥]\s?\d[\d,.]*(?:\s?(?:k|K|m|M|million|thousand)\b)?(?: (?:a|per) (?:month|year|week|mo|yr)\b)?|"
                          r"\b\d[\d,.]*\s?(?:k|K)?\s?(?:dollars|bucks|grand|yuan|euros|pounds|quid|USD|RMB|CNY|EUR|GBP)\b")
BUDGET_CUE_RE = re.compile(r"预算|经费|资金|(?:装修|婚礼|办酒|旅行|买车|买房)(?:的)?(?:钱|费用|花费)[^，。！？\s\d]{0,4}(?:加|涨|提|追加|定|控制|准备|打算|留)|最多|上限|以内|不超过|可以到|能到|加到|涨到|提到|每人|人均|\bbudget|\bspend\b|\bafford\b|\bfunding\b|\bstre?t?ch to\b|"
                            r"\bcan (?:do|go up to|pay|afford|spend)\b|\btops\b|\bwe have (?:maybe |about |around )?[$€£¥]|"
                            r"\bup to\b|\bat most\b|\bmax(?:imum)?\b|\bwilling to pay\b|\bprice range\b", re.IGNORECASE)
_ZH_TITLES = (r"[\u4e00-\u9fff]{1,4}师|策划|制作人|编剧|导演|主播|运维|算法|前端|后端|工程师|经理|设计师|医生|老师|教师|律师|学生|运营|销售|创始人|CEO|CTO|开发者|程序员|研究员|会计|护士|"
              r"分析师|产品经理|架构师|开发|组长|主管|总监|负责人|专员|实习生|顾问|编辑|记者|厨师|店长|博士生|研究生|测试|助理|文员|合伙人|教练|导购|"
              r"财务|人事|HR|行政|理赔|核保|精算|出纳|市场营销|市场|用户增长|增长|客服|采购|法务|风控|审计|数据分析|投研|翻译|公关|招聘|供应链|质检|售前|售后|商务|BD|柜员|收银员|保安|(?<!老)司机|快递员|外卖员|保险代理|店员|服务员|保洁|护工|前台|荷官|骑手|保姆|月嫂|"
              r"操作工|普工|电工|焊工|钳工|车工|机修工|装配工|管制员|书记员|安全员|化验员|调度员|技术员|检验员|质检员|仓管员|管理员|业务员|"
              r"讲解员|列车员|乘务员|安检员|统计员|资料员|施工员|监理|辅警|民警|消防员|飞行员|配送员|营业员|售货员|理货员|理专|理财专员|私行|客户经理|行研|研究员")
#: Someone called as Chinese speakers call colleagues and neighbours: by surname after 老/小/阿 ("老王是回族不吃猪肉",
#: "小陈对花生过敏") or before a title ("王姐", "张总", "刘老师", a neighbour's "王奶奶"); not a word that begins so ("小孙子", "老顾客",
#: "小程序": left out of the surnames or by the next character).
_ZH_SURNAMES = ("王李张刘陈杨赵吴周徐孙朱胡郭何林罗郑梁谢宋唐许韩冯邓曹彭曾肖董袁潘蒋蔡余杜苏魏吕丁沈姚卢姜崔钟谭汪范廖贾夏韦邹孟"
                "熊秦邱薛闫段侯陶黎贺郝龚邵严覃戴孔")
ZH_CALLED_BY_SURNAME = (rf"(?:老|小|阿)[{_ZH_SURNAMES}](?![子女家师人病虾车们时学区说序务国同额法孩伙头气客户板公婆朋友样式])|"
                        rf"[{_ZH_SURNAMES}](?:姐|哥|总|工|老师|师傅|阿姨|叔|姨|医生|经理|主任|大爷|大妈|奶奶|爷爷|大娘|大婶|婶|大叔|大哥|大姐|嫂|伯|老太)")
_EN_TITLES = (r"engineer|developer|manager|designer|doctor|teacher|lawyer|student|founder|consultant|researcher|nurse|"
              r"writer|artist|accountant|scientist|counselor|analyst|architect|director|lead|intern|editor|dev|"
              r"product owner|programmer|administrator|specialist|recruiter|professor|auditor|electrician|plumber|"
              r"hairdresser|pharmacist|paramedic|chef|cook|barista|mechanic|carpenter|dentist|therapist|coach|"
              r"welder|driver|courier|postman|postwoman|cleaner|farmer|baker|butcher|librarian|firefighter|"
              r"physio|physiotherapist|midwife|caregiver|carer|tradie|labourer|laborer|"
              r"teller|cashier|clerk|coder|surveyor|technician|officer|supervisor|receptionist|secretary|bookkeeper|"
              r"operator|inspector|controller|coordinator|estimator|superintendent|foreman|banker|broker|underwriter|"
              r"adjuster|paralegal|hygienist|optometrist|radiographer|sonographer|phlebotomist|pilot|dispatcher|"
              r"longshoreman|stevedore|miner|machinist|fitter|rigger|scaffolder|roofer|landscaper|gardener|janitor|"
              r"nanny|tutor|lecturer|instructor|translator|interpreter|journalist|reporter|photographer|sommelier|"
              r"bartender|waiter|waitress|investigator|"
              r"PM|SWE|SRE|QA|CTO|CEO|CFO|COO|VP|CNA|RN|LPN|EMT|CPA|HCA|PCA|head of [a-z-]+(?: [a-z-]+)?")
_ONE_DIET_ZH = r"低碳水|生酮|清淡|低脂|低糖|低盐|地中海|轻断食|纯素|全素|严格素食|蛋奶素|鱼素|蛋素|奶素|半素|素食(?:者)?|吃素"
_ONE_DIET_EN = (r"vegetarian|vegan|pescatarian|keto|paleo|low[- ]carb|plant[- ]based|"
                r"low[- ]sodium|low[- ]fat|low[- ]sugar|mediterranean|carnivore|"
                r"intermittent fasting|whole30")
#: What the patterns read as a diet: a diet, and what adds up beside one (an intolerance, what a faith rules out).
_DIET_STYLES = rf"清真|无麸质|{_ONE_DIET_ZH}"
_EN_DIET_STYLES = rf"{_ONE_DIET_EN}|gluten[- ]free|dairy[- ]free|lactose intolerant|halal|kosher"
#: A diet that replaces the previous one (one value at a time); allergies, intolerances, what a faith rules out
#: ("lactose intolerant", "gluten-free", "halal", "清真") and dislikes add up ("im vegetarian" stays beside them).
DIET_STYLE_RE = re.compile(rf"^(?:{_ONE_DIET_ZH}|{_ONE_DIET_EN})(?:饮食|者)?$", re.IGNORECASE)
#: Where the user works, said by who they work with there ("My manager at Analog Devices has everyone doing …"): read from
#: the whole sentence, whose subject is that person (not "my husband's manager at Google").
#: (the user's workmate as who does something, at a sentence's or a clause's start: not "I already miss my coworkers at
#: Amazon", "had lunch with my team at Chipotle")
WORKMATE_AT_RE = re.compile(r"(?:^|[.!?,;]\s*|\b(?i:and|but|so|because|cause|bc|cuz|also|plus) )\W*(?i:my) "
                            r"(?:(?i:new|current) )?(?i:manager|boss|supervisor|team lead|line manager|coworkers?|co-workers?|colleagues?|"
                            r"employee discount|work badge|shift lead) (?:at|over at|down at) "
                            r"(?!(?:January|February|March|April|May|June|July|August|September|October|November|December|"
                            r"Christmas|Easter|Thanksgiving|Halloween|Diwali|Eid)\b)"
                            r"(?P<v>[A-Z][\w&.'-]*(?: (?!I\b)[A-Z][\w&.'-]*){0,3})")
#: A company the user is "technically" or "officially" at now, said of a firm bought or merged ("also we got acquired, I'm
#: technically at Ramsey Digital now, same team same desk lol"): read from the whole sentence (not "I'm technically at
#: Disneyland right now", "im officially at Heathrow").
ACQUIRED_AT_RE = re.compile(r"^(?=[^.!?]*\b(?i:acquired|acquisition|bought out|merged|merger|rebranded|same team|same desk|same job|"
                            r"on paper|payroll)\b)[^.!?]*?\b(?:I(?:'m| am)|(?i:im)) (?i:technically|officially|now) (?:at|with|part of) "
                            r"(?P<v>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,3})")
#: How the user gets to work, said as the way itself ("with the drive from Ballincollig up to Limerick and back eating two
#: hours a day", "my train into Waterloo was cancelled again"): read from the whole sentence.
#: (a way to work, or one said to be made daily: not "our train from Paris to Lyon was cancelled", "the drive home from
#: Mum's took ages")
COMMUTE_SAID_RE = re.compile(r"(?:\b(?i:the|my|our) |(?:^|(?<=,\s)|\b(?i:now|so|and) )(?=walk to ))"
                             r"(?=(?:daily |morning |long )?(?:drive|cycle|bike|walk|train|bus|tube|ferry) )"
                             r"(?=[^?]{0,200}?\b(?i:work|the office|the (?-i:[A-Z])\w+ office|a day|every day|each day|daily|each way|every morning|"
                             r"most days|commute)\b)(?:daily |morning |long )?(?P<v>(?P<way>drive|cycle|bike ride|walk|train|bus|"
                             r"tube|ferry|train ride|bus ride) (?:in |up |down |over |back )?(?:from|to|into) "
                             r"(?:(?!I\b)[A-Z][\w'-]*(?: (?!I\b)[A-Z][\w'-]*)?|work\b|the (?:(?!I\b)[A-Z][\w'-]* )?office\b|the site\b)"
                             # (and where to, from where: "the drive from Ballincollig up to Limerick")
                             r"(?: (?:up |down |over |across )?(?:to|into) (?!I\b)[A-Z][\w'-]*(?: (?!I\b)[A-Z][\w'-]*)?)?)")
#: The job titles the patterns read (working/episodes.py reads a title said, to retire it with the job).
ZH_TITLES, EN_TITLES = _ZH_TITLES, _EN_TITLES

_ZH_DATE = r"(?:[0-9０-９一二三四五六七八九十]{1,3}月[0-9０-９一二三四五六七八九十]{1,3}(?:[日号]|(?=[\s，,。！!？?]|$))|(?:正|腊|[一二三四五六七八九十冬])月(?:初|十|廿|二十)?[一二三四五六七八九十]{1,2}|[0-9]{1,2}[./-][0-9]{1,2})"
ZH_PETS = (r"猫|狗|猫咪|狗狗|鹦鹉|仓鼠|兔子|乌龟|柯基|柴犬|金毛|泰迪|布偶|英短|橘猫|边牧|哈士奇|比熊|龙猫|刺猬|三花|狸花|奶牛猫|"
           r"加菲|暹罗|蓝猫|银渐层|金渐层|美短|缅因|萨摩耶|拉布拉多|阿拉斯加|博美|雪纳瑞|贵宾|法斗|腊肠|玄凤|虎皮鹦鹉|八哥|金丝熊|"
           r"豚鼠|荷兰猪|蜥蜴|守宫|鹦鹉鱼|锦鲤|德牧|杜宾|秋田|马犬|中华田园犬|土狗|小土狗|雪貂")
EN_PETS = (r"dog|cat|puppy|kitten|parrot|rabbit|bunny|hamster|turtle|lizard|gecko|ferret|guinea pig|corgi|labrador|lab|"
            r"golden retriever|husky|beagle|poodle|tabby|kelpie|spaniel|terrier|collie|border collie|greyhound|whippet|"
            r"dachshund|sausage dog|pug|shih tzu|chihuahua|schnauzer|rottweiler|german shepherd|shepherd|bulldog|frenchie|"
            r"cavoodle|cockapoo|labradoodle|goldendoodle|doodle|maltese|samoyed|shiba|pomeranian|staffy|mutt|tortie|"
            r"ragdoll|siamese|maine coon|sphynx|budgie|cockatiel|tortoise|chinchilla|goldfish|axolotl|bearded dragon")
#: A pet named first and its kind said after ("Floss will be coming, she's our border collie"): read from the whole
#: sentence, as "border collie Floss".
NAMED_PET_RE = re.compile(rf"^\W*(?!(?:This|That|Meet|Here|Say|Our|My|The|He|She|It|They)\b)(?P<n>[A-Z][a-z]{{2,12}})(?:\s+[\w']+){{1,5}}?,?\s+"
                          rf"(?i:she's|he's|she is|he is) (?i:our|my) (?P<v>(?i:{EN_PETS}))(?=\s*(?:$|[,.;!?]|and\b|so\b|who\b|lol\b))")
#: The name first, then whose it is, after a word of doing something for it ("add something about pickles, my frenchie,
#: she's basically the salon mascot"): not a word of a list or of chat ("I packed snacks, water, my dog, and the tent",
#: "thanks, my dog loves it").
PET_NAMED_FIRST_RE = re.compile(rf"\b(?:about|for|with|meet|walk|walking|feed|feeding|bathe|bathing|groom|grooming|love|adore) "
                                rf"(?P<n>(?!(?:him|her|them|it|me|us|you|this|that|mom|mum|dad|coffee|water|food|snacks)\b)"
                                rf"[A-Za-z][a-z'-]{{2,12}}), (?:my|our) (?P<v>(?:[\w-]+ )?(?:{EN_PETS}))"
                                rf"(?=,\s*(?:she|he|who|shes|hes|she's|he's)\b|\s*[.!)]|\s*$)",
                                re.IGNORECASE)
#: Car makes and models people name their car by ("my 2014 civic", "we finally got a Tesla", "换了小鹏G6").
CAR_MAKES_EN = (r"tesla|model [3ysx]|honda|civic|accord|cr-v|toyota|corolla|camry|prius|rav4|tacoma|ford|f-150|mustang|"
                r"jeep|wrangler|subaru|outback|forester|crosstrek|bmw|audi|mercedes|volkswagen|vw|(?:(?<=vw )|(?<=volkswagen ))golf|(?<=my )golf(?! (?:swing|game|lessons?|clubs?|course|bag|handicap|buddies|trip|shoes))|jetta|kia|hyundai|"
                r"mazda|nissan|(?:(?<=nissan )|(?<=the )|(?<=my ))(?-i:[Ll])eaf(?! (?:blower|litter|mould|mold|tea|spring))|chevy|chevrolet|(?:(?<=chevy )|(?<=chevrolet ))bolt|volvo|lexus|rivian|porsche|mini cooper|minivan|pickup|sedan|suv|"
                r"motorbike|motorcycle|moped|vespa|yamaha(?= (?:nmax|xmax|aerox|mio|r\d|mt-?\d|fz))|nmax|ducati|"
                r"vauxhall|vivaro|hilux|hiace|navara|skoda|peugeot|renault|citroen|fiat|dacia|suzuki|"
                r"mitsubishi|isuzu|land rover|range rover|mahindra|maruti|innova|fortuner|gmc|silverado|"
                r"4runner|sportage|seltos|ford transit")
CAR_MAKES_ZH = (r"特斯拉|比亚迪|小鹏|蔚来|理想|问界|极氪|小米SU7|大众|丰田|本田|宝马|奔驰|奥迪|日产|马自达|别克|雪佛兰|"
                r"沃尔沃|吉利|长安|哈弗|领克|五菱|朗逸|卡罗拉|雅阁|思域|凯美瑞|轩逸|途观|帕萨特|Model ?[3YSX]|"
                r"(?:秦|宋|汉|唐|元)(?:PLUS|Plus|plus|EV|DM)|宏光|长城炮|坦克[345]00|捷达|桑塔纳|宝骏|传祺|红旗H[S\d]|奇瑞|零跑|埃安|荣威|名爵|"
                r"帝豪|瑞虎|速腾|迈腾|宝来|日产天籁|奇骏|汉兰达|普拉多")
#: Phone makes and lines ("我的Mate 60", "入手了iPhone 15 Pro", "my iphone 12", "switched to a Pixel").
PHONE_MAKES = (r"华为|小米|苹果|三星|荣耀|OPPO|oppo|vivo|一加|红米|魅族|诺基亚|iPhone|iphone|Mate|Pixel|pixel|Galaxy|galaxy|"
               r"Redmi|OnePlus|oneplus|Xiaomi|Huawei|Samsung|samsung|Motorola|moto")
# (not a price after the model: "买了个vivo 800多块")
_PHONE_MODEL = r"(?:\s?(?:\d+(?![\d]|多?[块元]|多|[wkK](?![A-Za-z])|刀)[A-Za-z]*|Pro|pro|Max|max|Plus|plus|mini|Ultra|ultra|Mate|mate|Pura|pura|nova|Nova|Note|note|Reno|reno|Find|find|Magic|magic|Fold\d*|fold\d*|Flip\d*|flip\d*|SE|se|XL|xl|[A-Za-z]\d+[A-Za-z0-9]*))*"
_EN_NUMBER_WORDS = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen)"
_EN_NUMBER = rf"(?:\d{{1,2}}|{_EN_NUMBER_WORDS})"
_EN_DATE = (r"(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?|"
            r"\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*|\d{1,2}/\d{1,2})")

#: What follows a word that makes it no place one lives in ("i'm in physio school", "im in nursing class").
_NOT_A_PLACE_NEXT = (r"(?i:school|class|classes|college|uni|university|year(?![- ]round)|grade|rehab|therapy|hospital|recovery|"
                     r"residency|program|programme|course)\b")

# (slot, compiled pattern, fixed value or None): the first match of a slot in a clause wins.
ZH_RULES: list[tuple[str, re.Pattern, str | None]] = [
    ("name", re.compile(r"我(?:其实|现在|本来|真的|就)?(?:叫|的名字是|的名字叫|名叫)\s*(?P<v>[\u4e00-\u9fffA-Za-z·]{1,12}?)(?=[，。！？；,.!?;\s]|$)"), None),
    ("name", re.compile(r"(?:我的名字|我名字)(?:其实|现在|已经)?(?:是|叫|改成了?|改为)\s*(?P<v>[\u4e00-\u9fffA-Za-z·]{1,12}?)"
                        r"(?=[，。！？；,.!?;\s]|$)"), None),
    # (not "表哥…叫我过去掌勺", "喊我回家吃饭": someone asking the user to go somewhere or do something)
    ("name", re.compile(r"(?<!别)(?<!不要)(?<!不用)(?:叫我|称呼我|喊我)\s*(?!过去|过来|回|去|帮|做|给|吃|喝|陪|别|一起|赶紧|快|加班|写|起床|上班|干活|开会|值班|"
                        r"出来|下来|上来|进来|睡觉|洗|买|拿|带|接|送)"
                        r"(?P<v>[\u4e00-\u9fffA-Za-z]{1,6}?)"
                        r"(?:就行|就好|就可以|吧|即可)?(?=[，。！？；,.!?;\s]|$)"), None),
    ("company_industry", re.compile(rf"(?:我们|我的|我)?公司(?:是|主要是|主要)?(?:做|从事|经营)(?P<v>{ZC}{{1,20}}?)(?:的|业务|行业|生意)"), None),
    ("company_industry", re.compile(rf"我们是做(?P<v>{ZC}{{1,20}}?)的"), None),
    ("company_industry", re.compile(rf"(?:我们|我的|我)公司是(?:一家|一个|家)?(?:做)?(?P<v>{ZC}{{1,20}}?)(?:公司|企业|品牌)?(?=[，。！？；,.!?;]|$)"), None),
    ("company_industry", re.compile(rf"业务(?:方向)?(?:已经|现在)?(?:改为|改成|转为|转向|调整为|转型为|转到|变成了?)(?P<v>{ZC}{{2,20}})"),
     None),
    ("company_industry", re.compile(rf"(?:公司|我们){ZC}{{0,8}}?(?:现在|目前)主要(?:做|从事|经营)(?P<v>{ZC}{{2,20}}?)(?:的|业务|行业|生意)?(?=[，。！？；,.!?;]|$)"),
     None),
    ("company_industry", re.compile(rf"我们是一家(?:做|从事)?\s*(?P<v>{ZC}{{1,20}}?)\s*的?(?:小|大|初创|创业)?(?:公司|企业|团队|品牌)"), None),
    ("company_industry", re.compile(rf"^(?:现在|目前)?主攻(?P<v>{ZC}{{2,20}})"), None),
    ("company_industry", re.compile(rf"^(?:现在|目前)?主要(?:做|从事|经营)(?P<v>{ZC}{{2,20}}?)(?:的|业务|行业|生意)?(?=[，。！？；,.!?;]|$)"),
     None),
    ("company_focus", re.compile(rf"主打(?P<v>{ZC}{{1,20}})"), None),
    # (chat's space is a comma: not "深圳南山做UI设计 每日开车" of "我在深圳南山做UI设计 每日开车上班"; a space between Latin words
    # is the name's own, "在Shopee Singapore上班")
    ("employer", re.compile(rf"(?:^|我)(?:现在|目前|已经|也|还)?(?:在|于)(?P<v>(?:(?!\s){ZC}|(?<=[A-Za-z])\s(?=[A-Za-z])){{1,20}}?)"
                            rf"(?:工作|上班|任职|实习)"), None),
    # "回国了 现在在深圳一家规划院上班": a chat piece of its own that says where the user works now.
    ("employer", re.compile(r"(?:(?<=\s)|^)(?:现在|目前)(?:在|于)(?![找努加外地家路车忙赶写做学在公单])(?P<v>[^，。！？；,.!?;\s]{2,20}?)"
                            r"(?:工作|上班|任职)(?=\s|$|了)"), None),
    ("employer", re.compile(rf"我是(?P<v>{ZC}{{2,15}}?)的{ZC}{{0,6}}?(?:{_ZH_TITLES})"), None),
    # An offer taken, at a piece's start ("拿了字节的offer 已经提离职了", "改主意了 接了米哈游的 上海"): where the user works next
    # (not someone else's, "我弟拿了腾讯的offer"; nor one weighed, lost or turned down: "拿了腾讯的offer 要不要去", "被毁约了")
    ("employer", re.compile(r"(?:^|(?<=[\s，,。！!]))(?:我)?(?:已经|刚|终于|最后)?(?:(?:拿了|拿到了?|接了|接受了|签了)(?P<v>(?![一两二三四五六七八九十几\d])"
                            r"[\u4e00-\u9fffA-Za-z&]{2,10}?)的\s?(?:offer|Offer|OFFER)|(?<=改主意了\s)接了(?P<w>[\u4e00-\u9fffA-Za-z&]{2,10}?)的"
                            r"(?=[\s，,。！!]|$))(?![^。！？?]{0,30}(?:要不要|该不该|纠结|犹豫|选哪|去不去|还没(?:想|决定)|毁约|黄了|拒了|拒绝|"
                            r"没去|还是留|最后还是|算了))"), None),
    # Where the user works, said by who they work with there ("我在全联的新主管要我下礼拜交…", "美团这边mentor让我两周内熟悉…"):
    # a company named, not a kind of place or a former one ("我在公司的领导", "我在上家公司的领导", "我在上海的同事": @org)
    ("employer", re.compile(r"(?:^|(?<=[\s，,。！!]))(?:欸|诶|哎|对了)?\s*(?:我在(?P<v>(?!公司|单位|厂|店|学校|医院|这|那|家|上家|前|老东家|原|之前|"
                            r"以前|实习)[\u4e00-\u9fffA-Za-z&]{2,10}?)的(?:新)?(?:主管|老板|领导|上司|经理|组长|店长|leader|mentor|Leader|Mentor|"
                            r"同事)|(?P<w>(?!公司|单位|甲方|乙方|物业|我们|你们|他们|咱们|这|那)[\u4e00-\u9fffA-Za-z&]{2,8}?)这边的?(?:新)?"
                            r"(?:leader|mentor|Leader|Mentor))"), "@org"),
    ("location", re.compile(rf"^\s*(?:我|我们)(?:现在|目前|人)?在(?P<v>{ZC}{{2,8}})$"), "@place"),
    # "我退休前是老师 现在在青岛 天天钓鱼": a chat piece of its own (spaces for commas) that says where the user is now.
    ("location", re.compile(r"(?:^|(?<=\s))(?:现在|目前)(?:人)?在(?P<v>[\u4e00-\u9fff]{2,3}?)(?=\s|$)"
                            r"(?!\s*(?:出差|开会|度假|旅游|旅行|转机|玩|培训|住院|看病|考试|比赛|参加|见客户))"), "@place"),
    ("location", re.compile(rf"(?:调到|派到|外派到|调去|派去)了?(?P<v>{ZC}{{2,8}}?)了?(?=[，。！？；,.!?;]|$)"), "@place"),
    ("employer", re.compile(rf"^\s*(?:我)?(?:现在|目前)?在(?P<v>{ZC}{{1,16}}(?:银行|公司|集团|大学|医院|中心|研究院|研究所|学院|科技|"
                            r"工作室|事务所|律所|厂|局|部门|团队))$"), None),
    # (not how long ago: "入职第一周累瘫"; nor when or what for: "入职是2021年7月", "入职体检要空腹吗")
    ("employer", re.compile(r"(?:跳槽到了?|跳槽去了?|入职了?|加入了?)(?!第|[一二两三四五六七八九十几半\d]+个?(?:天|周|星期|月|年)|以来|以后|后|时|前|那天|的|"
                            r"是|于|日期|时间|手续|材料|资料|体检|证明|通知|培训|报到|流程|面试|满|offer|登记|档案)"
                            r"(?P<v>[^，。！？；,.!?;\s]{1,20}?)(?:了|工作|上班)?(?=[，。！？；,.!?;\s]|$)"),
     None),
    ("employer", re.compile(rf"(?:^|我|(?<=[\s，,])|(?:^|[，,。！!～~\s])(?=现在|目前))(?:现在|目前)?在(?P<v>{ZC}{{1,15}}?)(?:做(?!了)|当|担任)\s?(?:{_ZW}{{0,8}}?(?:{_ZH_TITLES}|"
                            r"分析|开发|运营|设计|测试|销售|产品|研发|市场|财务|人事|客服|算法|咨询|增长|数据|内容|业务|商务|品牌|投资|风控|"
                            r"合规|法务|审计|采购|供应链|物流|用户|商家|策略|战略|招聘|行政|公关))"), None),
    ("job_title", re.compile(rf"(?:我是|我现在是|我目前是|现在是|目前是|升职为|升为|升了|升到|升成|直接升|已经升|升职成|转岗为|转成|当上了?|担任)(?:一名|一个|一位|个|名)?"
                             rf"(?P<v>{ZC}{{0,8}}?(?:{_ZH_TITLES})+)"), None),
    # (not past a trade said: "做古DNA的 导师让我…" is no 导师)
    ("job_title", re.compile(rf"在{ZC}{{1,15}}?(?:做|当)\s?(?P<v>{_ZW}{{0,8}}?(?:{_ZH_TITLES})+)"), None),
    ("job_title", re.compile(rf"(?:职位|岗位|职业|职务|title)(?:现在|目前|已经)?(?:是|为|改成了?|变成了?)(?P<v>{ZC}{{2,12}})"), None),
    ("location", re.compile(rf"我(?:现在)?(?:住在|定居在|生活在|搬到了?)(?P<v>{ZC}{{1,15}})"), None),
    ("location", re.compile(r"我(?:现在|目前|一直)?住(?![院宿的了过着在])(?P<v>[^，。！？；,.!?;\s]{2,8}?)(?=[，。！？；,.!?;\s]|$)"), "@place"),
    # "回国了 现在住深圳", "住工业园区这边": a chat piece of its own that says where the user lives now, at a known place
    # (a district the lists do not know, "现在住光谷这边", would replace the city it is in; "今晚 住西安" is a night's stay).
    ("location", re.compile(r"(?:^|(?<=\s))(?:(?:现在|目前)住(?:在)?(?P<v>[\u4e00-\u9fff]{2,4}?)(?:这边|那边|这块|附近)?|"
                            r"住(?:在)?(?P<w>[\u4e00-\u9fff]{2,4}?)(?:这边|那边|这块|附近))(?=\s|$)"), "@place"),
    ("location", re.compile(rf"搬来了?(?P<v>{ZC}{{2,6}}?)(?=才|以后|之后|后|了|的|这边|那边|[，,。！!？?\s]|$|"
                            r"[一两二三四五六七八九十几半\d]+个?(?:月|年|周|天|星期))"), "@place"),
    # (the place alone: "搬咗去珠海香洲同老公一齐住" is "珠海香洲")
    # (not a workplace's move: "我们局搬到新办公楼了", "公司搬去天府新区了")
    ("location", re.compile(rf"(?<!局)(?<!公司)(?<!单位)(?<!厂)(?<!店)(?<!部门)(?<!办公室)(?<!工作室)(?<!科室)"
                            rf"(?:搬到了?|搬了?去了?|搬家到了?|迁居到?)(?P<v>{ZC}{{1,15}}?)(?=(?:同|跟|和|与)[\u4e00-\u9fff]{{1,3}}?(?:一齐|一起)?住|"
                            rf"住|\s|$|[，。！？；,.!?;])"), None),
    # "我搬回扬州了": a known place moved back to (not someone else's move helped with, nor one planned)
    # ("已经搬回重庆老家了", "搬回老家重庆了": home again is where one lives now)
    ("location", re.compile(r"(?<![帮替想要])(?<!打算|准备|计划|考虑|明年|以后|年底|过年)(?<!下个月|下半年)搬回(?:到|了)?(?:老家)?(?P<v>[\u4e00-\u9fff]{2,3}?)(?=老家|了|住|来|去|[，,。！!\s]|$)"),
     "@place"),
    # "人在成都高新区", "base北京": a chat piece of its own that gives where the user is, at a known place (not "人在外地出差")
    ("location", re.compile(r"(?:^|(?<=[\s，,]))(?:(?:现在|目前)?人在|(?:现在|目前|下个?月|明年|之后)?base在?\s?)(?P<v>[\u4e00-\u9fff]{2,3}?)(?=[\u4e00-\u9fff]{0,4}(?:区|县|镇)?(?:\s|[，,。！!]|$))"
                            r"(?![^，,。！!]{0,6}(?:出差|开会|度假|旅游|旅行|转机|玩|培训))"), "@place"),
    # "人也搬上海了", "坐标北京望京": a known place moved to, or given as where one is
    ("location", re.compile(r"(?:^|(?<=[\s，,。！!]))(?:去年|今年|前年|上个月|刚|人|我|我们)?(?:也|都|已经)?搬(?![家走出进回到去来])"
                            r"(?P<v>[\u4e00-\u9fff]{2,3}?)了"), "@place"),
    # "新家在荆州古城边上", "新家是在章贡区": where the new home is
    ("location", re.compile(r"新家(?:是)?(?:在|安在)(?P<v>[\u4e00-\u9fff]{2,3}?)(?=古城|市区|城区|这边|那边|附近|边上|[\s，,。！!]|$)"), "@place"),
    ("location", re.compile(r"坐标[:：]?\s*(?P<v>[\u4e00-\u9fff]{2})(?=[\u4e00-\u9fff]{0,3}(?:\s|$|[，,。！!]))"), "@place"),
    ("location", re.compile(r"坐标[:：]?\s*(?P<v>[\u4e00-\u9fff]{3})(?=[\u4e00-\u9fff]{0,3}(?:\s|$|[，,。！!]))"), "@place"),
    ("location", re.compile(rf"我{ZC}{{0,3}}?(?:人在|常驻|定居在?|base在|驻扎在)(?P<v>{ZC}{{1,15}}?)"
                            rf"(?:上班|工作|生活|了)?(?=[，。！？；,.!?;]|$)"), None),
    # a technology is named in Latin letters here: "换成超级猩猩了" is a gym, "能换成别的吗" a request
    ("tech_stack", re.compile(rf"(?:已经|现在)?(?:迁到|迁移到|换成|切换到|切到|转到|换到|改用|迁移至)了?"
                              rf"(?P<v>(?=[^，。！？；,.!?;]*?[A-Za-z]){ZC}{{1,30}}?)了?(?=[，。！？；,.!?;]|$)"), None),
    ("tech_stack", re.compile(r"(?:技术栈|数据库|后端|前端|框架|开发语言)(?:是|用的是|用|为|：|:)(?P<v>[^，。！？；、,.!?;:\n：\s]{1,30}?)"
                              r"(?:比较多|为主|居多|多一些|多点)?(?=[，。！？；、,.!?;:\s]|$)"), None),
    ("tech_stack", re.compile(r"(?:我们|我)[^，。！？；,.!?;]{0,6}?(?:用的是|使用|在用|用)\s*(?P<v>[A-Za-z][A-Za-z0-9.+#\-]*(?:\s*(?:和|、|/|\+)\s*[A-Za-z][A-Za-z0-9.+#\-]*)*)"), None),
    ("tech_stack", re.compile(r"用(?P<v>[A-Za-z][A-Za-z0-9.+#\-]*)(?:写|开发|搭建|实现|构建)"), None),
    ("tech_stack", re.compile(r"(?:主要|平时|一直|都|现在)(?:写|用|使用|在用|开发)(?P<v>[A-Za-z][A-Za-z0-9.+#\-]*(?:\s*(?:和|、|/|\+)\s*[A-Za-z][A-Za-z0-9.+#\-]*)*)"),
     None),
    ("budget", re.compile(rf"预算(?:一个月|每个?月|一年|每年|一周|每周|一晚|每晚|一天|每天|一个人|每人|人均)?[^，。！？；,.!?;0-9０-９一二两三四五六七八九十]{{0,8}}?\s*(?P<v>{_NUM}(?:以内|以下|左右|上下|封顶)?)"), None),
    # (not a question of which is the better buy: "丝巾哪个牌子性价比高", "推荐个性价比高的")
    ("budget", re.compile(r"预算(?:不多|有限|紧张|不高|很少|少|不足)|低成本|成本低|控制成本|省钱|少花钱|"
                          r"(?<!哪个)(?<!哪款)(?<!哪家)(?<!哪种)(?<!牌子)(?<!什么)(?<![个谁的\s])性价比高(?![吗嘛呢的？?])"), "低成本"),
    # the language of the answers ("以后你回答我都用英文吧", "还是用中文回我吧"): the language alone, not what follows it
    ("reply_style", re.compile(r"(?:回答|回复|(?<![妈爸他她])回)我?(?:都|就|请|要|还是)?(?P<v>用(?:中文|华语|华文|国语|普通话|英文|英语|日语|日文|粤语|繁体中文|简体中文|繁体|简体))"), None),
    ("reply_style", re.compile(r"(?<![妈爸他她们])(?P<v>用(?:中文|华语|华文|国语|普通话|英文|英语|日语|日文|粤语|繁体中文|简体中文|繁体|简体))(?:来)?回(?:我|复我|答我)(?!的)"), None),
    # (the wish ends at a space before other words: "以后回答都简短点 我在地铁上看" is "简短点")
    ("reply_style", re.compile(r"(?:以后|今后|往后|之后|请|希望你?)(?:你的?)?(?:回答|回复)(?:都|时|要|请|的时候)?(?P<v>[^，。！？；、,.!?;:\n：\s]{2,20})"), None),
    ("reply_style", re.compile(r"(?:回答|回复)(?:要|请)?(?P<v>简洁|简短|详细|用中文|用英文)"), None),
    ("reply_style", re.compile(r"(?:以后|今后|还是|一直|每次|从现在起)(?:都|请|就)?(?P<v>简短|简洁|详细|精简|具体)(?:一)?(?:点|些)"), None),
    ("reply_style", re.compile(r"(?:以后|今后|从现在起|往后)(?:你)?(?:就|都|请)?(?P<v>(?:直接|先)给结论|直接说重点|说重点|分点列出|用表格)"), None),
    # "你说话简单点别太长 我眼神不好"
    ("reply_style", re.compile(r"(?<!这题)(?<!这个)(?<!这段)(?<!这句)(?:你|跟我)(?:说话|讲话|回答|回复)(?:都|就|请|要)?(?P<v>(?:简单|简短|简洁|短|通俗|直白)(?:一)?(?:点|些)"
                               r"(?:\s?别太长)?)"), None),
    ("reply_style", re.compile(r"(?P<v>用(?:中文|华语|华文|国语|普通话|英文|英语|日语|日文|粤语|繁体中文|简体中文|繁体|简体))(?:来)?(?:回答|回复|交流|沟通|跟我说|写)"),
     None),
    ("reply_style", re.compile(r"(?:跟我|和我|对我)(?:说话|聊天|交流|沟通)(?:都|请|要)?(?P<v>用(?:中文|英文|英语|日语|日文|粤语|繁体中文|简体中文))"),
     None),
    ("reply_style", re.compile(r"(?P<v>直接给(?:我)?(?:代码|答案|结论|书名|链接|步骤|命令|方案|名字|清单)|(?:不用|不需要|别)(?:太多|那么多|长篇)?解释(?:太多|那么多)?)"),
     None),
    ("diet", re.compile(r"(?P<v>不吃(?:辣|肉|海鲜|猪肉|牛肉|香菜|葱|蒜|鸡蛋)|吃素|素食(?:者|主义者)?|对[^，。！？；,.!?;]{1,6}过敏)"), None),
    ("diet", re.compile(r"(?P<v>(?:不能|不会|不敢|从不|不)喝酒|滴酒不沾|酒精过敏|戒酒了?)"), None),
    ("diet", re.compile(rf"(?:改成|改为|换成|开始|现在|在|算是|是|吃)(?P<v>{_DIET_STYLES})(?:饮食)?"), None),
    ("diet", re.compile(r"(?:是|有)(?P<v>[\u4e00-\u9fff]{1,4}?过敏)"), None),
    # (what is not tolerated, not the words before it: "对了我乳糖不耐受" is "乳糖不耐受")
    ("diet", re.compile(r"(?P<v>(?:(?![了我是有对就都也还])[\u4e00-\u9fff]){1,4}不耐受?)"), None),
    ("do_not_recommend", re.compile(rf"(?:下次|以后|今后)?(?:别|不要|不用|无需)再?(?:给我)?推荐(?P<v>{ZC}{{1,20}})"), None),
    ("do_not_recommend", re.compile(rf"(?:含|有)?(?P<v>{ZC}{{1,10}}?)的?(?:都)?(?:别|不要)(?:再)?(?:给我)?推荐了?(?=[，。！？；,.!?;]|$)"), None),
    # (a body that cannot take it is no dislike: "手受不了 现在跑快递")
    ("dislikes", re.compile(rf"(?:不(?:太|怎么|大)?喜欢|讨厌|不爱|(?<![手脚腰腿背眼头脖膝肩])(?<!膝盖)(?<!脖子)(?<!眼睛)(?<!肩膀)(?<!颈椎)(?<!腰椎)受不了|反感)(?P<v>{ZC}{{1,20}})"), None),
    ("unlikes", re.compile(rf"(?:不再|已经不)(?:喜欢|爱|偏好)(?P<v>{ZC}{{1,20}})"), None),
    ("likes", re.compile(rf"我(?:很|非常|比较|特别|最|更|也|一直|超|超级|真的|挺|蛮|好)?(?:喜欢|爱|偏好|倾向于)(?P<v>{ZC}{{1,20}})"), None),
    ("likes", re.compile(rf"(?:迷上了?|爱上了?|喜欢上了?|热衷于|沉迷于?|入坑了?)(?P<v>{ZC}{{1,20}})"), None),
    ("likes", re.compile(rf"(?:^|，|\s)(?:(?:现在|最近|如今)(?:更|比较|还是|最)?|最)(?:喜欢|爱)(?P<v>{ZC}{{1,20}})"), None),
    ("likes", re.compile(rf"(?:最爱|最喜欢)的是(?P<v>{ZC}{{1,20}})"), None),
    ("likes", re.compile(rf"(?<![我不])(?:偏好|倾向于)(?P<v>{ZC}{{1,20}})"), None),
    ("likes", re.compile(rf"(?:平时|周末|业余|空闲时|没事|下班)[^，。！？；,.!?;]{{0,4}}?(?:很|比较|特别|也|就)?(?:喜欢|爱)(?P<v>{ZC}{{1,20}})"),
     None),
    ("decision", re.compile(rf"(?:决定(?:了)?(?:选|选择|用|采用)?了?|选了|选择了|定了|敲定了?|最终选)(?P<v>{ZC}{{1,30}})"), None),
    ("feedback", re.compile(rf"(?P<v>(?:你(?:上次|刚才|之前)(?:的|说的|给的)?(?:回答|建议|方案|答案)?|(?:上次|刚才|之前)(?:的|说的|给的)?"
                            rf"(?:回答|建议|方案|答案)){ZC}{{0,6}}(?:不对|错了|有用|很好|太长|太短|没用|不准确){ZC}{{0,10}})"), None),
    ("event", re.compile(rf"(?P<v>我(?:们)?(?:刚|刚刚|上周|昨天|上个月|今年|去年|前几天)?(?:去了|参加了|搬家到|买了|入职了|加入了|完成了|拿到了|生了|结婚了|毕业了|升职了|换了工作){ZC}{{0,30}})"), None),
    ("birthday", re.compile(rf"我(?:的)?生日(?:其实|应该|本来|现在|实际上)?(?:是|在)?(?P<v>{_ZH_DATE})"), None),
    # "对了 生日是3月21": a piece led by 生日 (not "我妈生日是…": someone named before it)
    # the date between ("hi 我7月23生日 想在家里搞个小party")
    ("birthday", re.compile(r"我(?:的)?(?P<v>[0-9０-９一二三四五六七八九十]{1,3}月[0-9０-９一二三四五六七八九十]{1,3}[日号]?)\s?(?:是|过)?生日"), None),
    # the date first ("ok 3/14 我生日 想请同事喝", "11.3我生日")
    ("birthday", re.compile(rf"(?:^|(?<=[\s，,。！!]))(?:(?i:ok|okay)\s?|好\s?|对了\s?)?(?P<v>{_ZH_DATE})\s?(?:是)?我(?:的)?生日(?!还是|吗|吧|来着|呢)"), None),
    ("birthday", re.compile(rf"(?:^|(?<=[\s，,。！!]))(?:对了|其实|哦|噢)?\s*生日(?:其实|应该|本来|实际上)?(?:是|在)(?P<v>{_ZH_DATE})"), None),
    # A shop of one's own in a town ("在自贡开了个小铺子 主要卖自家做的冷吃兔"): where the user is, and what it sells.
    ("location", re.compile(r"(?:^|[\s，,。！!]|我|现在|目前|如今)在(?P<v>[\u4e00-\u9fff]{2,4}?)(?:古城|古镇|老城|市区|郊区|乡下|这边|那边)?"
                            r"开了?(?:个|家|一家|间|一间)(?![房会单药刀车])"), "@place"),
    # where the user stays ("报到了 在格尔木 住单位宿舍"): a known place, then where they sleep
    ("location", re.compile(r"(?:^|[\s，,。！!]|我|现在|目前|如今)在(?P<v>[\u4e00-\u9fff]{2,4}?)[\s，,]*(?:住|租了)(?:单位|公司|厂里|员工)?(?:宿舍|房子|房|公寓|单间)"),
     "@place"),
    ("company_focus", re.compile(r"(?:^|[\s，,。！!]|我们?|店里|铺子)(?:主要|专门)卖(?P<v>[^，。！？；,.!?;\s]{2,12})"), None),
    # The user's own age ("我今年38了", "我都45岁了"); "我儿子8岁" is the child's.
    ("age", re.compile(r"(?:^|[，,。！!\s])我(?:今年|现在|已经|都|也)*(?P<v>[1-9]\d|[二三四五六七八九]?十[一二三四五六七八九]?)岁"), None),
    ("age", re.compile(r"(?:^|[，,。！!\s])我(?:今年|现在)(?:已经|都)?(?P<v>[1-9]\d)(?:了|岁)"), None),
    # a birthday just had ("上周刚过完27岁生日", "我26了"; not someone's: "给我妈过60岁生日", "儿子刚过完6岁生日")
    ("age", re.compile(r"(?:^|(?<=[，,。！!\s]))(?:我(?:上周|上个月|昨天|前天|今天|前几天|刚刚?)*|(?:上周|上个月|昨天|前天|今天|前几天)刚?)"
                       r"(?:过完|过了)了?(?P<v>[1-9]\d)岁生日"), None),
    ("age", re.compile(r"(?:^|(?<=[，,。！!\s]))我(?:都|也)?(?P<v>[1-9]\d)了(?=$|[\s，,。！!]|哈|啊|呀)"), None),
    ("pet", re.compile(rf"(?:我家|我养的|我的|家里)的?(?:那只|这只|那条|这条|一只|只)?(?P<v>{ZC}{{0,4}}(?:{ZH_PETS})(?:叫|名叫|名字叫)[\u4e00-\u9fffA-Za-z]{{1,6}})"), None),
    # A pet named in Latin letters after its kind, a breed in English too ("另外我的猫 Oreo 最近一直吐", "我家那只golden叫Lucky")
    ("pet", re.compile(rf"(?:我家|我养的|我的|家里)的?(?:那只|这只|那条|这条|只)?\s?(?P<v>(?:{ZH_PETS}|(?i:{EN_PETS}|golden))\s?"
                       rf"(?:叫|名叫|名字叫)?\s?[A-Z][a-z]{{1,10}})(?![A-Za-z]|的)"), None),
    ("pet", re.compile(rf"(?:我|我家|家里)(?:新|刚)?养了(?P<v>(?:一|两|三|[0-9])?(?:只|条|个)?{ZC}{{0,4}}(?:{ZH_PETS})(?:，?(?:叫|名叫)[\u4e00-\u9fffA-Za-z]{{1,6}})?)"), None),
    # "儿子8岁，…": Chinese drops the "我" before the household's own.
    ("child", re.compile(r"(?:我|我家|^|(?<=[，,。！？!?\s]))(?:的)?(?P<v>(?:儿子|女儿|孩子|闺女|宝宝|大宝|二宝|娃)(?:今年|现在|才|刚)?(?:其实)?(?:是)?(?:[0-9一二三四五六七八九十两]+(?:岁|个月)半?|上(?:幼儿园|小学|初中|高中|[一二三四五六]年级)))"), None),
    # A child named before what is said of them: "我女儿朵朵在上幼儿园中班", "儿子乐乐今年8岁".
    ("child", re.compile(r"(?:我|我家|^|(?<=[，,。！？!?\s]))(?:的)?(?P<v>(?:儿子|女儿|闺女|大宝|二宝)[\u4e00-\u9fff]{2}(?:今年|现在|才|刚|在|已经)?"
                         r"(?:[0-9一二三四五六七八九十两]+(?:岁|个月)半?|上(?:幼儿园|小学|初中|高中|[一二三四五六]年级)(?:[小中大]班)?))"), None),
    # A child's name said with 叫: "女儿叫朵朵 满七岁了", "我儿子小名叫豆豆".
    ("child", re.compile(r"(?:我|我家|^|(?<=[，,。！？!?\s]))(?:的)?(?P<v>(?:儿子|女儿|闺女|大宝|二宝)(?:小名|大名)?(?:叫|名叫)"
                         r"[\u4e00-\u9fffA-Za-z]{1,4}?)(?=[，。！？；,.!?;\s]|$)"), None),
    ("partner", re.compile(r"我(?:的)?(?P<v>(?:老公|老婆|男朋友|女朋友|对象|未婚夫|未婚妻)(?:叫|名叫)[\u4e00-\u9fffA-Za-z]{1,6})"), None),
    # A brother, a sister or a parent by name and age, or by name ("我弟豆豆今年8岁", "我妈50岁大寿", "我妹叫小雨"): who they are
    # to the user, not what they do.
    ("family", re.compile(r"(?:我|我家|^|(?<=[，,。！？!?\s]))(?:的)?(?P<v>(?:弟弟|妹妹|哥哥|姐姐|老弟|老妹|弟|妹|哥|姐|妈妈|爸爸|老妈|老爸|妈|爸)"
                          r"(?:(?!们)[\u4e00-\u9fff]{2}(?=今年|现在|才|刚|已经|都))?(?:今年|现在|才|刚|已经|都)?(?:[1-9][0-9]?|[一二三四五六七八九十两]{1,3})岁半?)"
                          r"(?![0-9一二三四五六七八九十]|的时候|那年|时|就)"), None),
    ("family", re.compile(r"我(?:的)?(?P<v>(?:弟弟|妹妹|哥哥|姐姐|老弟|老妹|弟|妹|哥|姐)(?:小名|大名)?(?:叫|名叫)(?![我你他她它咱])[\u4e00-\u9fffA-Za-z]{1,4}?)"
                          r"(?=[，。！？；,.!?;\s]|$)"), None),
    # named with no 叫: "我老婆林芸说想提前准备待产包" (a surname, then what she does)
    ("partner", re.compile(rf"我(?:的)?(?P<v>(?:老公|老婆|男朋友|女朋友|未婚夫|未婚妻)"
                           r"(?!周[末一二三四五六日天]|曾经|夏天|许愿|段位|严格|戴着|郑重|孙子|孙女|陈年|杨梅|苏醒|程度|何必)"
                           rf"(?:[{_ZH_SURNAMES}][\u4e00-\u9fff]{{1,2}}?|阿(?![姨婆公爸妈伯叔嫂奶爷])[\u4e00-\u9fff]))"
                           r"(?=说|跟我|和我|让我|觉得|非要|下周|下个月|生日|[\s，,。！!？?]|$)"), None),
    ("car", re.compile(rf"我(?:的车是|开的是|开一辆|开辆|开着)(?P<v>{ZC}{{2,15}})"), None),
    # (the model, not the plan after a space: "车是理想L7 想搞车尾帐")
    ("car", re.compile(r"车是(?P<v>[\u4e00-\u9fffA-Za-z0-9+-]{2,15}(?: [A-Za-z0-9+-]{1,8})?)(?![\u4e00-\u9fffA-Za-z0-9])"), None),
    # a car changed, said by the new one ("车换好了 埃安S 落地9万8")
    ("car", re.compile(rf"(?:^|(?<=[\s，,。！!]))(?:我的?)?车(?:子)?(?:已经|终于)?(?:换好了|提了|提回来了|到手了)[\s，,]*"
                       rf"(?P<v>(?:{CAR_MAKES_ZH})(?:[A-Za-z0-9]{{1,6}})?)(?![\u4e00-\u9fff])"), None),
    # "周末开我的秦PLUS去橘子洲", "我那辆二手五菱宏光扛得住吗": a make the word lists know, said as the user's
    ("car", re.compile(rf"(?:开(?:我|我家|咱家)的?|我(?:那|这|的那|的这)辆(?:二手的?|新的?|老的?)?)(?P<v>(?:{CAR_MAKES_ZH})[A-Za-z0-9\u4e00-\u9fff]{{0,4}}?)"
                       rf"(?=去|来|回|上|跑|扛|还|能|都|也|了|[\s，,。！!？?]|$)"), None),
    ("car", re.compile(rf"(?:新|刚)(?:提|买|换)的(?:车是?)?(?P<v>(?:{CAR_MAKES_ZH})[A-Za-z0-9]{{0,6}})"), None),
    # "我的理想L6后排放平能睡俩人吗", "我那台宝马X3": a make and a model code with a letter, said as the user's (not "我的理想30岁…")
    ("car", re.compile(rf"我(?:的|那台|这台|那辆|这辆)(?P<v>(?:{CAR_MAKES_ZH})\s?[A-Za-z]{{1,3}}\d{{0,4}}[A-Za-z]{{0,4}})(?![A-Za-z0-9])"), None),
    # Said with no subject at a clause's start, a car make named: "刚提了理想L6😎", "终于入了辆比亚迪海豹".
    ("car", re.compile(rf"(?:^|[，,。！!～~\s])(?:刚刚?|新|终于|已经|上周|昨天|现在|进货|上班|平时|通勤|拉货|送货|跑车)?(?:提了|入了|买了|换了|提车|开的是|开着)(?:一辆|辆|台|一台)?"
                       rf"(?:(?:20)?\d{{2}}年的?|(?:新|二手|旧)的?)?(?P<v>(?:{CAR_MAKES_ZH})(?:[A-Za-z0-9]{{1,6}}|[\u4e00-\u9fff]{{0,4}}?))"
                       rf"(?=了|[，。！？；,.!?;\s～~]|$|[\U0001F300-\U0001FAFF\u2600-\u27BF])"), None),
    # "我这边现在是伦敦时间了": the user's time zone, and where they are (rules.py reads the place from it).
    ("timezone", re.compile(r"(?:我这边|我这里|我们这边|我)(?:现在|目前|已经)?(?:是|用的?是?|按|在)?(?P<v>[\u4e00-\u9fff]{2,5}?)时间"),
     "@place"),
    # ("我这台Mate 60": "this one of mine" with a model number, not "我那个华为的同事", "我那个苹果还没吃完")
    ("phone", re.compile(rf"我(?:这|那)(?:台|部)(?P<v>(?:{PHONE_MAKES})\s?(?:[A-Za-z]+\s?)?\d+[A-Za-z]*(?:\s?(?:Pro|pro|Max|max|Plus|plus|"
                         rf"Ultra|ultra|mini))*)(?![\dA-Za-z])"), None),
    ("phone", re.compile(rf"(?:我的|我用的是?|我在用|换了|换成了?|换到|入手了?|入了|买了|新买的|刚换的)(?:一台|台|部|个)?(?:新的?)?"
                         rf"(?P<v>(?:{PHONE_MAKES}){_PHONE_MODEL})(?!\s?(?:手环|手表|电视|音箱|平板|笔记本|电脑|耳机|路由器|扫地机|"
                         rf"空调|冰箱|洗衣机|汽车|SU7|YU7|Watch|watch|Pad|pad|Buds|buds|Band|band))(?:手机)?"), None),
    # ("新手机mate60 怎么把微信聊天记录从苹果导过来", "用的iPhone12 电池不行了": chat drops the "我")
    # (not one bought for someone, nor one still being chosen: "给我妈买的新手机是小米14", "用的是小米14还是iPhone15好")
    ("phone", re.compile(rf"(?<!买的)(?:新手机(?:是|换成了?)?|手机换成了?|(?:^|(?<=[\s，,]))用的是?)\s?(?P<v>(?:{PHONE_MAKES}|mate){_PHONE_MODEL})"
                         rf"(?<=\d|[A-Za-z])(?![^，,。！？!?\s]{{0,12}}还是)(?!\s?(?:手环|手表|电视|音箱|平板|笔记本|电脑|耳机|路由器|扫地机|空调|冰箱|洗衣机|汽车|SU7|YU7|"
                         rf"Watch|watch|Pad|pad|Buds|buds|Band|band))"), None),
    ("car", re.compile(rf"(?:我们家|咱家|我家|我们|我|家里)(?:的车)?(?:新|刚|终于|已经|现在)?(?:买了|换了|提了|开的是|开着|换成了?|提车了?)(?:一辆|辆|台|一台)?"
                       rf"(?P<v>(?:{CAR_MAKES_ZH}){ZC}{{0,6}}?)(?=了|[，。！？；,.!?;]|$)"), None),
    ("instrument", re.compile(r"我(?:会|在学|学了|一直在)?(?:弹|拉|吹|打)(?P<v>钢琴|吉他|古筝|古琴|小提琴|大提琴|尤克里里|架子鼓|二胡|长笛|萨克斯|琵琶|贝斯)"), None),
    ("education", re.compile(rf"我(?:在)?(?P<v>{ZC}{{2,10}}(?:大学|学院))(?:读|上学|念书|上大|读研|读博|毕业)"), None),
    ("education", re.compile(rf"我(?:是|读的是|学的是|读|学)(?P<v>{ZC}{{2,8}})专业"), None),
    ("health", re.compile(r"我(?:有|得了|患有|一直有)(?P<v>哮喘|糖尿病|高血压|胃病|胃炎|偏头痛|腰椎间盘突出|抑郁症|焦虑症|鼻炎|痛风|甲亢|贫血)"), None),
    ("commute", re.compile(rf"我(?:每天)?(?P<v>(?:坐|搭|骑|开车|走路){ZC}{{0,10}}?)(?:上班|通勤|上学)"), None),
    ("project", re.compile(rf"(?:我在做|我做了|我的)(?:一个|个)?{ZC}{{0,6}}(?:项目|app|App|APP|小程序|副业|网站|公众号)(?:叫|名叫|名字叫)(?P<v>{ZC}{{1,15}})"), None),
]

_I = re.IGNORECASE
EN_RULES: list[tuple[str, re.Pattern, str | None]] = [
    # "Hi, Tom here" (not "Summer here is brutal")
    ("name", re.compile(r"(?:^|[,!.]\s*)(?:hey|hi|hello)?,?\s*(?P<v>[A-Z][a-z'-]+) here\b"
                        r"(?!\s+(?:is|was|are|were|has|had|gets|got|feels|seems|sucks|rocks|lasts)\b)"), None),
    ("name", re.compile(r"\b(?i:my name is|my name's|name's) (?P<v>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?)"), None),
    ("name", re.compile(r"\b(?i:call me|I (?:\w+ly )?go by)(?i: my (?:middle |nick)?name,?)? (?P<v>[A-Z][\w'-]*)"), None),
    ("name", re.compile(r"\b[Ii](?:'m| am) (?P<v>[A-Z][a-z'-]+(?: [A-Z][a-z'-]+)?)(?=\s*(?:,|\.|!|$|\bby the way\b|\bbtw\b|\bhere\b|\band\b))"),
     None),
    # A name as written ("I work at Greggs on weekends": the name, not what follows it).
    ("employer", re.compile(r"\bI (?:now |also |currently |still )?(?:work|am working|'m working) (?:at|for) "
                            r"(?P<v>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,3})"), None),
    ("employer", re.compile(rf"\bI (?:now )?(?:work|am working|'m working) (?:at|for) (?P<v>{_EC}{{1,40}}?)(?= as | now\b|$|[,.;!?])", _I), None),
    # "I work as a pharmacist at Walgreens": the employer after the role, and the role.
    ("employer", re.compile(r"\bI (?:now |currently )?(?:work|am working|'m working) as an? (?:[\w-]+ ){1,3}?(?:at|for|with) "
                            r"(?P<v>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,3})"), None),
    ("job_title", re.compile(r"\bI (?:now |currently )?(?i:work|am working|'m working) as (?P<v>an? [\w-]+(?: [\w-]+){0,2}?)"
                             r"(?= at\b| for\b| with\b| in\b|[,.;!?]|$)"), None),
    ("employer", re.compile(r"\b(?:I|and)(?:'ve| have)? (?:just |recently |then )?(?:joined|started at|moved to|switched to) "
                            r"(?P<v>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,3})"), None),
    ("employer", re.compile(r"\b(?:new |my |the )?(?:job|role|position|gig|internship) (?:at|with) (?P<v>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,3})"),
     None),
    ("employer", re.compile(r"\b(?:first (?:day|week|month) at|(?:consulting|interning|working|started) at|(?:work|working) for) "
                            r"(?P<v>(?!home\b|night\b|nights\b|the\b|a\b|an\b|my\b|our\b|this\b|that\b|least\b|all\b|it\b|"
                            r"weekends?\b|work\b|school\b|the office\b)[A-Za-z][\w&.'-]*)(?= (?:done|and|so|but|now|since|for|as)\b|[,.;!?]|$)"),
     None),
    ("employer", re.compile(r"\bI(?:'m| am) (?:now |currently )?(?:at|with) (?P<v>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,3})"), None),
    # Years at a company: "been at deloitte toronto for 3 years", "I've been with Aviva for 6 yrs" (not "at the gym").
    ("employer", re.compile(r"(?:^|\bI(?:'ve| have)? |\bive |[!.,;]\s*)been (?:at|with) (?P<v>(?!the\b|a\b|an\b|my\b|our\b|home\b|it\b|"
                            r"this\b|that\b|work\b|school\b|uni\b)[A-Za-z][\w&.'-]*)(?: [a-z]+)? for (?:\d+|a few|several|many|"
                            r"two|three|four|five|six|seven|eight|nine|ten)\+? (?:years?|yrs?|months?)\b", re.IGNORECASE), None),
    # Where the user works, said by what they do for it ("I do tech support for Apple out at Hollyhill"); by who they work
    # with there, see WORKMATE_AT_RE.
    ("employer", re.compile(r"(?<!weekends )(?<!sundays )(?<!saturdays )\bI (?:now |currently |still )?do (?i:tech support|IT support|"
                            r"support|IT|contract work|consulting|marketing|sales|accounts|payroll|design|dev work|engineering|"
                            r"research|QA|security|ops|HR|recruiting|customer service)(?: work)? for "
                            r"(?P<v>[A-Z][\w&.'-]*(?: (?!I\b)[A-Z][\w&.'-]*){0,2})(?! (?:on (?:the side|weekends|sundays|saturdays)|"
                            r"as a (?:volunteer|side)))"), None),
    # ...or by its orientation ("orientation on the med-surg floor at AdventHealth is brutal").
    ("employer", re.compile(r"(?<!his )(?<!her )\b(?i:orientation) (?:week |day )?(?:on|at|for) (?:the |my )?(?:[\w-]+ ){0,3}?at "
                            r"(?P<v>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,2})"), None),
    # A new job's start, the company named: "first day at Duolingo is the 3rd", "I start at Canva on Monday".
    ("employer", re.compile(r"\b(?:[Ff]irst (?:day|week) at|I (?:start|begin) at|[Ss]tarting at) (?!\w+day\b|(?:Jan|Feb|Mar|"
                            r"Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b|Noon\b|Midnight\b)(?P<v>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,2})"), None),
    ("employer", re.compile(r"(?:^\s*|,\s*|\b(?:and|so)\s+)(?:now|currently) (?:at|with) (?P<v>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,3})"),
     None),
    ("employer", re.compile(r"\bI(?:'m| am|'ve been| have been) (?:now |currently )?(?:an?|the new) (?:[\w-]+ ){1,3}?(?:at|with|for) "
                            r"(?P<v>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,3})"), None),
    ("job_title", re.compile(
        r"\bI(?:'m| am) (?:now )?(?P<v>an? (?:[\w-]+ ){0,2}(?:engineer|developer|manager|designer|doctor|teacher|lawyer|"
        r"student|founder|consultant|researcher|nurse|writer|artist|accountant|scientist|counselor|analyst|architect)"
        r"(?: (?:practitioner|manager|lead|engineer|scientist|analyst|director|designer))?)\b", _I), None),
    ("job_title", re.compile(rf"\b(?:promoted to|hired as|started as|starting as|now work as|became|officially) (?:an? )?"
                             rf"(?P<v>(?:[\w-]+ ){{0,3}}(?:{_EN_TITLES}))\b", _I), None),
    ("job_title", re.compile(rf"\b(?:as|I(?:'m| am|'ve been| have been)(?: now| officially| currently| also|\s\w+ly)*) (?:an?|the new) "
                             rf"(?P<v>(?:(?!(?:at|for|with|in|from|on|of|and)\b)[\w-]+ ){{0,3}}(?:{_EN_TITLES})(?: (?:practitioner|manager|lead|engineer|scientist|analyst|"
                             rf"director|designer))?)\b", _I), None),
    # A clause that is only a title at a company ("started my new job monday!! financial analyst at Shopify."):
    # the user's own, as chat drops the "I'm".
    # (a parenthesis after the company goes with it: "frontend dev at Wayfair (Boston office)"; "the" before a company
    # named in capitals: "now an investigator at the Sacramento County Public Defender.")
    ("job_title", re.compile(rf"^\W*(?:now |currently )?(?:an? )?(?P<v>(?:[\w-]+ ){{0,2}}(?:{_EN_TITLES})) (?:at|for|with) "
                             rf"(?:the )?[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){{0,3}}(?:\s*\((?![^()]*\d{{4}})[^()]{{1,40}}\))?\W*$", _I), None),
    ("employer", re.compile(rf"^\W*(?:now |currently )?(?:an? )?(?:[\w-]+ ){{0,2}}(?:{_EN_TITLES}) (?:at|for|with) "
                            rf"(?:(?i:the) )?(?P<v>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){{0,3}})(?:\s*\((?![^()]*\d{{4}})[^()]{{1,40}}\))?\W*$"), None),
    # A title at a company said in a parenthesis ("the real data is all in snowflake at work anyway (DS at Instacart)")
    ("employer", re.compile(rf"\((?:(?i:i'm|im|i am) )?(?:(?i:an?) )?(?:[\w-]+ ){{0,2}}(?:{_EN_TITLES}|DS|MLE|SDE|SWE|DE|UX|UI) (?i:at|for|with) "
                            rf"(?:(?i:the) )?(?P<v>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){{0,3}})\)"), None),
    # Years or weeks at a company, with no "I" ("been working at Yarmouth Regional for 3 weeks now").
    ("employer", re.compile(r"(?:^|[!.,;]\s*|\bI(?:'ve| have)? |\bive )been working (?:at|for) (?P<v>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,3})"
                            r"(?= for \w+ (?i:years?|yrs?|months?|weeks?|days?)\b)"), None),
    ("company_industry", re.compile(rf"\b(?:our|my) company (?:is in|does|makes|sells|builds|is an?|works in) (?P<v>{_EC}{{1,40}})", _I), None),
    ("company_industry", re.compile(rf"\bwe(?:'re| are) (?:now |basically |essentially |officially |\w+ly )*an? (?P<v>{_EC}{{1,30}}?) "
                                    rf"(?:company|brand|startup|business|firm|shop)\b", _I), None),
    ("location", re.compile(rf"\bI (?:now )?(?:live|am living|'m living) in (?P<v>{_EC}{{1,30}})", _I), None),
    # "I've moved in with my sister Tess in Hilton" (not "… in March")
    ("location", re.compile(r"\b(?i:I|we)(?:'ve| have)? (?:just |recently |finally )?(?i:moved) in with (?i:my|our|a|some) [\w' -]{1,30}? "
                            r"in (?!(?:January|February|March|April|May|June|July|August|September|October|November|December|"
                            r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Spring|Summer|Autumn|Fall|Winter)\b)"
                            r"(?P<v>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2})"), None),
    ("location", re.compile(r"\b(?i:I|we)(?:'ve| have)? (?:also |just |recently |finally )?(?i:moved|relocated) (?:(?i:up|down|out) )?to "
                            r"(?!(?:Senior|Junior|Lead|Head|Principal|Staff|Premium|Pro|Plus|Gold|Platinum|Level|Grade|Tier|"
                            r"Management|Manager|Director)\b)(?P<v>[A-Z][\w.'-]*(?:,? (?!I\b|I')[A-Z][\w.'-]*){0,2})"), None),
    # "we shifted to HSR Layout": a place in capitals as typed (chat.py capitalises the lower-case words it does not
    # know: "i shifted to keto"), else a known one below
    ("location", re.compile(r"\b(?i:I|we)(?:'ve| have)? (?:just |recently |finally )?(?i:shifted) to (?P<v>(?:[A-Z]{2,}|[A-Z][a-z]+) [A-Z][\w.'-]*)"),
     None),
    # Chat in lower case (chat.py capitalises the names the dictionary does not know; a place it knows stays as typed).
    ("location", re.compile(r"\b(?i:i|we)(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated|shifted) (?:back )?to "
                            r"(?P<v>[A-Za-z][a-z]+ [A-Za-z][a-z]+)\b"), "@place"),
    ("location", re.compile(r"\b(?i:i|we)(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated|shifted) (?:back )?to "
                            r"(?P<v>[A-Za-z][a-z]+)\b"), "@place"),
    # (an adverb between: "we're already in Ipswich now")
    # (not a school or a course: "i'm in physio school now")
    ("location", re.compile(rf"\b(?i:settled|living|i'm|im|i am|we're|based|now) (?i:already |now |still |currently |finally |actually )?"
                            rf"in (?P<v>[A-Za-z][a-z]+(?: (?!{_NOT_A_PLACE_NEXT})[A-Za-z][a-z]+)?)\b(?! {_NOT_A_PLACE_NEXT})"), "@place"),
    ("location", re.compile(rf"\b(?i:settled|living|i'm|im|i am|we're|based|now) (?i:already |now |still |currently |finally |actually )?"
                            rf"in (?P<v>[A-Za-z][a-z]+)\b(?! {_NOT_A_PLACE_NEXT})"), "@place"),
    # a home of one's own, or one rented ("got my own place now in St. Vital", "renting in Kalgoorlie til we find somewhere")
    ("location", re.compile(r"(?:\b(?:got|found|bought) (?i:my|our) (?:own |new |first |little )?(?:place|flat|apartment|"
                            r"house|condo|unit|townhouse)|(?:\b(?i:I|we)(?:'m|'re| am| are)? (?:now |still |currently )?|^\s*|(?<=[,;] ))renting(?: (?:a|our) "
                            r"(?:place|flat|house|unit|room))?) (?:now |here )?in "
                            r"(?!(?:January|February|March|April|May|June|July|August|September|October|November|December|"
                            r"Spring|Summer|Autumn|Fall|Winter|The|A|An)\b)(?P<v>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2})"), None),
    ("location", re.compile(r"\bbased (?:in|out of|outside|near) (?P<v>[A-Z][\w.'-]*(?:,? [A-Z][\w.'-]*){0,2})"), None),
    # (not a course or a year of one: "i'm in BCom final year", "I'm in Year 12")
    ("location", re.compile(r"\bI(?:'m| am) (?:now |currently )?(?:based |living |located )?(?:in|out of) "
                            r"(?!(?:B|M)(?:Com|Sc|A|Tech|Eng|Ed|Des|Pharm|BA)\b|MBA\b|PhD\b|Year\b|Grade\b|Form\b|Class\b)"
                            rf"(?P<v>[A-Z][\w.'-]*(?:,? (?!{_NOT_A_PLACE_NEXT})[A-Z][\w.'-]*){{0,2}})\b(?! (?:final|first|second|third|fourth|last) year\b)"
                            rf"(?! {_NOT_A_PLACE_NEXT})"),
     None),
    ("tech_stack", re.compile(r"\b(?i:we|I|and)(?:'ve| have)? (?:\w+ly )?(?:now )?(?i:migrated|switched|ported) (?:\w+ ){0,3}?to "
                              r"(?P<v>[A-Z][\w.+#-]*(?: [A-Z][\w.+#-]*){0,2}(?:\s*(?:\+|&|/|and)\s*[A-Z][\w.+#-]*)*)"), None),
    # "we moved the backend to Postgres", not "we moved to Tucson": a technology the word lists know.
    ("tech_stack", re.compile(r"\b(?i:we|I|and)(?:'ve| have)? (?:\w+ly )?(?:now )?(?i:moved) (?:\w+ ){0,3}?to "
                              r"(?P<v>[A-Z][\w.+#-]*(?: [A-Z][\w.+#-]*){0,2}(?:\s*(?:\+|&|/|and)\s*[A-Z][\w.+#-]*)*)"), "@tech"),
    ("tech_stack", re.compile(r"\b(?:backend|frontend|stack|database|db|app|service)s? (?:is|are) (?:now |all )?"
                              r"(?P<v>[A-Z][\w.+#-]*(?:\s*(?:\+|&|/|and)\s*[A-Z][\w.+#-]*)*)"), None),
    ("tech_stack", re.compile(r"\b(?:I|we|and) (?:mostly |mainly |usually |now |still )?(?:write|code in|program in|develop in) "
                              r"(?P<v>[A-Z][\w.+#-]*(?: (?:and|&) [A-Z][\w.+#-]*)*)"), None),
    ("tech_stack", re.compile(r"\bwe(?:'re| are) (?:now )?(?:on|using|running|built on) (?P<v>[A-Z][\w.+#-]*(?: (?:and|with|&) "
                              r"[A-Z][\w.+#-]*)*)"), None),
    ("tech_stack", re.compile(r"\b(?:we|I) (?:now )?(?:use|are using|'re using|run) (?P<v>[A-Z][\w.+#-]*(?: (?:and|&) [A-Z][\w.+#-]*)*)"), None),
    ("tech_stack", re.compile(rf"\bour (?:tech )?stack is (?P<v>{_EC}{{1,40}})", _I), None),
    ("budget", re.compile(rf"\bbudget(?: for (?:the |our |my )?[a-z -]{{1,25}}? (?:is|of|has) | (?:is |of |has )?)(?:now |been |changed to |raised to |"
                          rf"increased to |cut to |reduced to |lowered to |moved to |around |about )*"
                          rf"(?P<v>(?:[$€£¥]|(?-i:R|A\$|NZ\$|C\$|US\$))?\s?{_NUM}(?:m\b)?(?:\s?(?:USD|EUR|GBP|AUD|CAD|NZD|ZAR|RMB|CNY|"
                          rf"dollars|bucks|quid|pounds|euros?|rand|naira|rupees|shillings|cedis|pesos)\b)?)", _I), None),
    ("company_industry", re.compile(rf"\bwe (?:now )?do (?P<v>{_EC}{{2,30}}?) now\b", _I), None),
    ("company_industry", re.compile(r"\b(?:we|our company|the company) (?:\w+ )?pivoted (?:to|into) (?P<v>[\w -]{2,30}?)"
                                    r"(?= this\b| last\b| in \d|,|$|[.;!?])", _I), None),
    ("company_industry", re.compile(r"\b(?:a|our|my) company in the (?P<v>[\w -]{2,30}?) (?:space|industry|sector|business)\b", _I),
     None),
    ("company_industry", re.compile(r"\bI (?:now )?work in (?P<v>[A-Za-z][a-z][\w -]{1,30}?)(?=,|$|[.;!?]| now\b| mostly\b)"), None),
    ("company_industry", re.compile(rf"\bwe (?:build|make|sell|develop) (?P<v>{_EC}{{2,30}}?)(?= for\b|,|$|[.;!?])", _I), None),
    ("budget", re.compile(r"\b(?:I|we) (?:want|need|prefer|'m looking for|am looking for|'re looking for) (?:something )?"
                          r"(?:low[- ]cost|cheap(?:er)?|inexpensive)\b|\b(?:tight budget|limited budget|low budget|on a budget|"
                          r"save money)\b", _I), "low cost"),
    ("reply_style", re.compile(r"\bI(?:'d| would)? prefer (?P<v>(?:short|brief|concise|detailed|long|direct|simple|more detailed)\w* "
                               r"(?:answers|replies|responses|explanations))", _I), None),
    ("reply_style", re.compile(rf"\b(?:keep|make) (?:your )?(?:answers?|replies|responses) (?P<v>{_EC}{{2,30}})", _I), None),
    # "pls give in points", "reply in bullet points", "answer in a table"
    ("reply_style", re.compile(r"\b(?:give|reply|answer)(?: (?:it|them|me|answers?|replies))? (?P<v>in (?:bullet )?points|in bullets|"
                               r"in a table|in short points)\b", _I), None),
    ("reply_style", re.compile(r"\b(?P<v>(?:longer|shorter|more detailed|detailed|brief|short|concise|step-by-step) "
                               r"(?:explanations|answers|replies|responses))\b", _I), None),
    ("reply_style", re.compile(r"\b(?:rather have|rather get|prefer|want) (?P<v>(?:[\w-]+ ){0,2}(?:paragraphs|prose|full sentences|"
                               r"bullet points|tables|answers|replies|explanations))\b", _I), None),
    ("reply_style", re.compile(r"\b(?P<v>plain paragraphs|paragraphs|prose|full sentences|plain text|bullet points|tables)\b "
                               r"(?:work|works|are|is) (?:better|best|fine|great)", _I), None),
    ("reply_style", re.compile(r"\b(?:need|want|like) you to be (?:more |a bit more |a little more )?(?P<v>\w+)\b", _I), None),
    ("reply_style", re.compile(r"\b(?:you can|please|just) be (?:more |a bit more |a little more )?(?P<v>casual|formal|direct|"
                               r"brief|concise|friendly|informal|blunt|polite|detailed|technical)\b", _I), None),
    ("reply_style", re.compile(r"\b(?P<v>(?:just|only) give me (?:the )?(?:code|answer|commands?|steps|final answer)|(?:i )?(?:don't|do not) "
                               r"need (?:the |a |an )?(?:whole |full |long |detailed |lengthy )?explanations?)\b", _I), None),
    ("reply_style", re.compile(r"\bin an? (?:more )?(?P<v>formal|casual|friendly|neutral|professional|informal|playful) tone\b", _I),
     None),
    ("reply_style", re.compile(r"\b(?:just |only )?give me (?P<v>bullet points|bullets|a table|tables|the code|code only|short answers|"
                               r"one-liners|the steps|steps only|the tl;?dr|a tl;?dr|examples)\b", _I), None),
    ("reply_style", re.compile(r"\bexplain (?:stuff |things |it |everything |concepts )?(?P<v>with (?:examples|diagrams|analogies|pictures|"
                               r"visuals|code|real examples)|simply|like I'm (?:five|5|a beginner))", _I), None),
    ("reply_style", re.compile(r"\bI (?:learn|understand) (?:way |much |a lot |so much )?better (?P<v>visually|with examples|by doing|"
                               r"with diagrams|from examples)\b", _I), None),
    ("reply_style", re.compile(r"(?:^|\buse |\bin |\bwith )(?P<v>bullet points|bulleted lists?|numbered lists?|tables|plain text|"
                               r"one sentence|code only)(?: only| please)?\b", _I), None),
    ("reply_style", re.compile(rf"\b(?:answer|reply|respond) (?P<v>(?:briefly|concisely|in detail|in [A-Z]\w+|with {_EC}{{2,30}}|"
                               r"conclusion first|with the conclusion first))", _I), None),
    ("diet", re.compile(rf"\bI(?:'m| am|'ve been| have been) (?:now |also |fully |strictly |\w+ly )*(?P<v>{_EN_DIET_STYLES}|"
                        rf"allergic to {_EC}{{1,20}})", _I), None),
    ("diet", re.compile(rf"\bon an? (?P<v>{_EN_DIET_STYLES}) diet\b", _I), None),
    ("diet", re.compile(r"\b(?:on|following|doing|started) an? (?P<v>[\w-]{2,20}) diet\b", _I), None),
    ("diet", re.compile(rf"\bI(?: went| became| turned| have gone|'ve gone| have become|'ve become) (?:fully |completely |full |strictly )?"
                        rf"(?P<v>{_EN_DIET_STYLES})\b", _I), None),
    # "gone fully vegan since too": chat drops the "I" of a clause that begins with it
    ("diet", re.compile(rf"^\W*(?:(?:and|also|so|now|just|finally|update)\W+)*(?:gone|went|turned) (?:fully |completely |full |strictly )?"
                        rf"(?P<v>{_EN_DIET_STYLES})\b(?![^.!?]{{0,30}}\b(?:for a (?:week|month|while|bit)|in (?:19|20)\d\d|and hated it))", _I),
     None),
    ("diet", re.compile(rf"\bI (?:don't|do not|can't|cannot) eat (?P<v>{_EC}{{1,20}})", _I), None),
    ("do_not_recommend", re.compile(rf"\b(?:don't|do not|never|stop) (?:ever )?recommend(?:ing)? (?P<v>{_EC}{{1,40}}?)(?: again| to me)*(?=$|[,.;!?])", _I), None),
    ("dislikes", re.compile(rf"\bI (?:really |also )?(?:hate|dislike|don't like|do not like|can't stand) (?P<v>{_EC}{{1,40}})", _I), None),
    ("do_not_recommend", re.compile(rf"\bit's (?P<v>{_EC}{{1,30}}?) (?:that )?I (?:really )?(?:don't|do not|never) want "
                                    rf"(?:you to )?(?:recommend|suggest|recommended|suggested)", _I), None),
    ("do_not_recommend", re.compile(rf"\bwhat I (?:really )?(?:don't|do not|DON'T) want (?:recommended|suggested|to see|to hear about) "
                                    rf"(?:now )?is (?P<v>{_EC}{{1,40}})", _I), None),
    ("dislikes", re.compile(rf"\bit's (?P<v>{_EC}{{1,30}}?) (?:that )?I (?:really |truly )?(?:can't stand|cannot stand|hate|dislike)",
                            _I), None),
    ("dislikes", re.compile(rf"\bwhat I (?:really |truly |actually )?(?:hate|dislike|can't stand|cannot stand) (?:now |these days )?is "
                            rf"(?P<v>{_EC}{{1,40}})", _I), None),
    ("unlikes", re.compile(rf"\bI (?:\w+ly )?(?:no longer|don't|do not) (?:really )?(?:like|love|enjoy) (?P<v>{_EC}{{1,40}}?) "
                           rf"(?:any ?more|any longer)\b|\bI no longer (?:like|love|enjoy) (?P<w>{_EC}{{1,40}})", _I), None),
    ("likes", re.compile(rf"\bI (?:really |also |just |absolutely )?(?:like|love|enjoy|prefer|adore) (?P<v>{_EC}{{1,40}})", _I), None),
    ("likes", re.compile(rf"\bI(?:'ve| have) (?:started|begun|come) to (?:like|love|enjoy) (?P<v>{_EC}{{1,40}})", _I), None),
    ("likes", re.compile(rf"\bI(?:'m| am) (?:really |totally |big |\w+ly )?into (?P<v>{_EC}{{1,40}})", _I), None),
    ("likes", re.compile(rf"\bI(?:'m| am) (?:\w+ )?(?:obsessed with|hooked on|addicted to|a big fan of|a fan of|crazy about|"
                         rf"passionate about) (?P<v>{_EC}{{1,40}}?)(?= lately| these days| recently|$|[,.;!?])", _I), None),
    ("decision", re.compile(rf"\b(?:we|I) (?:finally )?(?:chose|picked|decided (?:on|to)|went with|settled on|selected|"
                            rf"will go with|'ll go with) (?P<v>{_EC}{{1,40}})", _I), None),
    ("feedback", re.compile(rf"\b(?P<v>(?:your|that) (?:last |previous )?(?:answer|suggestion|reply|advice) (?:was|is) {_EC}{{1,30}})", _I), None),
    ("event", re.compile(
        rf"(?P<v>\bI (?:just |recently |finally |also )?(?:went to|started|joined|finished|adopted|bought|attended|visited|"
        rf"graduated|signed up for|got (?:a|an|my|married|promoted|engaged)|won(?!['’]t)|ran a|painted|took part in|"
        rf"volunteered|moved into|launched|celebrated|lost my|had a (?:baby|wedding|party)){_EC}{{0,60}})", _I), None),
    ("birthday", re.compile(rf"\bmy (?:birthday|b-?day|b'day)(?:'s| is)? (?:on |in )?(?:the )?(?P<v>{_EN_DATE})", _I), None),
    # ...or with no "my", put right ("heyy so two things, bday is the 19th of october not the 9th")
    ("birthday", re.compile(rf"(?:^\s*|(?<=,\s)|(?<=\bso )|(?<=\band )|(?<=\boh ))(?:birthday|b-?day|b'day)(?:'s| is) "
                            rf"(?:actually |really )?(?:on |in )?(?:the )?(?P<v>{_EN_DATE})(?=,? (?:not|actually)\b)", _I), None),
    # The user's own age: "I'm 38 so ...", "I am 43 not 34", "I just turned 40"; not "I'm 30 minutes away".
    ("age", re.compile(r"\bI(?:'m| am) (?:now |almost |nearly |only |already )?(?P<v>[1-9]\d)(?: years? old| yo| y/o)?"
                       r"(?=\s*(?:$|[,.;!?)(]|[\U0001F300-\U0001FAFF]|(?:and|so|but|now|not|this|next|tho|though|lol|haha|"
                       r"with|btw|already|myself)\b))"), None),
    ("age", re.compile(r"\bI (?:just |recently )?turned (?P<v>[1-9]\d)\b"), None),
    ("birthday", re.compile(rf"\bI was born on (?P<v>{_EN_DATE}(?:,? \d{{4}})?)", _I), None),
    ("pet", re.compile(rf"\b(?:I|we) (?:have|own|got|adopted|just got|just adopted|rescued) (?P<v>(?:a|an|{_EN_NUMBER}) (?:[\w-]+ )?"
                       rf"(?:{EN_PETS})s?(?: (?:named|called) [A-Z][\w'-]*(?: and [A-Z][\w'-]*)?)?)", _I), None),
    ("pet", re.compile(rf"\bmy (?P<v>(?:[\w-]+ )?(?:{EN_PETS})(?:'s name)? (?:is )?(?:named|called) [A-Z][\w'-]*)", _I), None),
    # "my cat Biscuit keeps throwing up", "my dog is Max": the name as written, capitalised.
    ("pet", re.compile(rf"\b(?i:my) (?P<v>(?:(?i:[\w-]+) )?(?i:{EN_PETS}),?(?: is)? (?!(?:The|This|That|And|But|So|Is|Was|Has|Had|Just|"
                       rf"Also|Still|Really|Keeps|Loves|Hates|Gets|Got|Does|Did|Can|Will|Now|Lately|Today)\b)[A-Z][a-z][\w'-]*)"),
     None),
    ("child", re.compile(rf"\bmy (?P<v>(?:son|daughter|kid|baby|boy|girl|oldest|youngest)(?: [A-Z][\w'-]*)? (?:is|just turned|turned) "
                         rf"{_EN_NUMBER}(?: years? old| months? old| months)?)\b", _I), None),
    ("child", re.compile(rf"\bmy (?P<v>{_EN_NUMBER}[- ](?:year|month)[- ]old (?:son|daughter|kid|baby|boy|girl|twins))\b", _I), None),
    # A brother, a sister or a parent by age ("my mom Rosa is 70", "my little brother Leo just turned 8", "my sister turns 30
    # on the 24th"): not what they do ("my sister Dana is a pastry chef").
    ("family", re.compile(rf"\bmy (?P<v>(?:(?:little|big|younger|older|baby|kid|twin) )?(?:brother|sister|bro|sis|mom|mum|mother|dad|"
                          rf"father)(?: [A-Z][a-z][\w'-]*)?(?: is| just turned| turned| turns| will be|'s) (?:\d{{1,3}}|{_EN_NUMBER_WORDS}|"
                          rf"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-(?:one|two|three|four|five|six|seven|eight|nine))?)"
                          rf"(?: years? old)?)(?![\w'’%-]| (?:of|and a half|min|mins|minutes|hours?|days?|weeks?|months?|miles|km|kg|lbs|"
                          rf"foot|feet|ft|inches|in|cm|percent|%)\b)", _I), None),
    # A child named ("a party idea for my daughter Rosalie, she's 6"): the name, as written.
    ("child", re.compile(r"\b(?i:my) (?P<v>(?i:son|daughter|stepson|stepdaughter|boy|girl|grandson|granddaughter|grandkid|"
                         r"grandbaby) [A-Z][a-z][\w'-]*)"), None),
    ("partner", re.compile(r"\b(?i:my) (?P<v>(?:wife|husband|partner|boyfriend|girlfriend|fianc[eé]e?|spouse|gf|bf|hubby|missus|"
                           r"wifey),? (?!I\b|Valentine)[A-Z][\w'-]*)"), None),

    ("car", re.compile(r"\bI (?:drive|own|just bought|bought) an? (?P<v>(?:\d{4} )?(?:[A-Z][\w-]*)(?: [\w-]+){0,2}?)(?= to\b| for\b|$|[,.;!?])"), None),
    ("car", re.compile(r"\bmy car is an? (?P<v>[\w-]+(?: [\w-]+){0,2})", _I), None),
    ("phone", re.compile(r"\b(?:my|(?:got|getting|bought|buying|ordered|picked up|went with|grabbed) (?:a|an|the)|(?:switched|swapped) (?:over )?to (?:a|an|the)?|bought (?:a|an|the)|using (?:a|an)|i daily (?:a|an|the)|"
                         r"upgraded to (?:a|an|the)?|on (?:a|an)) ?(?:new |used )?(?P<v>(?:iphone|pixel|galaxy|samsung|oneplus|"
                         r"motorola|moto|fairphone|xiaomi|redmi|huawei|xperia|nokia|realme)(?: (?:\d+\w*|pro|max|plus|mini|ultra|fold\d*|flip\d*|se|xl|"
                         r"[a-z]\d+\w*))*)\b(?!\s+(?:scooter|vacuum|robot|router|watch|band|tv|tablet|pad|buds|earbuds|laptop|"
                         r"fridge|fan|camera|speaker|charger|cable|case))", _I), None),
    # "the Fairphone 5 i got last week throws a SecurityException"
    ("phone", re.compile(r"\bthe (?:new )?(?P<v>(?:iphone|pixel|galaxy|samsung|oneplus|motorola|moto|fairphone|xiaomi|redmi|huawei|"
                         r"xperia|nokia|realme)(?: (?:\d+\w*|pro|max|plus|mini|ultra|se|xl|[a-z]\d+\w*))*) (?:i|we) (?:just )?"
                         r"(?:got|bought|picked up|ordered)\b(?!\s+(?:my|her|him|them|us|for)\b)", _I), None),
    ("car", re.compile(rf"(?:(?:\b(?:I|we) |^\W*(?:so |ok |and |update\W* )?)(?:\w+ly |just |finally |now )?(?:got|bought|leased|drive|own|picked up|switched to|"
                       rf"ended up (?:getting|buying|going with|with))|\btraded (?:it |(?:the |my |our )?[\w-]+ )?in (?:for|on)) "
                       rf"(?:a|an|our|my|the) (?:new |used |(?!(?:{CAR_MAKES_EN})\b)\w+ )?(?P<v>(?:\d{{4}} )?(?:{CAR_MAKES_EN})(?: (?:[Mm]odel )?[\w-]+)?)\b", _I), None),
    ("car", re.compile(rf"\bmy (?:old |new |trusty )?(?P<v>(?:\d{{4}} )?(?:{CAR_MAKES_EN})(?: (?!is\b|was\b)[\w-]+)?)\b", _I), None),
    ("instrument", re.compile(r"\bI (?:play|am learning|'m learning|started learning|learn) (?:the )?(?P<v>piano|guitar|violin|cello|"
                              r"drums|ukulele|bass|flute|saxophone|sax|trumpet|clarinet|harp|banjo)\b", _I), None),
    ("education", re.compile(r"\bI(?:'m| am) (?:a |an )?(?:\w+ ){0,3}?(?:student|freshman|sophomore|junior|senior|grad student|"
                             r"phd student|undergrad) (?:at|in) (?P<v>[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,4})"), None),
    ("education", re.compile(rf"\bI (?:study|studied|major in|majored in|am majoring in|'m majoring in) (?P<v>{_EC}{{2,40}}?)"
                             rf"(?= at\b| in\b|$|[,.;!?])", _I), None),
    ("health", re.compile(r"\bI (?:have|was diagnosed with|got diagnosed with|live with) (?P<v>asthma|(?:type [12] )?diabetes|"
                          r"high blood pressure|migraines|adhd|celiac(?: disease)?|ibs|arthritis|epilepsy|anxiety|"
                          r"depression|a bad back|a heart condition)\b", _I), None),
    ("commute", re.compile(r"\bI (?P<v>bike|cycle|drive|walk|take the (?:bus|train|subway|metro|tube|ferry))(?: \w+)? to "
                           r"(?:work|the office|school|campus)\b", _I), None),
    ("timezone", re.compile(r"\b(?:I'm|I am|we're|we are) (?:in|on) (?P<v>(?:PST|PDT|PT|EST|EDT|ET|CST|CDT|MST|GMT|BST|UTC|CET|CEST|"
                            r"JST|IST|AEST)(?:[+-]\d{1,2})?)\b"), None),
    ("timezone", re.compile(r"\b(?:I'm|I am|we're|we are|i'm|im) (?:now |currently )?on (?P<v>(?:[A-Za-z]+ ){1,2}time)\b"), None),
    ("timezone", re.compile(r"\b(?:I'm|I am|we're|we are|i'm|im) (?:now |currently )?on (?P<v>(?i:eastern|central|mountain|pacific|"
                            r"atlantic|alaska|hawaii))\b(?! (?:time|standard|daylight|avenue|ave|street|st|road|line|station)\b)"), None),
    ("project", re.compile(r"\b(?:working on|building|built|making|launched|launching|run|running) (?:a |an |my )?(?:[\w-]+ ){0,4}?"
                           r"(?:called|named) \"?(?P<v>[\w.&'-]+(?: (?-i:[A-Z])[\w.&'-]*){0,2})\"?", _I), None),
]


# Retractions, matched (and blanked out of the clause) before the slots: (slot or "same", pattern).
# "same" takes the slot of what the sentence states instead ("我喜欢的是陈奕迅，不是周杰伦").
ZH_RETRACT: list[tuple[str, re.Pattern]] = [
    # Not "精神还行" (how someone is): only a taste said to be bearable now.
    ("dislikes", re.compile(r"(?:^|(?<=[\s，,。！!了吧啊呢])|(?<=其实)|(?<=现在)|(?<=已经)|(?<=早就))(?!已经|现在|其实|早就|我)(?P<v>[\u4e00-\u9fffA-Za-z]{1,10}?)(?:我)?(?:现在|已经|其实|也)?"
                            r"(?:能接受了|可以接受了|不讨厌了|不反感了)")),
    ("likes", re.compile(r"(?:^|(?<=[\s，,。！!了吧啊呢])|(?<=其实)|(?<=现在)|(?<=已经)|(?<=早就))(?!已经|现在|其实|早就|我|早)(?P<v>[\u4e00-\u9fffA-Za-z]{1,10}?)(?:我)?(?:早就|已经|早)?(?:弃坑|不玩|不追|不看|不听|戒)了")),
    ("do_not_recommend", re.compile(rf"(?:可以|又可以|也可以|能)(?:再)?(?:给我)?推荐(?P<v>{ZC}{{1,15}}?)了")),
    ("do_not_recommend", re.compile(rf"(?P<v>{ZC}{{1,10}}?)(?:现在|以后)?(?:倒是|也|又)?(?:可以|能)(?:再)?(?:推荐|推)了")),
    ("diet", re.compile(rf"不(?:再)?(?P<v>吃素|{_DIET_STYLES})了|不再(?P<w>吃素|{_DIET_STYLES})")),
    ("dislikes", re.compile(rf"(?:不再|已经不|不)(?:讨厌|反感)(?P<v>{ZC}{{1,15}}?)了")),
    ("likes", re.compile(rf"(?:已经|现在)?不(?:怎么|太|再|那么)?(?:喜欢|爱)(?P<v>{ZC}{{1,15}}?)了")),
    # (not the question "是不是": "蛋白粉是不是只能喝分离乳清")
    ("same", re.compile(rf"(?<!是)不是(?P<v>{ZC}{{1,15}}?)了?(?=[，。！？；,.!?;]|$)")),
]
EN_RETRACT: list[tuple[str, re.Pattern]] = [
    ("dislikes", re.compile(r"\bI (?:don't|do not) (?:hate|dislike|mind) (?P<v>[\w'&-]+(?: [\w'&-]+){0,3}?)"
                            r"(?: any ?more| any longer)(?=$|[,.;!?]|\s)", _I)),
    ("dislikes", re.compile(r"\bactually,? (?P<v>[\w&-]+(?: [\w'&-]+){0,3}?)(?: is| are|'s) (?:fine|ok|okay|alright)\b", _I)),
    ("dislikes", re.compile(r"(?<![\w&-])(?P<v>[\w&-]+(?: [\w'&-]+){0,3}?)(?: is| are|'s) (?:actually |totally |really )?(?:fine|ok|okay|alright|not so bad)"
                            r"(?: with me| by me)? (?:now|actually)\b", _I)),
    ("do_not_recommend", re.compile(r"\b(?:you can|feel free to|it's (?:ok|fine) to) (?:suggest|recommend|show me) "
                                    r"(?P<v>[\w'&-]+(?: [\w'&-]+){0,3}?) again\b", _I)),
    ("diet", re.compile(rf"\bI(?:'m| am) (?:not|no longer) (?P<v>{_EN_DIET_STYLES})\b", _I)),
    ("diet", re.compile(rf"^\s*not (?P<v>{_EN_DIET_STYLES})(?: any ?more)?\b", _I)),
    ("diet", re.compile(rf"(?:^\s*|\bI )(?:stopped|quit|gave up|dropped|came off) (?:doing |being )?(?P<v>{_EN_DIET_STYLES})\b", _I)),
    ("likes", re.compile(r"\bI(?:'m| am) (?:not|no longer) (?:really )?into (?P<v>[\w'&-]+(?: [\w'&-]+){0,3}?)"
                         r"(?: any ?more| any longer)?(?=$|[,.;!?]| tbh\b| now\b)", _I)),
    ("dislikes", re.compile(r"\bI(?:'ve| have) (?:come around|warmed up) (?:on|to) (?P<v>[\w'&-]+(?: [\w'&-]+){0,3}?)"
                            r"(?=$|[,.;!?])", _I)),
    ("same", re.compile(r"\bnot (?P<v>[\w'&-]+(?: [\w'&-]+){0,3}?)(?: any ?more| any longer)?(?=$|[,.;!?])", _I)),
]


# --- slots an operator adds in settings (AGENTMEMORY["EXTRACTION_SLOTS"]) -------------------------------
_OPERATOR_TYPES = ("fact", "preference", "decision", "event")


def operator_slot_errors(specs) -> list[str]:
    """What is wrong with EXTRACTION_SLOTS (for the system check); [] when it is usable."""
    if not isinstance(specs, list):
        return ["must be a list of slot definitions"]
    errors = []
    for n, spec in enumerate(specs):
        where = f"[{n}]"
        if not isinstance(spec, dict):
            errors.append(f"{where} must be an object")
            continue
        name = spec.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,40}", name or "") or name in SLOTS:
            errors.append(f"{where} name must be a new lower-case slot name (not one of the built-in slots)")
        if spec.get("type", "fact") not in _OPERATOR_TYPES:
            errors.append(f"{where} type must be one of {', '.join(_OPERATOR_TYPES)}")
        for lang in ("zh", "en"):
            if "{v}" not in str(spec.get(lang) or "{v}"):
                errors.append(f"{where} {lang} wording must contain {{v}}")
        patterns = spec.get("patterns")
        if not isinstance(patterns, list) or not patterns:
            errors.append(f"{where} patterns must be a non-empty list of regular expressions")
            continue
        for pattern in patterns:
            try:
                compiled = re.compile(str(pattern), re.IGNORECASE)
            except re.error as exc:
                errors.append(f"{where} pattern {pattern!r} does not compile: {exc}")
                continue
            if "v" not in compiled.groupindex:
                errors.append(f"{where} pattern {pattern!r} has no (?P<v>...) group for the value")
    return errors


def _compiled_operator_slots(specs: list) -> tuple[dict[str, Slot], list[tuple[str, re.Pattern, None]]]:
    slots, rules = {}, []
    for spec in specs:
        name = spec["name"]
        slots[name] = Slot(spec.get("type", "fact"), spec.get("zh") or f"{name}：{{v}}", spec.get("en") or f"{name}: {{v}}",
                           multi=bool(spec.get("multi", False)), confidence=float(spec.get("confidence", 0.85)),
                           quality=0.85)
        rules += [(name, re.compile(str(p), re.IGNORECASE), None) for p in spec["patterns"]]
    return slots, rules


_operator_cache: dict[str, tuple] = {}


def operator_slots() -> tuple[dict[str, Slot], list[tuple[str, re.Pattern, None]]]:
    """The operator's slots and their patterns (applied to both languages), compiled once per definition;
    none when EXTRACTION_SLOTS is empty or invalid (the system check says why)."""
    from ...conf import app_settings

    specs = app_settings.EXTRACTION_SLOTS or []
    marker = repr(specs)
    if marker not in _operator_cache:
        _operator_cache.clear()
        _operator_cache[marker] = ({}, []) if operator_slot_errors(specs) else _compiled_operator_slots(specs)
    return _operator_cache[marker]


def slot_of(key: str) -> Slot:
    """A built-in slot or one of the operator's."""
    return SLOTS.get(key) or operator_slots()[0][key]
