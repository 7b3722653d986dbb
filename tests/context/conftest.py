"""Helpers of the context tests: seed a knowledge base and memories through the real API."""
from __future__ import annotations

import time

import pytest

CASES_DOC = """# 联名活动案例

## 案例一：母婴品牌与绘本出版社联名
某母婴品牌与儿童绘本出版社联名推出限定礼盒，双方共享会员渠道，投入不到五万元，三个月带来两万新客。

## 案例二：环保材料联名
一个主打安全环保的品牌与环保材料厂商联名，用可降解包装讲品牌故事，成本低、话题性强。
"""

BUDGET_DOC = """# 低成本活动预算模板

## 预算分配
总预算五千元以内：物料 30%，渠道推广 40%，赠品 20%，备用金 10%。

## 省钱做法
优先资源置换和社群传播；联名方互换渠道，不额外采购广告位。
"""


@pytest.fixture
def seeded_kb(api_client):
    """A knowledge base 'marketing' holding the two seed documents, imported through the API."""
    r = api_client.post("/api/agentmemory/knowledge-bases/", {"slug": "marketing", "name": "营销知识库"},
                        format="json")
    assert r.status_code == 201, r.content
    for ext, title, content in (("cases", "联名活动案例", CASES_DOC), ("budget", "低成本活动预算模板", BUDGET_DOC)):
        r = api_client.post("/api/agentmemory/knowledge-bases/marketing/documents/",
                            {"external_id": ext, "title": title, "content": content, "format": "markdown"},
                            format="json")
        assert r.status_code in (200, 201, 202), r.content
        if r.status_code == 202:  # a real worker imports it: wait for the job
            job_url = r.json()["url"]
            wait_for(lambda u=job_url: api_client.get(u).json()["status"] in ("succeeded", "failed"))
    return "marketing"


def wait_for(condition, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting for the worker"
        time.sleep(0.2)


def new_session(api_client, user_id: str, turns: list[tuple[str, str]] = ()) -> str:
    r = api_client.post("/api/agentmemory/sessions/", {"user_id": user_id}, format="json")
    assert r.status_code == 201, r.content
    session_id = r.json()["id"]
    for role, content in turns:
        r = api_client.post(f"/api/agentmemory/sessions/{session_id}/turns/", {"role": role, "content": content},
                            format="json")
        assert r.status_code == 201, r.content
    return session_id


def add_memory(api_client, user_id: str, content: str, *, type: str = "fact", key: str = "",
               source: str = "user_stated", confidence: float = 0.9) -> dict:
    r = api_client.post(f"/api/agentmemory/users/{user_id}/memories/",
                        {"content": content, "type": type, "key": key, "source": source, "confidence": confidence},
                        format="json")
    assert r.status_code in (200, 201), r.content
    return r.json()


def context(api_client, **body):
    return api_client.post("/api/agentmemory/context/", body, format="json")
