  // -- the page: its header (title, source, controls) and its two panels --------------------
  const app = document.getElementById("app");
  function sourceFacts() {
    const facts = [report.documentId];
    if (timed && lastMs !== null) facts.push(duration(lastMs));
    if (report.sessionUnits !== null) facts.push(plural(report.sessionUnits, "unit", "units"));
    const meta = el("div", "source", [facts.join(", ")]);
    if (timed && lastMs !== null) meta.title = "the duration is the time of the last published unit";
    const digest = el("details", "digest", [el("summary", "", ["digest"]), el("code", "", [report.semanticDigest])]);
    meta.appendChild(document.createTextNode(" "));
    meta.appendChild(digest);
    return meta;
  }
  const header = el("header", "", [el("h1", "", [report.title])]);
  header.appendChild(sourceFacts());
  const controls = el("div", "controls", []);
  const search = el("input", "", []);
  const scope = "Search the published evidence: the units the records cite and their windows, not the whole transcript";
  search.type = "search"; search.id = "search"; search.placeholder = "Search the published evidence";
  search.setAttribute("aria-label", scope); search.title = scope;
  const laneSelect = el("select", "", []);
  laneSelect.id = "lane-filter"; laneSelect.setAttribute("aria-label", "Lane");
  laneSelect.appendChild(new Option("all lanes", ""));
  for (const lane of lanes) laneSelect.appendChild(new Option(lane.id, lane.id));
  // The speaker filter's options: "" every speaker, "s<k>" speakerList[k], "none" no speaker.
  const speakerSelect = el("select", "", []);
  speakerSelect.id = "speaker-filter"; speakerSelect.setAttribute("aria-label", "Speaker");
  speakerSelect.appendChild(new Option("all speakers", ""));
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
  if (!report.hasEvidence) {
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
