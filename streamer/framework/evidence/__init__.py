"""Evidence context: the domain-neutral request, the interval merge and the streaming
projector (its coverage and its spool)."""
