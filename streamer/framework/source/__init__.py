"""The source document: its units (one declaration, ``units.SourceUnit``), their rules,
the streaming reader of both forms, and source references."""
