"""The generic framework: source documents, source references, positions, interval union,
the artifact-kind registry and its typed projection contract, and the evidence projector.

Nothing in this package knows about D&D.
"""
