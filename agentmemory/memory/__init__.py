"""Long-term memory services: redact -> quality gate -> write (dedup, conflicts) -> recall -> profile -> decay/forget."""
