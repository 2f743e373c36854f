"use strict";
// streamer report: every string of the bundle is inserted as text (createTextNode,
// textContent, setAttribute of a plain attribute), never as markup; lists are rendered a
// page at a time; the view (selection, search, filters, sort) is kept in the URL fragment.
(function () {
  const PAGE = 100; // rows of a record table or of a unit list shown at once
  const CONTEXT_PAGE = 200; // units of one context shown at once
  const MARKS = 600; // marks a timeline row draws at most (more records share a mark)
  const SVG = "http://www.w3.org/2000/svg";
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const evidence = data.evidence;
  const units = evidence ? evidence.units : [];
  const contexts = evidence ? evidence.contexts : [];
  const allowlist = new Set(evidence ? evidence.lanes : []);
  const lanes = data.lanes;
  const NULL = "\u0000null"; // a filter's value for a null member
  const state = {
    lane: "", speaker: null, query: "", selected: null, filters: {}, sort: {}, ids: false, pages: {},
  };

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
  // A speaker's character comes resolved with the data (the party, keyed by Python): a
  // plain lookup of the speaker exactly as the units write it.
  const characters = new Map(data.characters);
  function character(speaker) { return speaker === null ? undefined : characters.get(speaker); }
  function speakerLabel(speaker) {
    if (speaker === null) return "";
    const name = character(speaker);
    return name === undefined ? speaker : speaker + " (" + name + ")";
  }
  const speakers = new Set();
  let unspoken = false, timed = false, lastMs = null;
  for (const unit of units) {
    if (unit[3] === null) unspoken = true; else speakers.add(unit[3]);
    if (unit[4] !== null) {
      timed = true;
      const end = unit[5] !== null ? unit[5] : unit[4];
      if (lastMs === null || end > lastMs) lastMs = end;
    }
  }
  let haystack = null; // lower-cased text, speaker and character of each unit, built on first search
  function searchable() {
    if (haystack === null) {
      haystack = new Array(units.length);
      for (let i = 0; i < units.length; i++) {
        haystack[i] = (units[i][2] + "\n" + speakerLabel(units[i][3])).toLowerCase();
      }
    }
    return haystack;
  }
  // Per lane: the columns shown (not the ID column unless asked, never an empty one) and
  // the textual columns a filter offers.
  function isEmpty(value) { return value === null || value === undefined || value === ""; }
  const laneInfo = lanes.map(function (lane) {
    const filled = lane.columns.filter(function (column) {
      return lane.records.some(function (record) { return !isEmpty(record[column]); });
    });
    const textual = filled.filter(function (column) {
      if (column === lane.id_column || column === lane.reference_column) return false;
      return lane.records.some(function (record) { return typeof record[column] === "string"; }) &&
        lane.records.every(function (record) { return record[column] === null || record[column] === undefined || typeof record[column] === "string"; });
    });
    return { filled: filled, textual: textual, values: {} };
  });
  function label(l, column) { return lanes[l].labels[column] || column; }
  function distinct(l, column) {
    const info = laneInfo[l];
    if (!info.values[column]) {
      const counts = new Map();
      for (const record of lanes[l].records) {
        const value = record[column] === null || record[column] === undefined ? NULL : record[column];
        counts.set(value, (counts.get(value) || 0) + 1);
      }
      info.values[column] = Array.from(counts.entries()).sort(function (a, b) {
        return a[0] === NULL ? 1 : b[0] === NULL ? -1 : a[0].localeCompare(b[0]);
      });
    }
    return info.values[column];
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
  function svg(tag, attributes) {
    const node = document.createElementNS(SVG, tag);
    for (const name in attributes) node.setAttribute(name, String(attributes[name]));
    return node;
  }
  function button(className, text, action) {
    const node = el("button", className, [text]);
    node.type = "button";
    node.addEventListener("click", function (event) { event.stopPropagation(); action(); });
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function plural(count, one, many) { return count.toLocaleString("en-US") + " " + (count === 1 ? one : many); }
  function clock(ms) {
    if (ms === null || ms === undefined) return "";
    const total = Math.floor(ms / 1000);
    const h = Math.floor(total / 3600), m = Math.floor(total / 60) % 60, s = total % 60;
    return h + ":" + String(m).padStart(2, "0") + ":" + String(s).padStart(2, "0");
  }
  function duration(ms) {
    const minutes = Math.round(ms / 60000);
    return minutes >= 60 ? Math.floor(minutes / 60) + " h " + (minutes % 60) + " min" : minutes + " min";
  }
  function shown(value) { return typeof value === "string" ? value : JSON.stringify(value); }
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
  function referenceLabel(pair) { return pair[0] === pair[1] ? pair[0] : pair[0] + " \u2013 " + pair[1]; }
  function recordSummary(l, r) {
    const lane = lanes[l], record = lane.records[r];
    const parts = [];
    for (const column of lane.columns) {
      const value = record[column];
      if (column !== lane.reference_column && column !== lane.id_column && typeof value === "string") parts.push(value);
    }
    const text = parts.join(" \u00b7 ");
    return text.length > 120 ? text.slice(0, 117) + "..." : text;
  }
  // Where a record happened: the time of its first cited unit, else that unit's position.
  function recordPlace(l, r) {
    let best = null;
    for (const span of resolved[l][r]) if (span && (best === null || span[0] < best)) best = span[0];
    if (best === null) return null;
    if (timed) return units[best][4] === null ? null : units[best][4];
    return best;
  }

  // -- the page -----------------------------------------------------------------------
  const app = document.getElementById("app");
  const header = el("header", "", [el("h1", "", [data.title])]);
  const facts = [data.source.document_id];
  if (timed && lastMs !== null) facts.push(duration(lastMs));
  if (data.session_units !== null && data.session_units !== undefined) facts.push(plural(data.session_units, "unit", "units"));
  const meta = el("div", "source", [facts.join(", ")]);
  if (timed && lastMs !== null) meta.title = "the duration is the time of the last published unit";
  const digest = el("details", "digest", [el("summary", "", ["digest"]), el("code", "", [data.source.semantic_digest])]);
  meta.appendChild(document.createTextNode(" "));
  meta.appendChild(digest);
  header.appendChild(meta);
  const controls = el("div", "controls", []);
  const search = el("input", "", []);
  const scope = "Search the published evidence: the units the records cite and their windows, not the whole transcript";
  search.type = "search"; search.id = "search"; search.placeholder = "Search the published evidence";
  search.setAttribute("aria-label", scope); search.title = scope;
  const laneSelect = el("select", "", []);
  laneSelect.id = "lane-filter"; laneSelect.setAttribute("aria-label", "Lane");
  laneSelect.appendChild(new Option("all lanes", ""));
  for (const lane of lanes) laneSelect.appendChild(new Option(lane.lane_id, lane.lane_id));
  const speakerSelect = el("select", "", []);
  speakerSelect.id = "speaker-filter"; speakerSelect.setAttribute("aria-label", "Speaker");
  speakerSelect.appendChild(new Option("all speakers", ""));
  const speakerList = Array.from(speakers).sort();
  speakerList.forEach(function (name, k) { speakerSelect.appendChild(new Option(speakerLabel(name), "s" + k)); });
  if (unspoken) speakerSelect.appendChild(new Option("(no speaker)", "none"));
  const idToggle = el("label", "toggle", []);
  const idBox = el("input", "", []);
  idBox.type = "checkbox"; idBox.id = "show-ids";
  idToggle.appendChild(idBox); idToggle.appendChild(document.createTextNode(" IDs"));
  const showAll = button("", "show all", function () { go({ selected: null }, true); });
  showAll.id = "show-all";
  const status = el("span", "notice", []);
  status.id = "status"; status.setAttribute("aria-live", "polite");
  for (const node of [search, laneSelect, speakerSelect, idToggle, showAll, status]) controls.appendChild(node);
  header.appendChild(controls);
  if (!evidence) {
    header.appendChild(el("div", "notice", [
      "This bundle has no evidence context (evidence publication was off): records and the " +
      "unit IDs they cite are shown, not the transcript.",
    ]));
  }
  const glance = el("section", "", []); glance.id = "glance";
  const tables = el("div", "", []); tables.id = "tables";
  const recordsPanel = el("section", "", [glance, tables]); recordsPanel.id = "records";
  const evidencePanel = el("section", timed ? "" : "untimed", []); evidencePanel.id = "evidence";
  const main = el("main", "", [recordsPanel, evidencePanel]);
  app.appendChild(header); app.appendChild(main);

  // -- the session at a glance: a line per lane, rejections, the timeline ---------------
  const marks = []; // [svg element, lane index, record indexes]
  function renderGlance() {
    const list = el("ul", "summary", []);
    lanes.forEach(function (lane, l) {
      const parts = [plural(lane.records.length, "record", "records")];
      for (const column of laneInfo[l].textual) {
        const values = distinct(l, column).filter(function (pair) { return pair[0] !== NULL; });
        parts.push(label(l, column) + ": " + values.length.toLocaleString("en-US") + " distinct");
      }
      const item = el("li", "", [el("strong", "", [lane.lane_id]), " " + parts.join(" \u00b7 ")]);
      item.dataset.lane = lane.lane_id;
      list.appendChild(item);
    });
    glance.appendChild(el("h2", "", ["The session at a glance"]));
    glance.appendChild(list);
    const rejections = el("div", "rejections", []);
    rejections.id = "rejections";
    if (data.rejections === null || data.rejections === undefined) {
      rejections.appendChild(el("p", "notice", ["Rejected candidates: not known for this page (streamer run shows them; streamer report --rejections FILE)."]));
    } else {
      const names = lanes.map(function (lane) { return lane.lane_id; });
      for (const id of Object.keys(data.rejections).sort()) if (names.indexOf(id) < 0) names.push(id);
      const items = el("ul", "", []);
      for (const id of names) {
        const reasons = data.rejections[id] || {};
        const keys = Object.keys(reasons).sort();
        let total = 0;
        for (const key of keys) total += reasons[key];
        const item = el("li", "", [el("strong", "", [id]), " "]);
        item.dataset.lane = id;
        item.dataset.rejected = String(total);
        if (!total) item.appendChild(document.createTextNode("no candidate rejected"));
        else {
          item.appendChild(document.createTextNode(plural(total, "candidate", "candidates") + " rejected: "));
          keys.forEach(function (key, k) {
            const reason = el("span", "reason", [reasons[key].toLocaleString("en-US") + " " + key.replace(/_/g, " ")]);
            reason.dataset.reason = key;
            reason.dataset.count = String(reasons[key]);
            if (k) item.appendChild(document.createTextNode(", "));
            item.appendChild(reason);
          });
        }
        items.appendChild(item);
      }
      rejections.appendChild(el("div", "label", ["Not grounded, so not shown (counts only):"]));
      rejections.appendChild(items);
    }
    glance.appendChild(rejections);
    renderTimeline();
  }
  function renderTimeline() {
    const placed = lanes.map(function (lane, l) {
      const out = [];
      for (let r = 0; r < lane.records.length; r++) { const at = recordPlace(l, r); if (at !== null) out.push([at, r]); }
      return out;
    });
    const end = timed ? Math.max(1, lastMs || 0) : Math.max(1, units.length - 1);
    const box = el("div", "timeline", []);
    box.id = "timeline";
    box.appendChild(el("div", "label", [timed
      ? "Timeline: each record at the time of its first cited unit"
      : "Timeline: each record at the position of its first cited unit in the published evidence (no times)"]));
    let rows = 0;
    lanes.forEach(function (lane, l) {
      if (!placed[l].length) return;
      rows++;
      const name = el("span", "lane-name", [lane.lane_id]);
      name.title = lane.lane_id;
      const row = el("div", "row", [name]);
      row.dataset.lane = lane.lane_id;
      const drawing = svg("svg", { viewBox: "0 0 1000 20", preserveAspectRatio: "none", role: "group" });
      drawing.setAttribute("aria-label", lane.lane_id + " on the timeline");
      drawing.appendChild(svg("line", { x1: 0, x2: 1000, y1: 10, y2: 10, class: "axis" }));
      const bins = new Map();
      for (const pair of placed[l]) {
        const x = Math.round(pair[0] / end * 1000 * 10) / 10;
        const key = placed[l].length > MARKS ? Math.round(x / (1000 / MARKS)) : pair[1];
        if (!bins.has(key)) bins.set(key, [x, []]);
        bins.get(key)[1].push(pair[1]);
      }
      for (const bin of bins.values()) {
        const x = Math.min(998, Math.max(2, bin[0]));
        const mark = svg("line", { x1: x, x2: x, y1: 2, y2: 18, class: "mark", tabindex: 0 });
        mark.setAttribute("vector-effect", "non-scaling-stroke");
        mark.setAttribute("data-lane", lane.lane_id);
        mark.setAttribute("data-record", String(bin[1][0]));
        mark.setAttribute("data-x", String(bin[0]));
        const first = bin[1][0];
        const where = timed ? clock(recordPlace(l, first)) : "unit " + (recordPlace(l, first) + 1);
        const text = (bin[1].length > 1 ? plural(bin[1].length, "record", "records") + " from " : "") +
          lane.lane_id + " record " + (first + 1) + " at " + where + (recordSummary(l, first) ? ": " + recordSummary(l, first) : "");
        const tip = svg("title", {});
        tip.textContent = text;
        mark.appendChild(tip);
        mark.setAttribute("aria-label", text);
        const choose = function () { select(l, first); };
        mark.addEventListener("click", choose);
        mark.addEventListener("keydown", function (event) {
          if (event.key === "Enter" || event.key === " ") { event.preventDefault(); choose(); }
        });
        marks.push([mark, l, bin[1]]);
        drawing.appendChild(mark);
      }
      row.appendChild(drawing);
      box.appendChild(row);
    });
    if (!rows) box.appendChild(el("p", "empty", ["No record cites a published unit."]));
    else {
      box.appendChild(el("div", "scale", [
        el("span", "", [timed ? clock(0) : "unit 1"]),
        el("span", "", [timed ? clock(end) : "unit " + units.length.toLocaleString("en-US")]),
      ]));
    }
    glance.appendChild(box);
  }
  function markSelected() {
    for (const entry of marks) {
      const on = state.selected !== null && state.selected[0] === entry[1] && entry[2].indexOf(state.selected[1]) >= 0;
      entry[0].classList.toggle("selected", on);
    }
  }

  // -- filters ------------------------------------------------------------------------
  function speakerMatches(position) {
    if (state.speaker === null) return true;
    const speaker = units[position][3];
    return state.speaker === "" ? speaker === null : speaker === state.speaker;
  }
  function memberMatches(l, r) {
    const chosen = state.filters[lanes[l].lane_id];
    if (!chosen) return true;
    const record = lanes[l].records[r];
    for (const column in chosen) {
      const value = record[column] === null || record[column] === undefined ? NULL : record[column];
      if (value !== chosen[column]) return false;
    }
    return true;
  }
  function recordMatches(l, r) {
    if (state.lane && lanes[l].lane_id !== state.lane) return false;
    if (!memberMatches(l, r)) return false;
    if (state.speaker === null) return true;
    for (const span of resolved[l][r]) {
      if (!span) continue;
      for (let p = span[0]; p <= span[1]; p++) if (speakerMatches(p)) return true;
    }
    return false;
  }
  // With a member filter, units are those of the contexts the matching records cite.
  let filteredContexts = null;
  function computeFilteredContexts() {
    filteredContexts = null;
    lanes.forEach(function (lane, l) {
      if (!state.filters[lane.lane_id]) return;
      if (filteredContexts === null) filteredContexts = new Set();
      for (let r = 0; r < lane.records.length; r++) {
        if (!memberMatches(l, r)) continue;
        for (const span of resolved[l][r]) if (span) filteredContexts.add(contextOf(span[0]));
      }
    });
  }
  function unitMatches(position) {
    if (state.lane && !contextLanes[contextOf(position)].has(state.lane)) return false;
    if (filteredContexts !== null && !filteredContexts.has(contextOf(position))) return false;
    return speakerMatches(position);
  }
  function compareValues(a, b) {
    const aNull = a === null || a === undefined, bNull = b === null || b === undefined;
    if (aNull || bNull) return aNull === bNull ? 0 : aNull ? 1 : -1;
    if (typeof a === "number" && typeof b === "number") return a - b;
    return shown(a).localeCompare(shown(b), undefined, { numeric: true });
  }
  function visibleRows(l) {
    const lane = lanes[l];
    const rows = [];
    for (let r = 0; r < lane.records.length; r++) if (recordMatches(l, r)) rows.push(r);
    const sort = state.sort[lane.lane_id];
    if (sort) {
      const column = sort[0], direction = sort[1];
      const refs = column === lane.reference_column || column === "\u0000refs";
      const key = function (r) { return refs ? recordPlace(l, r) : lane.records[r][column]; };
      rows.sort(function (a, b) {
        const va = key(a), vb = key(b);
        const aNull = va === null || va === undefined, bNull = vb === null || vb === undefined;
        if (aNull || bNull) return aNull === bNull ? a - b : aNull ? 1 : -1; // unknown last
        return direction * compareValues(va, vb) || a - b;
      });
    }
    return rows;
  }

  // -- record tables ------------------------------------------------------------------
  function renderRecords() {
    clear(tables);
    lanes.forEach(function (lane, l) {
      if (state.lane && lane.lane_id !== state.lane) return;
      const rows = visibleRows(l);
      const block = el("div", "lane", []);
      block.dataset.lane = lane.lane_id;
      const count = el("span", "count", [rows.length === lane.records.length
        ? plural(rows.length, "record", "records")
        : rows.length + " of " + plural(lane.records.length, "record", "records")]);
      block.appendChild(el("h2", "", [lane.lane_id, el("span", "kind", [lane.artifact_kind]), count]));
      if (lane.question) block.appendChild(el("p", "question", [lane.question]));
      const cites = lane.references.some(function (cited) { return cited.length; });
      if (!allowlist.has(lane.lane_id) && cites) { // a lane that cites no unit (a roster) needs no note
        block.appendChild(el("p", "notice", [evidence
          ? "Not in the evidence allowlist: the units this lane cites are not published."
          : "No evidence context: the units this lane cites are not published."]));
      }
      block.appendChild(memberFilters(l));
      if (!rows.length) { block.appendChild(el("p", "empty", ["no records"])); tables.appendChild(block); return; }
      const pages = Math.ceil(rows.length / PAGE);
      const page = Math.min(state.pages[lane.lane_id] || 0, pages - 1);
      const columns = lane.columns.filter(function (column) {
        if (column === lane.id_column) return state.ids;
        return column === lane.reference_column || laneInfo[l].filled.indexOf(column) >= 0;
      });
      const extra = lane.reference_column === null && lane.references.some(function (c) { return c.length; });
      const table = el("table", "", []);
      const head = el("tr", "", [headerCell(l, "#", null)]);
      for (const column of columns) head.appendChild(headerCell(l, label(l, column), column));
      if (extra) head.appendChild(headerCell(l, "Evidence", "\u0000refs"));
      table.appendChild(el("thead", "", [head]));
      const body = el("tbody", "", []);
      for (const r of rows.slice(page * PAGE, page * PAGE + PAGE)) {
        const record = lane.records[r];
        const row = el("tr", "record", [el("td", "position", [String(r + 1)])]);
        row.dataset.record = String(r);
        row.tabIndex = 0;
        if (state.selected && state.selected[0] === l && state.selected[1] === r) row.classList.add("selected");
        row.addEventListener("click", function () { select(l, r); });
        row.addEventListener("keydown", function (event) {
          if (event.target === row && (event.key === "Enter" || event.key === " ")) { event.preventDefault(); select(l, r); }
        });
        for (const column of columns) {
          if (column === lane.reference_column) { row.appendChild(referenceCell(l, r)); continue; }
          const value = record[column];
          const cell = value === null
            ? el("td", "null", ["unknown"])
            : el("td", typeof value === "string" || value === undefined ? "" : "json", [value === undefined ? "" : shown(value)]);
          if (column === lane.id_column) cell.classList.add("id");
          cell.dataset.column = column;
          cell.dataset.label = label(l, column);
          row.appendChild(cell);
        }
        if (extra) row.appendChild(referenceCell(l, r));
        body.appendChild(row);
      }
      table.appendChild(body);
      block.appendChild(table);
      block.appendChild(pager(page, pages, function (next) { state.pages[lane.lane_id] = next; renderRecords(); }));
      tables.appendChild(block);
    });
    if (!tables.firstChild) tables.appendChild(el("p", "empty", ["no lanes"]));
  }
  function headerCell(l, text, column) {
    const lane = lanes[l];
    const sort = state.sort[lane.lane_id];
    const cell = el("th", "", []);
    if (column !== null) cell.dataset.column = column;
    const active = column === null ? !sort : sort && sort[0] === column;
    cell.setAttribute("aria-sort", !active ? "none" : column === null || sort[1] > 0 ? "ascending" : "descending");
    const arrow = !active || column === null ? "" : sort[1] > 0 ? " \u25b2" : " \u25bc";
    cell.appendChild(button("sort", text + arrow, function () {
      const next = Object.assign({}, state.sort);
      if (column === null) delete next[lane.lane_id];
      else next[lane.lane_id] = [column, sort && sort[0] === column ? -sort[1] : 1];
      go({ sort: next }, false);
    }));
    cell.lastChild.title = column === null ? "in the bundle's order" : "sort by " + text;
    return cell;
  }
  function memberFilters(l) {
    const lane = lanes[l];
    const box = el("div", "member-filters", []);
    for (const column of laneInfo[l].textual) {
      const values = distinct(l, column);
      if (values.length < 2) continue;
      const select = el("select", "", []);
      select.dataset.column = column;
      select.setAttribute("aria-label", lane.lane_id + ": " + label(l, column));
      select.appendChild(new Option("every " + label(l, column), ""));
      values.forEach(function (pair, k) {
        select.appendChild(new Option((pair[0] === NULL ? "unknown" : pair[0]) + " (" + pair[1] + ")", "v" + k));
      });
      const chosen = (state.filters[lane.lane_id] || {})[column];
      if (chosen !== undefined) {
        const k = values.findIndex(function (pair) { return pair[0] === chosen; });
        if (k >= 0) select.value = "v" + k;
      }
      select.addEventListener("change", function () {
        const next = Object.assign({}, state.filters);
        const mine = Object.assign({}, next[lane.lane_id] || {});
        if (select.value === "") delete mine[column]; else mine[column] = values[Number(select.value.slice(1))][0];
        if (Object.keys(mine).length) next[lane.lane_id] = mine; else delete next[lane.lane_id];
        state.pages[lane.lane_id] = 0;
        go({ filters: next }, false);
      });
      box.appendChild(select);
    }
    return box;
  }
  function referenceCell(l, r) {
    const cell = el("td", "refs", []);
    cell.dataset.column = lanes[l].reference_column || "references";
    cell.dataset.label = lanes[l].reference_column ? label(l, lanes[l].reference_column) : "Evidence";
    lanes[l].references[r].forEach(function (pair, k) {
      const published = resolved[l][r][k] !== null;
      const node = button(published ? "ref" : "ref unpublished", referenceLabel(pair), function () { select(l, r); });
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
    row.appendChild(el("span", "speaker", [speakerLabel(unit[3])]));
    const uid = el("span", "uid", [unit[0]]);
    uid.title = unit[0]; uid.tabIndex = 0;
    row.appendChild(uid);
    const cites = citing(position);
    row.appendChild(cites.length
      ? button("cited-by", "cited by " + cites.length, function () { showCitations(position); })
      : el("span", "cites", []));
    const text = highlighted(unit[2], query);
    if (mark) text.insertBefore(el("span", "mark", ["cited"]), text.firstChild);
    row.appendChild(text);
    return row;
  }
  function contextHead(c) {
    const context = contexts[c];
    const first = units[context[0]][0], last = units[context[0] + context[1] - 1][0];
    const lanesOf = Array.from(contextLanes[c]).sort().join(", ");
    return el("div", "context-head", [
      "context " + (c + 1) + " of " + contexts.length + ": " + first + " \u2013 " + last + " \u00b7 " +
      plural(context[1], "unit", "units") + " \u00b7 cited by " + lanesOf,
    ]);
  }
  function unitList(container, positions, query, title, empty) {
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
      if (!positions.length) container.appendChild(el("p", "empty", [empty]));
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
  function filteredNote() {
    const parts = [];
    if (state.lane) parts.push("lane " + state.lane);
    if (state.speaker !== null) parts.push(state.speaker === "" ? "no speaker" : "speaker " + speakerLabel(state.speaker));
    if (filteredContexts !== null) parts.push("the evidence of the filtered records");
    return parts.length ? " (" + parts.join(", ") + ")" : "";
  }
  function browse() {
    frame();
    if (!evidence) {
      clear(viewBox);
      viewBox.appendChild(el("p", "empty", ["No evidence context in this bundle."]));
      status.textContent = "";
      return;
    }
    const positions = [];
    for (let p = 0; p < units.length; p++) if (unitMatches(p)) positions.push(p);
    status.textContent = positions.length + " of " + units.length + " units";
    unitList(viewBox, positions, "", "The published evidence: " + plural(positions.length, "unit", "units") + " in " +
      plural(contexts.length, "context", "contexts") + filteredNote(), "no units");
  }
  function runSearch() {
    frame();
    const query = state.query;
    const text = searchable();
    const positions = [];
    for (let p = 0; p < text.length; p++) if (text[p].indexOf(query) >= 0 && unitMatches(p)) positions.push(p);
    status.textContent = positions.length + (positions.length === 1 ? " unit matches" : " units match");
    status.dataset.matches = String(positions.length);
    unitList(viewBox, positions, query, "Search in the published evidence: " + positions.length +
      (positions.length === 1 ? " unit matches" : " units match") + filteredNote(),
      "No unit of the published evidence matches. The search covers the units the records cite and " +
      "their windows: the transcript's other units are not in the bundle.");
  }
  function recordView(l, r) {
    const row = tables.querySelector('[data-lane="' + CSS.escape(lanes[l].lane_id) + '"] tr[data-record="' + r + '"]');
    if (row) row.scrollIntoView({ block: "nearest" });
    frame();
    clear(viewBox);
    const lane = lanes[l];
    const summary = recordSummary(l, r);
    const title = el("div", "view-title", [
      "Evidence of " + lane.lane_id + " record " + (r + 1) + (summary ? ": " + summary : "") + " ",
    ]);
    title.appendChild(button("show-all", "show all", function () { go({ selected: null }, true); }));
    viewBox.appendChild(title);
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
    let shownUnits = 0;
    Array.from(byContext.keys()).sort(function (a, b) { return a - b; }).forEach(function (c) {
      const block = el("div", "context", []);
      block.dataset.context = String(c);
      viewBox.appendChild(block);
      const context = contexts[c], direct = byContext.get(c);
      shownUnits += context[1];
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
    status.textContent = shownUnits + " of " + units.length + " units: record " + (r + 1) + " of " + lane.lane_id;
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
      item.appendChild(button("jump", lanes[l].lane_id + " record " + (r + 1), function () { select(l, r); }));
      item.appendChild(document.createTextNode(" " + recordSummary(l, r)));
      list.appendChild(item);
    }
    citationBox.appendChild(list);
    citationBox.appendChild(button("close", "close", closeCitations));
    frame();
    citationBox.scrollIntoView({ block: "nearest" });
    citationBox.querySelector("button").focus();
  }
  function closeCitations() { clear(citationBox); frame(); }

  // -- the view, kept in the URL fragment -----------------------------------------------
  function fragment() {
    const params = new URLSearchParams();
    if (state.selected) params.set("record", lanes[state.selected[0]].lane_id + ":" + (state.selected[1] + 1));
    if (state.query) params.set("q", state.query);
    if (state.lane) params.set("lane", state.lane);
    if (state.speaker !== null) params.set("speaker", state.speaker === "" ? "\u0000none" : state.speaker);
    if (Object.keys(state.filters).length) {
      const filters = {};
      for (const id in state.filters) {
        filters[id] = {};
        for (const column in state.filters[id]) {
          const value = state.filters[id][column];
          filters[id][column] = value === NULL ? null : value;
        }
      }
      params.set("filter", JSON.stringify(filters));
    }
    if (Object.keys(state.sort).length) params.set("sort", JSON.stringify(state.sort));
    if (state.ids) params.set("ids", "1");
    const text = params.toString();
    return text ? "#" + text : "";
  }
  function laneIndex(id) { return lanes.findIndex(function (lane) { return lane.lane_id === id; }); }
  function fromFragment(hash) {
    const params = new URLSearchParams(hash.replace(/^#/, ""));
    const next = { selected: null, query: "", lane: "", speaker: null, filters: {}, sort: {}, ids: false };
    const record = params.get("record");
    if (record) {
      const at = record.lastIndexOf(":");
      const l = laneIndex(record.slice(0, at)), r = Number(record.slice(at + 1)) - 1;
      if (l >= 0 && Number.isInteger(r) && r >= 0 && r < lanes[l].records.length) next.selected = [l, r];
    }
    next.query = (params.get("q") || "").trim().toLowerCase();
    if (laneIndex(params.get("lane") || "") >= 0) next.lane = params.get("lane");
    const speaker = params.get("speaker");
    if (speaker === "\u0000none") next.speaker = "";
    else if (speaker !== null && speakers.has(speaker)) next.speaker = speaker;
    try {
      const filters = JSON.parse(params.get("filter") || "{}");
      for (const id in filters) {
        const l = laneIndex(id);
        if (l < 0 || typeof filters[id] !== "object" || filters[id] === null) continue;
        for (const column in filters[id]) {
          const value = filters[id][column];
          if (laneInfo[l].textual.indexOf(column) < 0 || (value !== null && typeof value !== "string")) continue;
          next.filters[id] = next.filters[id] || {};
          next.filters[id][column] = value === null ? NULL : value;
        }
      }
      const sort = JSON.parse(params.get("sort") || "{}");
      for (const id in sort) {
        const pair = sort[id];
        if (laneIndex(id) >= 0 && Array.isArray(pair) && typeof pair[0] === "string" && (pair[1] === 1 || pair[1] === -1)) next.sort[id] = [pair[0], pair[1]];
      }
    } catch (error) { /* a hand-edited fragment: what could be read is kept */ }
    next.ids = params.get("ids") === "1";
    return next;
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
    go({ selected: [l, r] }, true);
    if (window.matchMedia("(max-width: 800px)").matches) evidencePanel.scrollIntoView({ block: "start" });
  }
  function render() {
    clear(citationBox);
    computeFilteredContexts();
    if (search.value.trim().toLowerCase() !== state.query) search.value = state.query;
    laneSelect.value = state.lane;
    speakerSelect.value = state.speaker === null ? "" : state.speaker === "" ? "none" : "s" + speakerList.indexOf(state.speaker);
    idBox.checked = state.ids;
    showAll.hidden = state.selected === null;
    if (state.selected) {
      const l = state.selected[0];
      state.pages[lanes[l].lane_id] = Math.floor(Math.max(0, visibleRows(l).indexOf(state.selected[1])) / PAGE);
    }
    renderRecords();
    markSelected();
    if (state.selected) recordView(state.selected[0], state.selected[1]);
    else if (state.query) runSearch();
    else browse();
  }
  function followFragment() {
    if (location.hash === applied) return;
    applied = location.hash;
    Object.assign(state, fromFragment(location.hash));
    render();
  }

  search.addEventListener("input", function () {
    go({ query: search.value.trim().toLowerCase(), selected: null }, false);
  });
  laneSelect.addEventListener("change", function () { go({ lane: laneSelect.value }, false); });
  speakerSelect.addEventListener("change", function () {
    const value = speakerSelect.value;
    go({ speaker: value === "" ? null : value === "none" ? "" : speakerList[Number(value.slice(1))] }, false);
  });
  idBox.addEventListener("change", function () { go({ ids: idBox.checked }, false); });
  window.addEventListener("popstate", followFragment);
  window.addEventListener("hashchange", followFragment);
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    if (citationBox.firstChild) { closeCitations(); return; }
    if (state.selected) go({ selected: null }, true);
  });

  renderGlance();
  applied = location.hash;
  Object.assign(state, fromFragment(location.hash));
  render();
  if (state.selected) {
    const row = tables.querySelector("tr.selected");
    if (row) row.scrollIntoView({ block: "center" });
  }
  document.documentElement.dataset.ready = "true";
  window.reportReadyMs = performance.now();
})();
