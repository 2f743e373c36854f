"""Artifact kinds and lanes: the registry and its typed projection contract, record
declarations, lane payload schemas, and reading normalized lane outputs."""
