  // -- record tables: a lane's heading, its member filters, its records a page at a time ----
  const PAGE = 100; // rows of a record table or of a unit list shown at once
  function renderRecords() {
    clear(tables);
    lanes.forEach(function (lane, l) {
      if (!state.lane || lane.id === state.lane) tables.appendChild(laneBlock(l));
    });
    if (!tables.firstChild) tables.appendChild(el("p", "empty", ["no lanes"]));
  }
  function citesUnits(lane) { return lane.references.some(function (cited) { return cited.length; }); }
  function laneBlock(l) {
    const lane = lanes[l];
    const rows = visibleRows(l);
    const block = el("div", "lane", []);
    block.dataset.lane = lane.id;
    const count = el("span", "count", [rows.length === lane.records.length
      ? plural(rows.length, "record", "records")
      : rows.length + " of " + plural(lane.records.length, "record", "records")]);
    block.appendChild(el("h2", "", [lane.id, el("span", "kind", [lane.kind]), count]));
    if (lane.question) block.appendChild(el("p", "question", [lane.question]));
    if (!report.allowlist.has(lane.id) && citesUnits(lane)) { // a lane that cites no unit (a roster) needs no note
      block.appendChild(el("p", "notice", [report.hasEvidence
        ? "Not in the evidence allowlist: the units this lane cites are not published."
        : "No evidence context: the units this lane cites are not published."]));
    }
    block.appendChild(memberFilters(l));
    if (!rows.length) {
      block.appendChild(el("p", "empty", [lane.records.length ? "no records" : "no records: " + whyEmpty(lane)]));
      return block;
    }
    const pages = Math.ceil(rows.length / PAGE);
    const page = Math.min(state.pages[lane.id] || 0, pages - 1);
    block.appendChild(recordTable(l, rows.slice(page * PAGE, page * PAGE + PAGE)));
    block.appendChild(pager(page, pages, function (next) { state.pages[lane.id] = next; renderRecords(); }));
    return block;
  }
  // The table of the records ``rows`` of lane ``l``: the position, the shown columns, and an
  // Evidence column when the lane cites units but no member holds its references.
  function recordTable(l, rows) {
    const lane = lanes[l];
    const columns = lane.columns.filter(function (column) {
      if (column === lane.idColumn) return state.ids;
      return column === lane.referenceColumn || laneInfo[l].filled.indexOf(column) >= 0;
    });
    const evidenceColumn = lane.referenceColumn === null && citesUnits(lane);
    const table = el("table", "", []);
    const head = el("tr", "", [headerCell(l, "#", undefined)]);
    for (const column of columns) head.appendChild(headerCell(l, label(l, column), column));
    if (evidenceColumn) head.appendChild(headerCell(l, "Evidence", null));
    table.appendChild(el("thead", "", [head]));
    const body = el("tbody", "", []);
    for (const r of rows) body.appendChild(recordRow(l, r, columns, evidenceColumn));
    table.appendChild(body);
    return table;
  }
  function recordRow(l, r, columns, evidenceColumn) {
    const lane = lanes[l], record = lane.records[r];
    const row = el("tr", "record", [el("td", "position", [String(r + 1)])]);
    if (lane.secret.has(r)) row.firstChild.appendChild(el("span", "secret", ["secret"]));
    row.dataset.record = String(r);
    row.tabIndex = 0;
    if (state.selected && state.selected.lane === l && state.selected.record === r) row.classList.add("selected");
    reviewRow(row, l, r);
    row.addEventListener("click", function () { select(l, r); });
    row.addEventListener("keydown", function (event) {
      if (event.target === row && (event.key === "Enter" || event.key === " ")) { event.preventDefault(); select(l, r); }
    });
    for (const column of columns) {
      if (column === lane.referenceColumn) { row.appendChild(referenceCell(l, r)); continue; }
      const value = record[column];
      const cell = value === null
        ? el("td", "null", ["unknown"])
        : el("td", typeof value === "string" || value === undefined ? "" : "json", [value === undefined ? "" : shown(value)]);
      if (column === lane.idColumn) cell.classList.add("id");
      cell.dataset.column = column;
      cell.dataset.label = label(l, column);
      row.appendChild(cell);
    }
    if (evidenceColumn) row.appendChild(referenceCell(l, r));
    return row;
  }
  // A column's heading, a button that sorts by it: ``column`` is undefined for "#" (the
  // bundle's order), null for the Evidence column, else a member's name.
  function headerCell(l, text, column) {
    const lane = lanes[l];
    const sort = state.sort[lane.id];
    const inOrder = column === undefined;
    const cell = el("th", "", []);
    if (!inOrder) cell.dataset.column = column === null ? "references" : column;
    const active = inOrder ? !sort : sort !== undefined && sort.column === column;
    cell.setAttribute("aria-sort", !active ? "none" : inOrder || sort.direction > 0 ? "ascending" : "descending");
    const arrow = !active || inOrder ? "" : sort.direction > 0 ? " \u25b2" : " \u25bc";
    cell.appendChild(button("sort", text + arrow, function () {
      const next = Object.assign({}, state.sort);
      if (inOrder) delete next[lane.id];
      else next[lane.id] = { column: column, direction: active ? -sort.direction : 1 };
      go({ sort: next }, false);
    }));
    cell.lastChild.title = inOrder ? "in the bundle's order" : "sort by " + text;
    return cell;
  }
  // A select per textual column with two values or more: state.filters[lane id][column] is
  // the value kept (null keeps the records where the member is unknown).
  function memberFilters(l) {
    const lane = lanes[l];
    const box = el("div", "member-filters", []);
    for (const column of laneInfo[l].textual) {
      const values = distinct(l, column);
      if (values.length < 2) continue;
      const select = el("select", "", []);
      select.dataset.column = column;
      select.setAttribute("aria-label", lane.id + ": " + label(l, column));
      select.appendChild(new Option("every " + label(l, column), ""));
      values.forEach(function (entry, k) {
        select.appendChild(new Option((entry.value === null ? "unknown" : entry.value) + " (" + entry.count + ")", "v" + k));
      });
      const chosen = state.filters[lane.id] || {};
      if (Object.prototype.hasOwnProperty.call(chosen, column)) {
        const k = values.findIndex(function (entry) { return entry.value === chosen[column]; });
        if (k >= 0) select.value = "v" + k;
      }
      select.addEventListener("change", function () {
        const next = Object.assign({}, state.filters);
        const mine = Object.assign({}, next[lane.id] || {});
        if (select.value === "") delete mine[column]; else mine[column] = values[Number(select.value.slice(1))].value;
        if (Object.keys(mine).length) next[lane.id] = mine; else delete next[lane.id];
        state.pages[lane.id] = 0;
        go({ filters: next }, false);
      });
      box.appendChild(select);
    }
    return box;
  }
  function referenceCell(l, r) {
    const lane = lanes[l];
    const cell = el("td", "refs", []);
    cell.dataset.column = lane.referenceColumn || "references";
    cell.dataset.label = lane.referenceColumn ? label(l, lane.referenceColumn) : "Evidence";
    lane.references[r].forEach(function (reference, k) {
      const published = resolved[l][r][k] !== null;
      const node = button(published ? "ref" : "ref unpublished", referenceLabel(reference), function () { select(l, r); });
      node.title = published ? "show the evidence" : "these units are not published in this bundle";
      cell.appendChild(node);
    });
    return cell;
  }
