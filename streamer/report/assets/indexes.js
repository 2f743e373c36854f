  // -- indexes: units by ID, the context of a unit, what each reference resolves to --------
  const unitIndex = new Map();
  for (let i = 0; i < units.length; i++) unitIndex.set(units[i].id, i);
  const contextFirst = new Int32Array(contexts.length);
  contexts.forEach(function (context, c) { contextFirst[c] = context.first; });
  function contextOf(position) {
    let low = 0, high = contexts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (contextFirst[middle] <= position) low = middle; else high = middle - 1;
    }
    return low;
  }
  // Each reference of each record: the positions of its first and last unit when its lane is
  // allowlisted (the evidence document then holds exactly its units), else null.
  const resolved = lanes.map(function (lane) {
    return lane.references.map(function (cited) {
      return cited.map(function (reference) {
        if (!report.allowlist.has(lane.id)) return null;
        const first = unitIndex.get(reference.startUnitId), last = unitIndex.get(reference.endUnitId);
        if (first === undefined || last === undefined || first > last) return null;
        return { first: first, last: last };
      });
    });
  });
  const citations = []; // every resolved reference with its record, by first unit
  resolved.forEach(function (records, l) {
    records.forEach(function (spans, r) {
      for (const span of spans) if (span) citations.push({ first: span.first, last: span.last, lane: l, record: r });
    });
  });
  citations.sort(function (a, b) {
    return a.first - b.first || a.last - b.last || a.lane - b.lane || a.record - b.record;
  });
  // The records citing the unit at ``position``: {lane, record} each, in lane and record order.
  function citing(position) {
    let low = 0, high = citations.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (citations[middle].first <= position) low = middle + 1; else high = middle;
    }
    const seen = new Set(), out = [];
    for (let k = 0; k < low; k++) {
      const citation = citations[k];
      const key = citation.lane + ":" + citation.record;
      if (citation.last >= position && !seen.has(key)) {
        seen.add(key);
        out.push({ lane: citation.lane, record: citation.record });
      }
    }
    out.sort(function (a, b) { return a.lane - b.lane || a.record - b.record; });
    return out;
  }
