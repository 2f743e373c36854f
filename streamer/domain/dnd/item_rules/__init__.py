"""The rules of ``dnd/item-events``, by what each part does: ``currency`` reads a sum of
money, ``catalog`` canonicalizes an item name (the SRD catalog), ``phrases`` reads the item
after a verb, ``events`` the events of a unit's text and ``rules`` is the extractor."""
