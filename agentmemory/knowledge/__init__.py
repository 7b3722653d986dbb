"""Knowledge base services: parse -> chunk -> ingest (embed) -> publish, plus re-embedding."""
