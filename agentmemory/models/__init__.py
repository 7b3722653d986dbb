"""agentmemory models, one module per area; import them from here."""
from .api_keys import ApiKey
from .audit import AuditEvent
from .knowledge import (
    Chunk,
    ChunkSentence,
    Document,
    DocumentVersion,
    DuplicatePolicy,
    HeldVersion,
    ImportJob,
    KnowledgeBase,
)
from .ledger import ContextFeedback, ContextRecord, LLMUsage
from .memory import DeletionReceipt, MemoryItem, MemoryProfile, MemoryTerm
from .memory_tests import MemoryTestCase
from .search import (
    EvaluationCase,
    EvaluationRun,
    KeywordPosting,
    KnowledgeBaseRetrieval,
    KnowledgeBaseStats,
    KnowledgeTermStat,
)
from .working import ExtractionRun, Session, Turn

__all__ = [
    "ApiKey",
    "AuditEvent",
    "Chunk",
    "ChunkSentence",
    "ContextFeedback",
    "ContextRecord",
    "DeletionReceipt",
    "Document",
    "DocumentVersion",
    "DuplicatePolicy",
    "EvaluationCase",
    "EvaluationRun",
    "ExtractionRun",
    "HeldVersion",
    "ImportJob",
    "KeywordPosting",
    "KnowledgeBase",
    "KnowledgeBaseRetrieval",
    "KnowledgeBaseStats",
    "KnowledgeTermStat",
    "LLMUsage",
    "MemoryItem",
    "MemoryProfile",
    "MemoryTerm",
    "MemoryTestCase",
    "Session",
    "Turn",
]
