  // -- filters: which records and which units the view shows, and in what order -------------
  // state.speaker: undefined for every speaker, null for the units without one, else a speaker.
  function speakerMatches(position) {
    return state.speaker === undefined || units[position].speaker === state.speaker;
  }
  function memberMatches(l, r) {
    const chosen = state.filters[lanes[l].id];
    if (!chosen) return true;
    const record = lanes[l].records[r];
    for (const column in chosen) if (memberValue(record, column) !== chosen[column]) return false;
    return true;
  }
  function recordMatches(l, r) {
    if (state.lane && lanes[l].id !== state.lane) return false;
    if (!memberMatches(l, r)) return false;
    if (state.speaker === undefined) return true;
    for (const span of resolved[l][r]) {
      if (!span) continue;
      for (let p = span.first; p <= span.last; p++) if (speakerMatches(p)) return true;
    }
    return false;
  }
  // With a member filter, units are those of the contexts the matching records cite.
  let filteredContexts = null;
  function computeFilteredContexts() {
    filteredContexts = null;
    lanes.forEach(function (lane, l) {
      if (!state.filters[lane.id]) return;
      if (filteredContexts === null) filteredContexts = new Set();
      for (let r = 0; r < lane.records.length; r++) {
        if (!memberMatches(l, r)) continue;
        for (const span of resolved[l][r]) if (span) filteredContexts.add(contextOf(span.first));
      }
    });
  }
  function unitMatches(position) {
    if (state.lane && !contexts[contextOf(position)].laneIds.has(state.lane)) return false;
    if (filteredContexts !== null && !filteredContexts.has(contextOf(position))) return false;
    return speakerMatches(position);
  }
  function isUnknown(value) { return value === null || value === undefined; }
  function compareValues(a, b) {
    if (isUnknown(a) || isUnknown(b)) return isUnknown(a) === isUnknown(b) ? 0 : isUnknown(a) ? 1 : -1;
    if (typeof a === "number" && typeof b === "number") return a - b;
    return shown(a).localeCompare(shown(b), undefined, { numeric: true });
  }
  // The records of lane ``l`` the filters keep, in the lane's sort: state.sort[lane id] is
  // {column, direction}, column null for the Evidence column (references without a member).
  function visibleRows(l) {
    const lane = lanes[l];
    const rows = [];
    for (let r = 0; r < lane.records.length; r++) if (recordMatches(l, r)) rows.push(r);
    const sort = state.sort[lane.id];
    if (sort) {
      const byPlace = sort.column === null || sort.column === lane.referenceColumn;
      const key = function (r) { return byPlace ? recordPlace(l, r) : lane.records[r][sort.column]; };
      rows.sort(function (a, b) {
        const va = key(a), vb = key(b);
        if (isUnknown(va) || isUnknown(vb)) { // unknown last
          return isUnknown(va) === isUnknown(vb) ? a - b : isUnknown(va) ? 1 : -1;
        }
        return sort.direction * compareValues(va, vb) || a - b;
      });
    }
    return rows;
  }
