"""REST API of agentmemory (DRF): serializers, views, permissions and urls; no business logic."""
