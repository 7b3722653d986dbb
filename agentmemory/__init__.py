"""agentmemory: memory of users and a citable knowledge base for LLM agents, as a Django app."""

__version__ = "0.1.0"
