"""Evaluation: a bundle's records against a reference, per lane (``streamer eval``).

- ``reference``: the reference document (``notarius.evaluation.reference``): per lane, the
  expected records of its artifact kind and the unit ranges that say them, read and
  written;
- ``identity``: what two records of a kind must share to be the same record (the kind's
  identity members after its canonicalization: catalog, glossary, name key);
- ``matching``: published records matched to expected ones, within a tolerance of units;
- ``scores``: the figures of a lane (precision, recall, F1, evidence overlap) and their
  table and JSON.

The stage is generic: what it knows of a kind comes from the kind's declaration in the
registry, never from ``streamer.domain``.
"""
