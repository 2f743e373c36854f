"""The generic framework, one folder a part: source documents and their units (``source``),
streaming JSON (``json``), artifact kinds (``kinds``), chunking, the evidence projector
(``evidence``), the ordered process pool (``processes``), entry-point registries
(``plugins``), errors and their content-safe rendering (``errors``); the name key and the
party (``names``, ``party``); bounded reads of small files (``regular_files``).

Nothing in this package knows about D&D.
"""
