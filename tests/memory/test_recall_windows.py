"""Recall over dialogue logs: the window channels, the speaker and date priors, in English and Chinese;
extracted facts untouched; another user's turns never part of a window."""
from __future__ import annotations

import datetime as dt

import pytest
from django.test import override_settings

from agentmemory.memory.bulk import import_log
from agentmemory.memory.priors import in_period, named_period, named_speaker, speaker_of
from agentmemory.memory.recall import recall_memories
from agentmemory.memory.write import write_memory
from agentmemory.types import MemoryDraft

pytestmark = pytest.mark.django_db

BASE = "/api/agentmemory/users"
FILLER = [
    "Alex: The weather was lovely on the weekend.",
    "Sam: I finally repainted the kitchen cabinets.",
    "Alex: My sister visited us from Denver.",
    "Sam: Work has been busy with the quarterly report.",
    "Alex: We watched a documentary about octopuses.",
    "Sam: I started jogging in the mornings again.",
]


def _log(user: str, session: str, texts: list[str], *, start: int = 0, when: dt.datetime | None = None) -> list[int]:
    drafts = [MemoryDraft(content=t, type="event", source="system_log", session_id=session, turn_id=start + i,
                          valid_from=when) for i, t in enumerate(texts)]
    return import_log(user, drafts)


def test_a_window_holding_all_the_words_of_the_question_ranks_first(api_client):
    # No single turn holds both "rescue puppy" and "vet appointment"; two adjacent turns of S1 do.
    pair = _log("win", "S1", [*FILLER[:3], "Sam: We adopted a rescue puppy last week.",
                              "Alex: Lovely! Did you book the vet appointment yet?", *FILLER[3:]])[3:5]
    apart = _log("win", "S2", ["Sam: The shelter says the rescue puppy found a home.", *FILLER,
                               "Alex: My vet appointment moved to Friday."])
    body = api_client.post(f"{BASE}/win/memories/search/", {"query": "rescue puppy vet appointment", "top_k": 4},
                           format="json").json()
    ranked = [r["id"] for r in body["results"]]
    assert set(ranked[:2]) == set(pair), body
    windows = {r["id"]: r["scores"]["window"] for r in body["results"]}
    assert min(windows[pk] for pk in pair) > max(windows.get(apart[0]) or 0, windows.get(apart[-1]) or 0)
    assert all(r["scores"]["window_cosine"] > 0 for r in body["results"])
    with override_settings(AGENTMEMORY={"MEMORY_WINDOW_WEIGHT": 0, "MEMORY_WINDOW_VECTOR_WEIGHT": 0}):
        off = recall_memories("win", "rescue puppy vet appointment", top_k=10, touch=False)
    assert all(h.scores.window is None and h.scores.window_cosine is None for h in off)


def test_windows_never_reach_into_another_users_turns():
    # Same session id and turn numbers for two users: only the user's own turns form a window.
    mine = _log("iso-a", "S1", ["Alex: Good morning.", "Sam: Morning!", "Alex: Nothing new here."])
    _log("iso-b", "S1", ["Bob: The submarine cable project starts in Lisbon.", "Bob: Lisbon cable kickoff Monday.",
                         "Bob: Submarine cable again."])
    hits = recall_memories("iso-a", "submarine cable project in Lisbon", top_k=3, touch=False)
    assert {h.memory.pk for h in hits} <= set(mine)
    assert all(h.scores.window is None and h.scores.bm25 is None for h in hits)
    # The other user's turns (all about the query) do not raise this user's window cosines either.
    alone = [h.scores.window_cosine for h in hits]
    _log("iso-c", "S1", ["Alex: Good morning.", "Sam: Morning!", "Alex: Nothing new here."])
    other = [h.scores.window_cosine for h in recall_memories("iso-c", "submarine cable project in Lisbon", top_k=3,
                                                              touch=False)]
    assert sorted(alone) == pytest.approx(sorted(other), abs=1e-6)


@pytest.mark.parametrize(("turns", "query", "named"), [
    (["Caroline: I went to the pottery class on Saturday.", "Melanie: I went to the pottery class on Sunday."],
     "When did Caroline go to the pottery class?", 0),
    (["张三：我上周去杭州参加了一个读书会。", "李四：我上周去杭州参加了一个读书会。"], "李四上周去杭州做什么了？", 1),
])
def test_the_speaker_a_question_names_ranks_first(turns, query, named):
    ids = _log("spk", "S1", turns)
    hits = recall_memories("spk", query, top_k=2, touch=False)
    assert hits[0].memory.pk == ids[named]
    assert hits[0].scores.prior == pytest.approx(1.5) and hits[1].scores.prior == 1.0
    with override_settings(AGENTMEMORY={"MEMORY_SPEAKER_PRIOR": 0}):
        assert {h.scores.prior for h in recall_memories("spk", query, top_k=2, touch=False)} == {1.0}


@pytest.mark.parametrize("query", ["What did we talk about the garden in May 2023?", "2023年5月我们聊了花园的什么？"])
def test_a_named_month_and_year_favour_memories_valid_then(query):
    may = _log("date", "S1", ["We talked about planting tomatoes in the garden. 我们聊了在花园种番茄。"],
               when=dt.datetime(2023, 5, 8, tzinfo=dt.UTC))[0]
    june = _log("date", "S2", ["We talked about planting tomatoes in the garden. 我们聊了在花园种番茄。"],
                when=dt.datetime(2023, 6, 9, tzinfo=dt.UTC))[0]
    hits = {h.memory.pk: h.scores for h in recall_memories("date", query, top_k=2, touch=False)}
    assert hits[may].prior == pytest.approx(1.2) and hits[june].prior == 1.0
    assert hits[may].final > hits[june].final


def test_extracted_facts_have_no_window_and_rank_as_before():
    write_memory("facts", MemoryDraft(content="公司在杭州，做跨境电商", type="fact", source="user_stated",
                                      key="company", session_id="S9", turn_id=3))
    write_memory("facts", MemoryDraft(content="Prefers short answers in English", type="preference",
                                      source="user_stated", key="reply_style"))
    on = recall_memories("facts", "公司在哪个城市", top_k=2, touch=False)
    with override_settings(AGENTMEMORY={"MEMORY_WINDOW_WEIGHT": 0, "MEMORY_WINDOW_VECTOR_WEIGHT": 0,
                                        "MEMORY_SPEAKER_PRIOR": 0, "MEMORY_DATE_PRIOR": 0}):
        off = recall_memories("facts", "公司在哪个城市", top_k=2, touch=False)
    assert [(h.memory.pk, h.scores.final) for h in on] == [(h.memory.pk, h.scores.final) for h in off]
    assert all(h.scores.window is None and h.scores.window_cosine is None and h.scores.prior == 1.0 for h in on)


def test_priors_read_names_and_periods_in_both_languages():
    assert speaker_of("Caroline: hi there") == "caroline"
    assert speaker_of("张三：你好") == "张三"
    assert speaker_of("The plan, as agreed: ship Friday") == ""
    assert speaker_of("no colon at all") == ""
    assert named_speaker("When did Caroline paint?", ["caroline", "melanie"]) == "caroline"
    assert named_speaker("Did Caroline and Melanie meet?", ["caroline", "melanie"]) == ""
    assert named_speaker("张三什么时候去的？", ["张三", "李四"]) == "张三"
    assert named_speaker("What did Carol say?", ["caroline"]) == ""  # whole names only
    assert named_period("What happened in May 2023?") == ({5}, {2023})
    assert named_period("2023年5月发生了什么") == ({5}, {2023})
    assert named_period("十二月的计划") == ({12}, set())
    assert named_period("我们2022年做了什么") == (set(), {2022})
    assert named_period("What did she say?") == (set(), set())
    assert named_period("May I ask what she may do?") == (set(), set())  # the verb, not the month
    assert named_period("what happened in june") == ({6}, set())
    when = dt.datetime(2023, 5, 8, tzinfo=dt.UTC)
    assert in_period(when, {5}, {2023}) and in_period(when, set(), {2023}) and in_period(when, {5}, set())
    assert not in_period(when, {6}, {2023}) and not in_period(when, set(), set()) and not in_period(None, {5}, set())
