"""The agent's context: route -> gather -> fuse -> budget -> render (-> answer); see assemble.assemble_context."""
