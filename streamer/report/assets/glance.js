  // -- the session at a glance: a line per lane, rejections, the timeline -------------------
  const MARKS = 600; // marks a timeline row draws at most (more records share a mark)
  const marks = []; // every timeline mark: {node, lane, records (the record indexes it stands for)}
  // Why lane ``lane`` has no record, as the page can tell: its rules' note, what its
  // candidates met, or that nothing was found.
  function whyEmpty(lane) {
    if (report.notes[lane.id]) return report.notes[lane.id];
    const rejected = report.rejections && report.rejections[lane.id];
    let total = 0;
    if (rejected) for (const key of Object.keys(rejected)) total += rejected[key];
    if (total) return "what was found is not shown: its cited units do not say it";
    return report.rejections === null ? "none found" : "nothing found in this session";
  }
  function renderGlance() {
    const list = el("ul", "summary", []);
    lanes.forEach(function (lane, l) {
      const parts = [plural(lane.records.length, "record", "records")];
      if (!lane.records.length) parts[0] += ": " + whyEmpty(lane);
      for (const column of laneInfo[l].textual) {
        const values = distinct(l, column).filter(function (entry) { return entry.value !== null; });
        parts.push(label(l, column) + ": " + values.length.toLocaleString("en-US") + " distinct");
      }
      const item = el("li", "", [el("strong", "", [lane.id]), " " + parts.join(" \u00b7 ")]);
      item.dataset.lane = lane.id;
      list.appendChild(item);
    });
    if (report.notRun.length) {
      const item = el("li", "not-run", [el("strong", "", ["not run"]), " " + report.notRun.join(", ") +
        (report.notRunWhy ? " (" + report.notRunWhy + ")" : "")]);
      list.appendChild(item);
    }
    glance.appendChild(el("h2", "", ["The session at a glance"]));
    glance.appendChild(list);
    glance.appendChild(rejectionsBox());
    renderTimeline();
  }
  function rejectionsBox() {
    const box = el("div", "rejections", []);
    box.id = "rejections";
    if (report.rejections === null) {
      box.appendChild(el("p", "notice", ["Rejected candidates: not known for this page (streamer run shows them; streamer report --rejections FILE)."]));
      return box;
    }
    const names = lanes.map(function (lane) { return lane.id; });
    for (const id of Object.keys(report.rejections).sort()) if (names.indexOf(id) < 0) names.push(id);
    const items = el("ul", "", []);
    for (const id of names) items.appendChild(rejectionItem(id, report.rejections[id] || {}));
    box.appendChild(el("div", "label", ["Found but not shown, because the cited units do not say it (counts only):"]));
    box.appendChild(items);
    return box;
  }
  function rejectionItem(id, reasons) {
    const keys = Object.keys(reasons).sort();
    let total = 0;
    for (const key of keys) total += reasons[key];
    const item = el("li", "", [el("strong", "", [id]), " "]);
    item.dataset.lane = id;
    item.dataset.rejected = String(total);
    if (!total) { item.appendChild(document.createTextNode("none")); return item; }
    item.appendChild(document.createTextNode(plural(total, "candidate", "candidates") + ": "));
    keys.forEach(function (key, k) {
      const reason = el("span", "reason", [reasons[key].toLocaleString("en-US") + " " + key.replace(/_/g, " ")]);
      reason.dataset.reason = key;
      reason.dataset.count = String(reasons[key]);
      if (k) item.appendChild(document.createTextNode(", "));
      item.appendChild(reason);
    });
    return item;
  }
  function renderTimeline() {
    const count = placedInSession ? report.sessionUnits : units.length;
    const end = timed ? Math.max(1, lastMs || 0) : Math.max(1, count - 1);
    const box = el("div", "timeline", []);
    box.id = "timeline";
    box.appendChild(el("div", "label", [timed
      ? "Timeline: each record at the time of its first cited unit"
      : placedInSession
        ? "Timeline: each record at its first cited unit, along the whole session (no times)"
        : "Timeline: each record at the position of its first cited unit in the published evidence (no times)"]));
    let rows = 0;
    lanes.forEach(function (lane, l) {
      const placed = []; // {at (time or position), record}
      for (let r = 0; r < lane.records.length; r++) {
        const at = recordPlace(l, r);
        if (at !== null) placed.push({ at: at, record: r });
      }
      if (!placed.length) return;
      rows++;
      box.appendChild(timelineRow(l, placed, end));
    });
    if (!rows) box.appendChild(el("p", "empty", ["No record cites a published unit."]));
    else {
      box.appendChild(el("div", "scale", [
        el("span", "", [timed ? clock(0) : "unit 1"]),
        el("span", "", [timed ? clock(end) : "unit " + count.toLocaleString("en-US")]),
      ]));
    }
    glance.appendChild(box);
  }
  // A lane's row: its records placed on a 1000-wide axis, those too close sharing a mark.
  function timelineRow(l, placed, end) {
    const lane = lanes[l];
    const name = el("span", "lane-name", [lane.id]);
    name.title = lane.id;
    const row = el("div", "row", [name]);
    row.dataset.lane = lane.id;
    const drawing = svg("svg", { viewBox: "0 0 1000 20", preserveAspectRatio: "none", role: "group" });
    drawing.setAttribute("aria-label", lane.id + " on the timeline");
    drawing.appendChild(svg("line", { x1: 0, x2: 1000, y1: 10, y2: 10, class: "axis" }));
    const bins = new Map(); // key -> {x, records}
    for (const place of placed) {
      const x = Math.round(place.at / end * 1000 * 10) / 10;
      const key = placed.length > MARKS ? Math.round(x / (1000 / MARKS)) : place.record;
      if (!bins.has(key)) bins.set(key, { x: x, records: [] });
      bins.get(key).records.push(place.record);
    }
    for (const bin of bins.values()) drawing.appendChild(timelineMark(l, bin));
    row.appendChild(drawing);
    return row;
  }
  function timelineMark(l, bin) {
    const lane = lanes[l], first = bin.records[0];
    const x = Math.min(998, Math.max(2, bin.x));
    const mark = svg("line", { x1: x, x2: x, y1: 2, y2: 18, class: "mark", tabindex: 0 });
    mark.setAttribute("vector-effect", "non-scaling-stroke");
    mark.setAttribute("data-lane", lane.id);
    mark.setAttribute("data-record", String(first));
    mark.setAttribute("data-x", String(bin.x));
    const where = timed ? clock(recordPlace(l, first)) : "unit " + (recordPlace(l, first) + 1);
    const summary = recordSummary(l, first);
    const text = (bin.records.length > 1 ? plural(bin.records.length, "record", "records") + " from " : "") +
      lane.id + " record " + (first + 1) + " at " + where + (summary ? ": " + summary : "");
    const tip = svg("title", {});
    tip.textContent = text;
    mark.appendChild(tip);
    mark.setAttribute("aria-label", text);
    const choose = function () { select(l, first); };
    mark.addEventListener("click", choose);
    mark.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); choose(); }
    });
    marks.push({ node: mark, lane: l, records: bin.records });
    return mark;
  }
  function markSelected() {
    for (const mark of marks) {
      const on = state.selected !== null && state.selected.lane === mark.lane && mark.records.indexOf(state.selected.record) >= 0;
      mark.node.classList.toggle("selected", on);
    }
  }
