"""The polars peer: a short lazy polars script doing the selection (``peers.py``).

JSON Lines: ``scan_ndjson`` with the unit schema (the header line reads as a row without
a ``unit_id`` and is dropped after numbering the rows); JSON: ``read_json`` of the whole
document, ``units`` exploded. Each reference's ends are joined to their positions,
widened by the window, expanded to positions (``int_ranges``), and the units at those
positions kept (a semi join), in document order.

Usage: ``python -m benchmarks.contenders.polars_script --form F --window W --references R
SOURCE OUTPUT``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from benchmarks.contenders import register
from benchmarks.contenders.peers import Peer, parse_args

register(
    Peer(
        "polars",
        "a lazy polars script: the covered units (the selection, not the document)",
        "benchmarks.contenders.polars_script",
        "polars",
    )
)


def main(argv: Sequence[str] | None = None) -> int:
    import polars as pl

    args = parse_args("benchmarks.contenders.polars_script", __doc__, argv)
    metadata = pl.Struct({"speaker": pl.String(), "start_ms": pl.Int64(), "end_ms": pl.Int64()})
    unit: dict[str, pl.DataType] = {
        "unit_id": pl.String(),
        "kind": pl.String(),
        "text": pl.String(),
        "metadata": metadata,
    }
    if args.form == "jsonl":
        rows = pl.scan_ndjson(args.source, schema=unit)
    else:
        document = pl.read_json(args.source, schema={"units": pl.List(pl.Struct(unit))})
        rows = document.lazy().explode("units").unnest("units")
    units = rows.with_row_index("position").filter(pl.col("unit_id").is_not_null())
    ids = units.select("unit_id", "position")
    refs = pl.scan_ndjson(args.references)
    spans = refs.join(
        ids.rename({"unit_id": "start_unit_id", "position": "start"}), on="start_unit_id"
    ).join(ids.rename({"unit_id": "end_unit_id", "position": "end"}), on="end_unit_id")
    window = args.window
    covered = spans.select(
        pl.int_ranges(
            (pl.col("start").cast(pl.Int64) - window).clip(0),
            pl.col("end").cast(pl.Int64) + window + 1,
            dtype=pl.UInt32,
        ).alias("position")
    ).explode("position")
    selected = units.join(covered.unique(), on="position", how="semi").sort("position")
    selected.drop("position").collect().write_ndjson(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
