"""agentmemory models, one module per area; import them from here."""
from .apikeys import ApiKey
from .audit import AuditEvent
from .conversation import ExtractionRun, Session, Turn
from .memory import DeletionReceipt, MemoryItem, MemoryProfile
from .knowledge import Chunk, Document, DocumentVersion, ImportJob, KnowledgeBase
from .retrieval import (EvaluationCase, EvaluationRun, KnowledgeBaseRetrieval, KnowledgeBaseStats,
                        KnowledgeTermStat)

__all__ = ["ApiKey", "AuditEvent", "ExtractionRun", "Session", "Turn", "Chunk", "Document", "DocumentVersion", "ImportJob", "KnowledgeBase",
           "EvaluationCase", "EvaluationRun", "KnowledgeBaseRetrieval", "KnowledgeBaseStats", "KnowledgeTermStat",
           "DeletionReceipt", "MemoryItem", "MemoryProfile"]
