  // -- a record's evidence: each context it cites, its cited units marked; who cites a unit --
  function recordView(l, r) {
    const lane = lanes[l];
    const row = tables.querySelector('[data-lane="' + CSS.escape(lane.id) + '"] tr[data-record="' + r + '"]');
    if (row) row.scrollIntoView({ block: "nearest" });
    frame();
    clear(viewBox);
    const summary = recordSummary(l, r);
    const title = el("div", "view-title", [
      "Evidence of " + lane.id + " record " + (r + 1) + (summary ? ": " + summary : "") + " ",
    ]);
    title.appendChild(button("show-all", "show all", function () { go({ selected: null }, true); }));
    viewBox.appendChild(title);
    viewBox.appendChild(reviewControls(l, r));
    const spans = resolved[l][r];
    const byContext = new Map(); // context index -> the spans the record cites in it
    lane.references[r].forEach(function (reference, k) {
      const span = spans[k];
      if (!span) {
        viewBox.appendChild(el("p", "unresolved", [referenceLabel(reference) + ": " + (report.hasEvidence
          ? "not in the evidence context (the lane is not allowlisted)"
          : "no evidence context in this bundle (evidence publication was off)")]));
        return;
      }
      const c = contextOf(span.first);
      if (!byContext.has(c)) byContext.set(c, []);
      byContext.get(c).push(span);
    });
    if (!lane.references[r].length) viewBox.appendChild(el("p", "unresolved", ["This record cites no units."]));
    let shownUnits = 0;
    Array.from(byContext.keys()).sort(function (a, b) { return a - b; }).forEach(function (c) {
      viewBox.appendChild(contextBlock(c, byContext.get(c)));
      shownUnits += contexts[c].count;
    });
    status.textContent = shownUnits + " of " + units.length + " units: record " + (r + 1) + " of " + lane.id;
  }
  // A context of a record's evidence, a page at a time, opened at the first cited unit.
  function contextBlock(c, direct) {
    const block = el("div", "context", []);
    block.dataset.context = String(c);
    const context = contexts[c];
    const isDirect = function (p) { return direct.some(function (s) { return s.first <= p && p <= s.last; }); };
    const pages = Math.ceil(context.count / CONTEXT_PAGE);
    function draw(page) {
      clear(block);
      block.appendChild(contextHead(c));
      block.appendChild(pager(page, pages, draw));
      const from = context.first + page * CONTEXT_PAGE, to = Math.min(context.first + context.count, from + CONTEXT_PAGE);
      for (let p = from; p < to; p++) block.appendChild(unitRow(p, isDirect(p), ""));
      block.appendChild(pager(page, pages, draw));
    }
    draw(Math.floor((direct[0].first - context.first) / CONTEXT_PAGE));
    return block;
  }
  function showCitations(position) {
    clear(citationBox);
    const cites = citing(position);
    const unitId = units[position].id;
    citationBox.dataset.unitId = unitId;
    citationBox.appendChild(el("div", "", ["Unit " + unitId + " is cited by " + cites.length +
      (cites.length === 1 ? " record:" : " records:")]));
    const list = el("ul", "", []);
    for (const cite of cites) {
      const l = cite.lane, r = cite.record;
      const item = el("li", "", []);
      item.dataset.lane = lanes[l].id;
      item.dataset.record = String(r);
      item.appendChild(button("jump", lanes[l].id + " record " + (r + 1), function () { select(l, r); }));
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
