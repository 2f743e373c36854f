"""Evidence context: the domain-neutral request and the streaming projector."""
