"""The output stage: the JSON bundle writer, its index and schemas, atomic publication.

Nothing in this package knows about D&D.
"""
