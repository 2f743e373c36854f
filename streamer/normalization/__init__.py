"""Normalization (ADR-0009): raw extraction candidates in, normalized lane outputs out.

Generic: what it knows of a kind comes from the kind's ``NormalizationSpec``
(``streamer.framework.kinds.normalization_spec``). One module a job:

- ``glossary``: the auxiliary glossary (YAML) and ``names``, the name key and aliases;
- ``candidates``: reading a candidates file (header, then one candidate a line);
- ``rejections``: the rejection reasons and lines;
- ``source_index``: the one pass over the source document (chunk plan, cited positions);
- ``grounding``: a candidate's chunk and references checked against that index;
- ``collapse``: the identity rules that make records of accepted candidates;
- ``identifiers``: the record ID function;
- ``lanes``: one lane from candidates to its records.
"""
