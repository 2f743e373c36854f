"""The DuckDB peer: one SQL query doing the selection (``peers.py``).

JSON Lines: ``read_json`` (newline-delimited, the unit columns given; the header line is
a row without a ``unit_id``, dropped after numbering the rows with ``row_number()``);
JSON: ``read_json`` of the whole document and ``unnest(units)`` numbered by
``generate_subscripts``. Each reference's ends are joined to their positions, widened by
the window, expanded to positions (``range``), and the units at those positions kept, in
document order, written with ``COPY ... (FORMAT json)``. DuckDB keeps the scan order
(``preserve_insertion_order``, its default); the check would show it if not.

Usage: ``python -m benchmarks.contenders.duckdb_query --form F --window W --references R
SOURCE OUTPUT``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from benchmarks.contenders import register
from benchmarks.contenders.peers import Peer, parse_args

register(
    Peer(
        "duckdb",
        "one DuckDB query (read_json): the covered units (the selection, not the document)",
        "benchmarks.contenders.duckdb_query",
        "duckdb",
    )
)

UNIT = (
    "STRUCT(unit_id VARCHAR, kind VARCHAR, text VARCHAR, "
    "metadata STRUCT(speaker VARCHAR, start_ms BIGINT, end_ms BIGINT))"
)
ROWS = {
    "jsonl": """
        SELECT row_number() OVER () AS position, unit_id, kind, text, metadata
        FROM read_json($source, format = 'newline_delimited', columns = {
            unit_id: 'VARCHAR', kind: 'VARCHAR', text: 'VARCHAR',
            metadata: 'STRUCT(speaker VARCHAR, start_ms BIGINT, end_ms BIGINT)'})
    """,
    "json": f"""
        SELECT position, u.unit_id, u.kind, u.text, u.metadata FROM (
            SELECT unnest(units) AS u, generate_subscripts(units, 1) AS position
            FROM read_json($source, format = 'unstructured', maximum_object_size = $size,
                           columns = {{units: '{UNIT}[]'}}))
    """,
}
QUERY = """
    COPY (
        WITH units AS MATERIALIZED ({rows}),
        refs AS (SELECT * FROM read_json($references, format = 'newline_delimited',
                 columns = {{start_unit_id: 'VARCHAR', end_unit_id: 'VARCHAR'}})),
        spans AS (
            SELECT s.position - $window AS low, e.position + $window AS high
            FROM refs JOIN units s ON s.unit_id = refs.start_unit_id
                      JOIN units e ON e.unit_id = refs.end_unit_id),
        covered AS (SELECT DISTINCT unnest(range(low, high + 1)) AS position FROM spans)
        SELECT unit_id, kind, text, metadata
        FROM units SEMI JOIN covered USING (position)
        WHERE unit_id IS NOT NULL
        ORDER BY position
    ) TO '{output}' (FORMAT json)
"""


def main(argv: Sequence[str] | None = None) -> int:
    import duckdb

    args = parse_args("benchmarks.contenders.duckdb_query", __doc__, argv)
    output = args.output.replace("'", "''")
    query = QUERY.format(rows=ROWS[args.form], output=output)
    parameters: dict[str, object] = {
        "source": args.source,
        "references": args.references,
        "window": args.window,
    }
    if args.form == "json":
        parameters["size"] = os.path.getsize(args.source) + 1
    duckdb.connect().execute(query, parameters)
    return 0


if __name__ == "__main__":
    sys.exit(main())
