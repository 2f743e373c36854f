"""Transcript importers: other formats in, source documents out.

One module a format (``crd3``, ``whisperx``, ``webvtt``, ``srt``, ``text``), each yielding
source units (``SourceUnit`` structs, built once, e.g. by ``document.utterance``) in
transcript order; ``formats.read_utterances`` picks one and checks its options;
``document.spool_document`` is the shared writer (the batch check, semantic digest,
spool). ``lines`` and ``json_items`` read line-based and JSON input one
line or one array item at a time. Publication is the API's (``streamer.api``): importers
depend on ``streamer.framework`` only.
"""
