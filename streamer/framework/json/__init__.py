"""Streaming JSON: item runs cut from a buffer and decoded at once (``item_runs``), the byte
scan (``byte_scan``), ijson events (``events``), canonical JSON (``canonical``), the
exactly-these-members check (``members``) and msgspec declarations as sentences
(``declared_rules``)."""
