  // -- what the page shows of records: columns, labels, distinct values, summary, place ----
  // Per lane: the columns shown (not the ID column unless asked, never an empty one) and
  // the textual columns a filter offers.
  function isEmpty(value) { return value === null || value === undefined || value === ""; }
  function isTextual(lane, column) {
    if (column === lane.idColumn || column === lane.referenceColumn) return false;
    return lane.records.some(function (record) { return typeof record[column] === "string"; }) &&
      lane.records.every(function (record) {
        return record[column] === null || record[column] === undefined || typeof record[column] === "string";
      });
  }
  const laneInfo = lanes.map(function (lane) {
    const filled = lane.columns.filter(function (column) {
      return lane.records.some(function (record) { return !isEmpty(record[column]); });
    });
    const textual = filled.filter(function (column) { return isTextual(lane, column); });
    return { filled: filled, textual: textual, values: {} };
  });
  function label(l, column) { return lanes[l].labels[column] || column; }
  // A member's value as a filter compares it: a missing member is null (shown "unknown").
  function memberValue(record, column) { return record[column] === undefined ? null : record[column]; }
  // The distinct values of a textual column, {value, count} each, null (unknown) last.
  function distinct(l, column) {
    const info = laneInfo[l];
    if (!info.values[column]) {
      const counts = new Map();
      for (const record of lanes[l].records) {
        const value = memberValue(record, column);
        counts.set(value, (counts.get(value) || 0) + 1);
      }
      info.values[column] = Array.from(counts.entries()).map(function (entry) {
        return { value: entry[0], count: entry[1] };
      }).sort(function (a, b) {
        return a.value === null ? 1 : b.value === null ? -1 : a.value.localeCompare(b.value);
      });
    }
    return info.values[column];
  }
  function recordSummary(l, r) {
    const lane = lanes[l], record = lane.records[r];
    const parts = [];
    for (const column of lane.columns) {
      const value = record[column];
      if (column !== lane.referenceColumn && column !== lane.idColumn && typeof value === "string") parts.push(value);
    }
    const text = parts.join(" \u00b7 ");
    return text.length > 120 ? text.slice(0, 117) + "..." : text;
  }
  // The session's positions are known (the report was given the source): untimed records
  // are placed at their first cited unit's position in the session, not in the evidence.
  const placedInSession = !timed && report.sessionUnits !== null && lanes.some(function (lane) { return lane.at !== null; });
  // Where a record happened: the time of its first cited unit, else that unit's position
  // (in the session when known, else in the published evidence).
  function recordPlace(l, r) {
    if (placedInSession) return lanes[l].at === null ? null : lanes[l].at[r];
    let best = null;
    for (const span of resolved[l][r]) if (span && (best === null || span.first < best)) best = span.first;
    if (best === null) return null;
    if (timed) return units[best].startMs;
    return best;
  }
