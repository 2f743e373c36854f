"""The report stage: one self-contained HTML page that shows a bundle to a person.

Generic: it reads a bundle through its ``index.json`` and shows each lane's records as a
table of their JSON fields; the references of a record come from its artifact kind's
evidence projection (the registry is given by the caller), never from member names.

* ``embedding``: JSON bytes made safe inside an HTML ``<script>`` element.
* ``lane_tables``: the lanes of a bundle as tables (columns, records, references).
* ``evidence_stream``: the evidence header and the unit count, streamed.
* ``evidence_rows``: the page rows of the evidence units, as validation reads them.
* ``characters``: each speaker's character, resolved for the page.
* ``page``: the HTML shell, its inline style and script (its modules in ``assets``), and
  its Content-Security-Policy.
* ``writer``: the page written from a bundle, the embedded data streamed into it.
"""

from streamer.report.writer import ReportSummary, RunNotes, write_report

__all__ = ["ReportSummary", "RunNotes", "write_report"]
