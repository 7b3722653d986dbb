"""Embedding backends: the bundled offline model and any OpenAI-compatible /v1/embeddings server."""
