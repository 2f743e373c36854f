"""Evidence context: the domain-neutral request, the interval union and the streaming
projector."""
