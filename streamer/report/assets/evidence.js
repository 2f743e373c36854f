  // -- the evidence panel: unit lists, a record's evidence, the records citing a unit -------
  const CONTEXT_PAGE = 200; // units of one context shown at once
  // A unit's row; ``direct`` is undefined in a list, else whether the record cites it.
  function unitRow(position, direct, query) {
    const unit = units[position];
    const row = el("div", "unit " + (direct === undefined ? "" : direct ? "direct" : "window"), []);
    row.dataset.unitId = unit.id;
    row.appendChild(el("span", "time", [clock(unit.startMs)]));
    row.appendChild(el("span", "speaker", [speakerLabel(unit.speaker)]));
    const uid = el("span", "uid", [unit.id]);
    uid.title = unit.id; uid.tabIndex = 0;
    row.appendChild(uid);
    const cites = citing(position);
    row.appendChild(cites.length
      ? button("cited-by", "cited by " + cites.length, function () { showCitations(position); })
      : el("span", "cites", []));
    const text = highlighted(unit.text, query);
    if (direct) text.insertBefore(el("span", "mark", ["cited"]), text.firstChild);
    if (report.secretUnits.has(unit.id)) text.insertBefore(el("span", "secret", ["secret"]), text.firstChild);
    row.appendChild(text);
    return row;
  }
  function contextHead(c) {
    const context = contexts[c];
    const first = units[context.first].id, last = units[context.first + context.count - 1].id;
    const lanesOf = Array.from(context.laneIds).sort().join(", ");
    return el("div", "context-head", [
      "context " + (c + 1) + " of " + contexts.length + ": " + first + " \u2013 " + last + " \u00b7 " +
      plural(context.count, "unit", "units") + " \u00b7 cited by " + lanesOf,
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
    if (state.speaker !== undefined) parts.push(state.speaker === null ? "no speaker" : "speaker " + speakerLabel(state.speaker));
    if (filteredContexts !== null) parts.push("the evidence of the filtered records");
    return parts.length ? " (" + parts.join(", ") + ")" : "";
  }
  function browse() {
    frame();
    if (!report.hasEvidence) {
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
