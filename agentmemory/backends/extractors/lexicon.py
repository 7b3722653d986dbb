"""Small word lists the rule-based extractor uses to tell a place from a company and to spot technologies.

Deliberately general (major cities, provinces and countries; widely used technologies): they decide
between slots ("我在成都工作" is a place, "我在腾讯工作" an employer), they never create a memory alone.
"""
from __future__ import annotations

import re
from pathlib import Path

ZH_PLACES = frozenset("""
北京 上海 天津 重庆 广州 深圳 杭州 南京 苏州 无锡 常州 宁波 温州 绍兴 嘉兴 金华 台州 湖州 合肥 芜湖 福州 厦门 泉州
济南 青岛 烟台 威海 潍坊 郑州 洛阳 武汉 宜昌 长沙 株洲 南昌 成都 绵阳 西安 咸阳 兰州 西宁 银川 乌鲁木齐 拉萨 昆明
大理 丽江 贵阳 南宁 桂林 海口 三亚 石家庄 保定 唐山 太原 大同 呼和浩特 包头 沈阳 大连 长春 吉林 哈尔滨 珠海 佛山
东莞 中山 惠州 汕头 香港 澳门 台北 高雄 新竹 雄安 义乌 昆山 扬州 徐州 南通 镇江 连云港
河北 山西 辽宁 黑龙江 江苏 浙江 安徽 福建 江西 山东 河南 湖北 湖南 广东 海南 四川 贵州 云南 陕西 甘肃 青海 台湾 内蒙古
广西 西藏 宁夏 新疆 老家 国外 海外 美国 日本 韩国 英国 法国 德国 新加坡 加拿大 澳大利亚 泰国 马来西亚 越南
纽约 伦敦 东京 巴黎 柏林 硅谷 旧金山 洛杉矶 西雅图 悉尼 多伦多 温哥华 首尔 曼谷
""".split())

_ZH_PLACE_SUFFIX_RE = re.compile(r"(?<![超菜夜股早鱼集灯校景专小厂病展])(?<!营业|服务)(?:市|区|县|镇|村)$|(?:省|州|自治区)$")

EN_PLACES = frozenset(p.replace("_", " ").lower() for p in """
London Paris Berlin Munich Hamburg Amsterdam Rotterdam Brussels Dublin Madrid Barcelona Lisbon Rome Milan Vienna Zurich
Geneva Prague Warsaw Stockholm Oslo Copenhagen Helsinki Athens Istanbul Moscow Kyiv Budapest Edinburgh Manchester
New_York Boston Chicago Seattle Portland Austin Dallas Houston Denver Phoenix Miami Atlanta Philadelphia Pittsburgh
Detroit Minneapolis San_Francisco San_Diego San_Jose Los_Angeles Las_Vegas Washington Nashville Toronto Vancouver Montreal
Ottawa Calgary Mexico_City Sao_Paulo Buenos_Aires Santiago Lima Bogota Sydney Melbourne Brisbane Auckland Tokyo Osaka
Kyoto Seoul Beijing Shanghai Shenzhen Guangzhou Hangzhou Chengdu Hong_Kong Taipei Singapore Bangkok Jakarta Manila
Hanoi Mumbai Delhi Bangalore Bengaluru Hyderabad Chennai Dubai Tel_Aviv Cairo Nairobi Lagos Cape_Town Johannesburg
the_Bay_Area Silicon_Valley Brooklyn Oakland
USA America Canada Mexico Brazil Argentina UK England Scotland Ireland France Germany Spain Portugal Italy Netherlands
Belgium Switzerland Austria Sweden Norway Denmark Finland Poland Greece Turkey Russia Ukraine China Japan Korea India
Australia New_Zealand Vietnam Thailand Indonesia Malaysia Philippines Israel Egypt Kenya Nigeria California Texas
Florida Oregon Colorado Ontario Quebec Bavaria
""".split())

def _listed(name: str) -> frozenset[str]:
    """A word list of ``agentmemory/data`` (one name per line, "#" a comment), in lower case."""
    path = Path(__file__).resolve().parent.parent.parent / "data" / name
    return frozenset(line.strip().lower() for line in path.read_text(encoding="utf-8").splitlines()
                     if line.strip() and not line.startswith("#"))


#: More places (``data/places_en.txt``: cities and towns people live in, "halifax", "glasgow", "fredericton"), read as
#: whole words like the list above.
EN_PLACES = EN_PLACES | _listed("places_en.txt")
#: More Chinese places (``data/places_zh.txt``: prefecture-level cities, foreign cities; ``places_zh_counties.txt``:
#: counties, county-level cities and districts, "淮滨", "晋江市", written by benchmarks' agentmemory_build_places): a
#: value said to be a place ("在包头", "搬到赣州") is one; inside a sentence only as a whole word of its segmentation,
#: since two characters are often part of other words ("海门" of "上海门店").
ZH_MORE_PLACES = _listed("places_zh.txt") | _listed("places_zh_counties.txt")
#: Their first two characters: a text with none of them names none (read before segmenting it).
_ZH_MORE_HEADS = frozenset(p[:2] for p in ZH_MORE_PLACES if not p.isascii())

#: Widely used technologies (languages, frameworks, databases, platforms), lower case.
TECH = frozenset("""
python java javascript typescript go golang rust ruby php kotlin swift scala elixir c# c++ dart perl lua r julia
django flask fastapi spring springboot rails laravel express nestjs next.js nextjs nuxt react vue angular svelte
jquery flutter electron node node.js nodejs deno .net dotnet asp.net
mysql postgresql postgres pg sqlite oracle mariadb mongodb redis elasticsearch opensearch cassandra clickhouse
dynamodb snowflake bigquery redshift tidb oceanbase neo4j kafka rabbitmq celery pulsar
aws azure gcp aliyun kubernetes k8s docker terraform ansible nginx graphql grpc spark hadoop flink airflow
pytorch tensorflow langchain llamaindex pgvector milvus qdrant weaviate pinecone chroma
""".split())
#: Technologies that are also everyday words: only written with a capital ("i go by Kit" names no language).
_WORDS_TOO = frozenset("go rust ruby swift dart perl lua r julia spark express next chroma flask spring celery".split())
_TECH_RE = re.compile(r"(?<![\w.+#])([A-Za-z][\w.+#]*)(?![\w+#])")


def is_place(value: str) -> bool:
    """True for a city, province, region or country (Chinese or English)."""
    text = (value or "").strip()
    if not text:
        return False
    if text in ZH_PLACES or text in ZH_MORE_PLACES or _ZH_PLACE_SUFFIX_RE.search(text):
        return True
    # A city and its district ("深圳南山", "北京海淀"), not a company named after a city ("北京字节跳动").
    if any(text.startswith(p) and 0 < len(text) - len(p) <= 2 and not text.endswith(_ORG_TAIL)
           for p in ZH_PLACES if len(p) >= 2):
        return True
    return text.lower() in EN_PLACES or text.lower().split(",")[0].strip() in EN_PLACES


#: What ends a firm or an office named after its town ("广州海关", "成都银行", "杭州一中"): no district of it.
_ORG_TAIL = ("海关", "银行", "医院", "大学", "学院", "中学", "小学", "一中", "二中", "三中", "公司", "集团", "法院", "公安", "税务",
             "地铁", "机场", "日报", "电台", "电视台", "分行", "支行", "证券", "电信", "移动", "联通", "电网", "烟草", "交警", "消防")
#: What follows a city's name when the two make another thing ("德州扑克", "中山大学", "金华火腿", "大理石").
_NOT_AFTER_A_PLACE = ("扑克", "大学", "装", "路", "火腿", "石", "台面", "话")
#: Places a sentence can name without saying where anyone lives.
_NOT_WHERE = frozenset({"老家", "国外", "海外"})


def places_in(text: str) -> list[str]:
    """The cities, regions and countries of the word lists that ``text`` names, as the lists write them."""
    text = text or ""
    found = [p for p in ZH_PLACES if p in text and p not in _NOT_WHERE]
    if any(text[i:i + 2] in _ZH_MORE_HEADS for i in range(len(text) - 1)):
        # The longer list only as whole words of the segmented sentence: "大阪" of "现在改去大阪", not "海门" of "上海门店".
        from ...text.tokenize import _default_tokenizer

        words = _default_tokenizer().lcut(text)
        found += [w for w, after in zip(words, [*words[1:], ""], strict=True) if w in ZH_MORE_PLACES
                  and not after.startswith(_NOT_AFTER_A_PLACE)]
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", text.lower())
    for n in (2, 1):
        found += [" ".join(words[i:i + n]) for i in range(len(words) - n + 1) if " ".join(words[i:i + n]) in EN_PLACES]
    return sorted(set(found))


def tech_names(text: str) -> list[str]:
    """The known technologies named in ``text``, in order, as written."""
    names = (m.group(1).rstrip(".") for m in _TECH_RE.finditer(text or ""))
    return [n for n in names if n.lower() in TECH and (n.lower() not in _WORDS_TOO or n[0].isupper())]
