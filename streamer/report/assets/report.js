"use strict";
// streamer report: every string of the bundle is inserted as text (createTextNode,
// textContent), never as markup; lists are rendered a page at a time.
(function () {
  const PAGE = 100; // rows of a record table or of a unit list shown at once
  const CONTEXT_PAGE = 200; // units of one context shown at once
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const evidence = data.evidence;
  const units = evidence ? evidence.units : [];
  const contexts = evidence ? evidence.contexts : [];
  const allowlist = new Set(evidence ? evidence.lanes : []);
  const lanes = data.lanes;
  const state = { lane: "", speaker: null, query: "", view: null, selected: null, pages: {} };

  // -- indexes ------------------------------------------------------------------------
  const unitIndex = new Map();
  for (let i = 0; i < units.length; i++) unitIndex.set(units[i][0], i);
  const contextFirst = new Int32Array(contexts.length);
  const contextLanes = contexts.map(function (context, c) {
    contextFirst[c] = context[0];
    const ids = new Set();
    for (const reference of context[2]) for (const lane of reference[2]) ids.add(lane);
    return ids;
  });
  function contextOf(position) {
    let low = 0, high = contexts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (contextFirst[middle] <= position) low = middle; else high = middle - 1;
    }
    return low;
  }
  // Each reference of each record: resolved to unit positions when its lane is allowlisted
  // (the evidence document then holds exactly its units), else null.
  const resolved = lanes.map(function (lane) {
    return lane.references.map(function (cited) {
      return cited.map(function (pair) {
        if (!allowlist.has(lane.lane_id)) return null;
        const start = unitIndex.get(pair[0]), end = unitIndex.get(pair[1]);
        if (start === undefined || end === undefined || start > end) return null;
        return [start, end];
      });
    });
  });
  const citations = []; // [start, end, lane index, record index], by start
  resolved.forEach(function (records, l) {
    records.forEach(function (spans, r) {
      for (const span of spans) if (span) citations.push([span[0], span[1], l, r]);
    });
  });
  citations.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3]; });
  function citing(position) {
    let low = 0, high = citations.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (citations[middle][0] <= position) low = middle + 1; else high = middle;
    }
    const seen = new Set(), out = [];
    for (let k = 0; k < low; k++) {
      const c = citations[k];
      const key = c[2] + ":" + c[3];
      if (c[1] >= position && !seen.has(key)) { seen.add(key); out.push([c[2], c[3]]); }
    }
    out.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    return out;
  }
  const speakers = new Set();
  let unspoken = false;
  for (const unit of units) { if (unit[3] === null) unspoken = true; else speakers.add(unit[3]); }
  let haystack = null; // lower-cased text and speaker of each unit, built on first search
  function searchable() {
    if (haystack === null) {
      haystack = new Array(units.length);
      for (let i = 0; i < units.length; i++) {
        haystack[i] = (units[i][2] + "\n" + (units[i][3] === null ? "" : units[i][3])).toLowerCase();
      }
    }
    return haystack;
  }

  // -- DOM helpers: text only -----------------------------------------------------------
  function el(tag, className, children) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    for (const child of children || []) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }
  function button(className, label, action) {
    const node = el("button", className, [label]);
    node.type = "button";
    node.addEventListener("click", function (event) { event.stopPropagation(); action(); });
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function clock(ms) {
    if (ms === null || ms === undefined) return "";
    const total = Math.floor(ms / 1000);
    const h = Math.floor(total / 3600), m = Math.floor(total / 60) % 60, s = total % 60;
    return h + ":" + String(m).padStart(2, "0") + ":" + String(s).padStart(2, "0");
  }
  function shown(value) {
    return typeof value === "string" ? value : JSON.stringify(value);
  }
  function pager(page, pages, go) {
    const node = el("div", "pager", []);
    if (pages <= 1) return node;
    node.appendChild(button("prev", "previous", function () { go(page - 1); }));
    node.lastChild.disabled = page === 0;
    node.appendChild(el("span", "page", ["page " + (page + 1) + " of " + pages]));
    node.appendChild(button("next", "next", function () { go(page + 1); }));
    node.lastChild.disabled = page >= pages - 1;
    return node;
  }
  function highlighted(text, query) {
    const node = el("span", "text", []);
    const lower = text.toLowerCase();
    if (!query || lower.length !== text.length) { node.textContent = text; return node; }
    let from = 0;
    for (;;) {
      const at = lower.indexOf(query, from);
      if (at < 0) break;
      node.appendChild(document.createTextNode(text.slice(from, at)));
      node.appendChild(el("mark", "", [text.slice(at, at + query.length)]));
      from = at + query.length;
    }
    node.appendChild(document.createTextNode(text.slice(from)));
    return node;
  }
  function referenceLabel(pair) {
    return pair[0] === pair[1] ? pair[0] : pair[0] + " \u2013 " + pair[1];
  }
  function recordSummary(l, r) {
    const lane = lanes[l], record = lane.records[r];
    const parts = [];
    for (const column of lane.columns) {
      const value = record[column];
      if (column !== lane.reference_column && typeof value === "string") parts.push(value);
    }
    const text = parts.join(" \u00b7 ");
    return text.length > 120 ? text.slice(0, 117) + "..." : text;
  }

  // -- the page -----------------------------------------------------------------------
  const app = document.getElementById("app");
  const header = el("header", "", [el("h1", "", [data.title])]);
  header.appendChild(el("div", "source", [
    "document " + data.source.document_id + " \u00b7 " + data.source.semantic_digest,
  ]));
  const controls = el("div", "controls", []);
  const search = el("input", "", []);
  search.type = "search"; search.id = "search"; search.placeholder = "Search text and speakers";
  search.setAttribute("aria-label", "Search text and speakers");
  const laneSelect = el("select", "", []);
  laneSelect.id = "lane-filter"; laneSelect.setAttribute("aria-label", "Lane");
  laneSelect.appendChild(new Option("all lanes", ""));
  for (const lane of lanes) laneSelect.appendChild(new Option(lane.lane_id, lane.lane_id));
  const speakerSelect = el("select", "", []);
  speakerSelect.id = "speaker-filter"; speakerSelect.setAttribute("aria-label", "Speaker");
  speakerSelect.appendChild(new Option("all speakers", ""));
  const speakerList = Array.from(speakers).sort();
  speakerList.forEach(function (name, k) { speakerSelect.appendChild(new Option(name, "s" + k)); });
  if (unspoken) speakerSelect.appendChild(new Option("(no speaker)", "none"));
  controls.appendChild(search); controls.appendChild(laneSelect); controls.appendChild(speakerSelect);
  const status = el("span", "notice", []);
  status.id = "status";
  controls.appendChild(status);
  header.appendChild(controls);
  if (!evidence) {
    header.appendChild(el("div", "notice", [
      "This bundle has no evidence context (evidence publication was off): records and the " +
      "unit IDs they cite are shown, not the transcript.",
    ]));
  }
  const recordsPanel = el("section", "", []); recordsPanel.id = "records";
  const evidencePanel = el("section", "", []); evidencePanel.id = "evidence";
  const main = el("main", "", [recordsPanel, evidencePanel]);
  app.appendChild(header); app.appendChild(main);

  // -- filters ------------------------------------------------------------------------
  function speakerMatches(position) {
    if (state.speaker === null) return true;
    const speaker = units[position][3];
    return state.speaker === "" ? speaker === null : speaker === state.speaker;
  }
  function unitMatches(position) {
    if (state.lane && !contextLanes[contextOf(position)].has(state.lane)) return false;
    return speakerMatches(position);
  }
  function recordMatches(l, r) {
    if (state.lane && lanes[l].lane_id !== state.lane) return false;
    if (state.speaker === null) return true;
    for (const span of resolved[l][r]) {
      if (!span) continue;
      for (let p = span[0]; p <= span[1]; p++) if (speakerMatches(p)) return true;
    }
    return false;
  }

  // -- record tables ------------------------------------------------------------------
  function renderRecords() {
    clear(recordsPanel);
    lanes.forEach(function (lane, l) {
      if (state.lane && lane.lane_id !== state.lane) return;
      const rows = [];
      for (let r = 0; r < lane.records.length; r++) if (recordMatches(l, r)) rows.push(r);
      const block = el("div", "lane", []);
      block.dataset.lane = lane.lane_id;
      const count = el("span", "count", [rows.length === lane.records.length
        ? rows.length + (rows.length === 1 ? " record" : " records")
        : rows.length + " of " + lane.records.length + " records"]);
      block.appendChild(el("h2", "", [lane.lane_id, el("span", "kind", [lane.artifact_kind]), count]));
      if (lane.question) block.appendChild(el("p", "question", [lane.question]));
      if (!allowlist.has(lane.lane_id)) {
        block.appendChild(el("p", "notice", [evidence
          ? "Not in the evidence allowlist: the units this lane cites are not published."
          : "No evidence context: the units this lane cites are not published."]));
      }
      if (!rows.length) { block.appendChild(el("p", "empty", ["no records"])); recordsPanel.appendChild(block); return; }
      const pages = Math.ceil(rows.length / PAGE);
      const page = Math.min(state.pages[lane.lane_id] || 0, pages - 1);
      const columns = lane.columns.slice();
      const extra = lane.reference_column === null && lane.references.some(function (c) { return c.length; });
      const table = el("table", "", []);
      const head = el("tr", "", [el("th", "", ["#"])]);
      for (const column of columns) head.appendChild(el("th", "", [column]));
      if (extra) head.appendChild(el("th", "", ["references"]));
      table.appendChild(el("thead", "", [head]));
      const body = el("tbody", "", []);
      for (const r of rows.slice(page * PAGE, page * PAGE + PAGE)) {
        const record = lane.records[r];
        const row = el("tr", "record", [el("td", "position", [String(r + 1)])]);
        row.dataset.record = String(r);
        if (state.selected && state.selected[0] === l && state.selected[1] === r) row.classList.add("selected");
        row.addEventListener("click", function () { selectRecord(l, r); });
        for (const column of columns) {
          if (column === lane.reference_column) { row.appendChild(referenceCell(l, r)); continue; }
          const value = record[column];
          const cell = el("td", value === null ? "null" : typeof value === "string" ? "" : "json",
            [value === undefined ? "" : shown(value)]);
          cell.dataset.column = column;
          row.appendChild(cell);
        }
        if (extra) row.appendChild(referenceCell(l, r));
        body.appendChild(row);
      }
      table.appendChild(body);
      block.appendChild(table);
      block.appendChild(pager(page, pages, function (next) { state.pages[lane.lane_id] = next; renderRecords(); }));
      recordsPanel.appendChild(block);
    });
    if (!recordsPanel.firstChild) recordsPanel.appendChild(el("p", "empty", ["no lanes"]));
  }
  function referenceCell(l, r) {
    const cell = el("td", "refs", []);
    cell.dataset.column = lanes[l].reference_column || "references";
    lanes[l].references[r].forEach(function (pair, k) {
      const published = resolved[l][r][k] !== null;
      const node = button(published ? "ref" : "ref unpublished", referenceLabel(pair), function () { selectRecord(l, r); });
      node.title = published ? "show the evidence" : "these units are not published in this bundle";
      cell.appendChild(node);
    });
    return cell;
  }

  // -- unit lists ---------------------------------------------------------------------
  function unitRow(position, mark, query) {
    const unit = units[position];
    const row = el("div", "unit " + (mark === undefined ? "" : mark ? "direct" : "window"), []);
    row.dataset.unitId = unit[0];
    row.appendChild(el("span", "time", [clock(unit[4])]));
    row.appendChild(el("span", "speaker", [unit[3] === null ? "" : unit[3]]));
    row.appendChild(el("span", "uid", [unit[0]]));
    const text = highlighted(unit[2], query);
    if (mark) text.insertBefore(el("span", "mark", ["cited"]), text.firstChild);
    row.appendChild(text);
    const cites = citing(position);
    row.appendChild(cites.length
      ? button("cited-by", "cited by " + cites.length, function () { showCitations(position); })
      : el("span", "", []));
    return row;
  }
  function contextHead(c) {
    const context = contexts[c];
    const first = units[context[0]][0], last = units[context[0] + context[1] - 1][0];
    const lanesOf = Array.from(contextLanes[c]).sort().join(", ");
    return el("div", "context-head", [
      "context " + (c + 1) + " of " + contexts.length + ": " + first + " \u2013 " + last + " \u00b7 " +
      context[1] + (context[1] === 1 ? " unit" : " units") + " \u00b7 cited by " + lanesOf,
    ]);
  }
  function unitList(container, positions, query, title) {
    const pages = Math.max(1, Math.ceil(positions.length / PAGE));
    function draw(page) {
      clear(container);
      container.appendChild(el("div", "view-title", [title]));
      container.appendChild(pager(page, pages, draw));
      let last = -1;
      for (const p of positions.slice(page * PAGE, page * PAGE + PAGE)) {
        const c = contextOf(p);
        if (c !== last) { container.appendChild(contextHead(c)); last = c; }
        container.appendChild(unitRow(p, undefined, query));
      }
      if (!positions.length) container.appendChild(el("p", "empty", ["no units"]));
      container.appendChild(pager(page, pages, draw));
    }
    draw(0);
  }

  // -- views of the evidence panel ----------------------------------------------------
  const citationBox = el("div", "citations", []);
  citationBox.id = "citations";
  const viewBox = el("div", "", []);
  viewBox.id = "view";
  function frame() {
    clear(evidencePanel);
    if (citationBox.firstChild) evidencePanel.appendChild(citationBox);
    evidencePanel.appendChild(viewBox);
  }
  function browse() {
    state.view = "browse";
    frame();
    if (!evidence) {
      clear(viewBox);
      viewBox.appendChild(el("p", "empty", ["No evidence context in this bundle."]));
      return;
    }
    const positions = [];
    for (let p = 0; p < units.length; p++) if (unitMatches(p)) positions.push(p);
    status.textContent = positions.length + " of " + units.length + " units";
    unitList(viewBox, positions, "", "The evidence context: " + positions.length +
      (positions.length === 1 ? " unit in " : " units in ") + contexts.length +
      (contexts.length === 1 ? " context" : " contexts"));
  }
  function runSearch() {
    state.view = "search";
    frame();
    const query = state.query;
    const text = searchable();
    const positions = [];
    for (let p = 0; p < text.length; p++) if (text[p].indexOf(query) >= 0 && unitMatches(p)) positions.push(p);
    status.textContent = positions.length + (positions.length === 1 ? " unit matches" : " units match");
    status.dataset.matches = String(positions.length);
    unitList(viewBox, positions, query, "Search: " + positions.length +
      (positions.length === 1 ? " unit matches" : " units match"));
  }
  function selectRecord(l, r) {
    state.selected = [l, r];
    state.view = "record";
    state.pages[lanes[l].lane_id] = Math.floor(Math.max(0, visibleRows(l).indexOf(r)) / PAGE);
    renderRecords();
    const row = recordsPanel.querySelector('[data-lane="' + CSS.escape(lanes[l].lane_id) + '"] tr[data-record="' + r + '"]');
    if (row) row.scrollIntoView({ block: "nearest" });
    frame();
    clear(viewBox);
    const lane = lanes[l];
    viewBox.appendChild(el("div", "view-title", [
      "Evidence of " + lane.lane_id + " record " + (r + 1) + (recordSummary(l, r) ? ": " + recordSummary(l, r) : ""),
    ]));
    const spans = resolved[l][r];
    const byContext = new Map();
    lane.references[r].forEach(function (pair, k) {
      const span = spans[k];
      if (!span) {
        viewBox.appendChild(el("p", "unresolved", [referenceLabel(pair) + ": " + (evidence
          ? "not in the evidence context (the lane is not allowlisted)"
          : "no evidence context in this bundle (evidence publication was off)")]));
        return;
      }
      const c = contextOf(span[0]);
      if (!byContext.has(c)) byContext.set(c, []);
      byContext.get(c).push(span);
    });
    if (!lane.references[r].length) viewBox.appendChild(el("p", "unresolved", ["This record cites no units."]));
    Array.from(byContext.keys()).sort(function (a, b) { return a - b; }).forEach(function (c) {
      const block = el("div", "context", []);
      block.dataset.context = String(c);
      viewBox.appendChild(block);
      const context = contexts[c], direct = byContext.get(c);
      const isDirect = function (p) { return direct.some(function (s) { return s[0] <= p && p <= s[1]; }); };
      const pages = Math.ceil(context[1] / CONTEXT_PAGE);
      function draw(page) {
        clear(block);
        block.appendChild(contextHead(c));
        block.appendChild(pager(page, pages, draw));
        const from = context[0] + page * CONTEXT_PAGE, to = Math.min(context[0] + context[1], from + CONTEXT_PAGE);
        for (let p = from; p < to; p++) block.appendChild(unitRow(p, isDirect(p), ""));
        block.appendChild(pager(page, pages, draw));
      }
      draw(Math.floor((direct[0][0] - context[0]) / CONTEXT_PAGE));
    });
  }
  function visibleRows(l) {
    const rows = [];
    for (let r = 0; r < lanes[l].records.length; r++) if (recordMatches(l, r)) rows.push(r);
    return rows;
  }
  function showCitations(position) {
    clear(citationBox);
    const cites = citing(position);
    citationBox.dataset.unitId = units[position][0];
    citationBox.appendChild(el("div", "", ["Unit " + units[position][0] + " is cited by " + cites.length +
      (cites.length === 1 ? " record:" : " records:")]));
    const list = el("ul", "", []);
    for (const [l, r] of cites) {
      const item = el("li", "", []);
      item.dataset.lane = lanes[l].lane_id;
      item.dataset.record = String(r);
      item.appendChild(button("jump", lanes[l].lane_id + " record " + (r + 1), function () { selectRecord(l, r); }));
      item.appendChild(document.createTextNode(" " + recordSummary(l, r)));
      list.appendChild(item);
    }
    citationBox.appendChild(list);
    citationBox.appendChild(button("close", "close", function () { clear(citationBox); frame(); }));
    frame();
    citationBox.scrollIntoView({ block: "nearest" });
  }
  function refresh() {
    renderRecords();
    if (state.query) runSearch();
    else if (state.view === "record" && state.selected) selectRecord(state.selected[0], state.selected[1]);
    else browse();
  }

  search.addEventListener("input", function () {
    state.query = search.value.trim().toLowerCase();
    if (state.query) runSearch(); else browse();
  });
  laneSelect.addEventListener("change", function () { state.lane = laneSelect.value; refresh(); });
  speakerSelect.addEventListener("change", function () {
    const value = speakerSelect.value;
    state.speaker = value === "" ? null : value === "none" ? "" : speakerList[Number(value.slice(1))];
    refresh();
  });

  renderRecords();
  browse();
  document.documentElement.dataset.ready = "true";
  window.reportReadyMs = performance.now();
})();
