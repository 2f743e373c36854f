  // -- the view (selection, search, filters, sort), kept in the URL fragment ----------------
  // lane: "" for every lane; speaker: undefined for every speaker, null for no speaker;
  // selected: null or {lane, record} (indexes); filters: {lane id: {column: value or null}};
  // sort: {lane id: {column (null: the Evidence column), direction (1 or -1)}}.
  const state = {
    lane: "", speaker: undefined, query: "", selected: null, filters: {}, sort: {}, ids: false, pages: {},
  };
  // How the fragment writes what is not a string (unchanged, so saved links keep working):
  const FRAGMENT_NO_SPEAKER = "\u0000none"; // speaker=: the units without a speaker
  const FRAGMENT_EVIDENCE_COLUMN = "\u0000refs"; // sort={lane: [column, direction]}: the Evidence column
  function fragment() {
    const params = new URLSearchParams();
    if (state.selected) params.set("record", lanes[state.selected.lane].id + ":" + (state.selected.record + 1));
    if (state.query) params.set("q", state.query);
    if (state.lane) params.set("lane", state.lane);
    if (state.speaker !== undefined) params.set("speaker", state.speaker === null ? FRAGMENT_NO_SPEAKER : state.speaker);
    if (Object.keys(state.filters).length) params.set("filter", JSON.stringify(state.filters));
    if (Object.keys(state.sort).length) {
      const sort = {};
      for (const id in state.sort) {
        const column = state.sort[id].column;
        sort[id] = [column === null ? FRAGMENT_EVIDENCE_COLUMN : column, state.sort[id].direction];
      }
      params.set("sort", JSON.stringify(sort));
    }
    if (state.ids) params.set("ids", "1");
    const text = params.toString();
    return text ? "#" + text : "";
  }
  function recordOfId(lane, id) {
    return lane.idColumn ? lane.records.findIndex(function (record) { return record[lane.idColumn] === id; }) : -1;
  }
  function laneIndex(id) { return lanes.findIndex(function (lane) { return lane.id === id; }); }
  function fromFragment(hash) {
    const params = new URLSearchParams(hash.replace(/^#/, ""));
    const next = { selected: null, query: "", lane: "", speaker: undefined, filters: {}, sort: {}, ids: false };
    const record = params.get("record");
    if (record) {
      const at = record.lastIndexOf(":");
      const l = laneIndex(record.slice(0, at)), key = record.slice(at + 1);
      // lane:N (the Nth record) or lane:RECORD_ID (the record of that ID: notes link so)
      const r = /^[0-9]+$/.test(key) || l < 0 ? Number(key) - 1 : recordOfId(lanes[l], key);
      if (l >= 0 && Number.isInteger(r) && r >= 0 && r < lanes[l].records.length) next.selected = { lane: l, record: r };
    }
    next.query = (params.get("q") || "").trim().toLowerCase();
    if (laneIndex(params.get("lane") || "") >= 0) next.lane = params.get("lane");
    const speaker = params.get("speaker");
    if (speaker === FRAGMENT_NO_SPEAKER) next.speaker = null;
    else if (speaker !== null && speakers.has(speaker)) next.speaker = speaker;
    try {
      next.filters = filtersFrom(JSON.parse(params.get("filter") || "{}"));
      next.sort = sortFrom(JSON.parse(params.get("sort") || "{}"));
    } catch (error) { /* a hand-edited fragment: what could be read is kept */ }
    next.ids = params.get("ids") === "1";
    return next;
  }
  // The member filters a fragment names that the page offers.
  function filtersFrom(given) {
    const filters = {};
    for (const id in given) {
      const l = laneIndex(id);
      if (l < 0 || typeof given[id] !== "object" || given[id] === null) continue;
      for (const column in given[id]) {
        const value = given[id][column];
        if (laneInfo[l].textual.indexOf(column) < 0 || (value !== null && typeof value !== "string")) continue;
        filters[id] = filters[id] || {};
        filters[id][column] = value;
      }
    }
    return filters;
  }
  function sortFrom(given) {
    const sort = {};
    for (const id in given) {
      const pair = given[id];
      if (laneIndex(id) >= 0 && Array.isArray(pair) && typeof pair[0] === "string" && (pair[1] === 1 || pair[1] === -1)) {
        sort[id] = { column: pair[0] === FRAGMENT_EVIDENCE_COLUMN ? null : pair[0], direction: pair[1] };
      }
    }
    return sort;
  }
  let applied = null;
  function go(changes, push) {
    Object.assign(state, changes);
    const hash = fragment();
    const url = location.pathname + location.search + hash;
    if (hash !== location.hash) {
      if (push) history.pushState(null, "", url); else history.replaceState(null, "", url || location.pathname);
    }
    applied = location.hash;
    render();
  }
  function select(l, r) {
    go({ selected: { lane: l, record: r } }, true);
    if (window.matchMedia("(max-width: 800px)").matches) evidencePanel.scrollIntoView({ block: "start" });
  }
  function render() {
    clear(citationBox);
    computeFilteredContexts();
    if (search.value.trim().toLowerCase() !== state.query) search.value = state.query;
    laneSelect.value = state.lane;
    speakerSelect.value = state.speaker === undefined ? "" : state.speaker === null ? "none" : "s" + speakerList.indexOf(state.speaker);
    idBox.checked = state.ids;
    showAll.hidden = state.selected === null;
    if (state.selected) {
      const l = state.selected.lane;
      state.pages[lanes[l].id] = Math.floor(Math.max(0, visibleRows(l).indexOf(state.selected.record)) / PAGE);
    }
    renderRecords();
    markSelected();
    if (state.selected) recordView(state.selected.lane, state.selected.record);
    else if (state.query) runSearch();
    else browse();
  }
  function followFragment() {
    if (location.hash === applied) return;
    applied = location.hash;
    Object.assign(state, fromFragment(location.hash));
    render();
  }
