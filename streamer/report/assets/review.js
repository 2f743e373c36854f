  // -- the game master's review: marks on records, saved as <document ID>.review.json -----
  // The marks start as the review the page was written with (report.review.marks: record ID
  // -> {verdict, note}); the game master accepts, rejects and notes records in a record's
  // view and saves the file, written exactly as streamer review writes it (the members in
  // the schema's order, IDs sorted by UTF-16 code units, JSON.stringify(value, null, 2)
  // and a newline): the page writes no file itself, the browser downloads it.
  const review = report.review || { canon: false, marks: {}, stale: [] };
  // The download is named for the bundle's document ID (the same bundle gives the same page
  // whatever its folder's name): saved beside the bundle as <folder>.review.json, or given
  // with --review, streamer report reads it.
  const reviewFile = report.documentId + ".review.json";
  const reviewMarks = new Map(Object.entries(review.marks));
  function recordId(l, r) {
    const lane = lanes[l];
    const value = lane.idColumn === null ? undefined : lane.records[r][lane.idColumn];
    return typeof value === "string" ? value : null;
  }
  // A record's row: struck through when rejected; "not reviewed" when the page asks canon.
  function reviewRow(row, l, r) {
    const id = recordId(l, r);
    if (id === null) return;
    const mark = reviewMarks.get(id);
    if (mark) row.classList.add(mark.verdict);
    else if (review.canon) row.classList.add("unreviewed");
    if (mark || review.canon) row.title = mark ? mark.verdict + (mark.note ? ": " + mark.note : "") : "not reviewed";
  }
  function reviewText() {
    const records = {};
    for (const id of Array.from(reviewMarks.keys()).sort()) {
      const mark = reviewMarks.get(id);
      records[id] = mark.note ? { verdict: mark.verdict, note: mark.note } : { verdict: mark.verdict };
    }
    return JSON.stringify({
      artifact_kind: "review/records",
      schema: { id: "notarius.review", name: "notarius_review_v1", version: "v1" },
      bundle: { document_id: report.documentId, semantic_digest: report.semanticDigest },
      records: records,
    }, null, 2) + "\n";
  }
  function saveReview() {
    const link = el("a", "", []);
    link.download = reviewFile;
    link.href = URL.createObjectURL(new Blob([reviewText()], { type: "application/json" }));
    link.click();
    setTimeout(function () { URL.revokeObjectURL(link.href); }, 0);
  }
  function setMark(id, verdict, note) {
    if (verdict === null) reviewMarks.delete(id);
    else reviewMarks.set(id, note ? { verdict: verdict, note: note } : { verdict: verdict });
    saveButton.textContent = "save review (" + reviewMarks.size + ")";
    renderRecords();
  }
  // The controls in a record's view: accept, reject, clear, and the note.
  function reviewControls(l, r) {
    const id = recordId(l, r);
    if (id === null) return el("p", "unresolved", ["This lane's records have no ID: they cannot be reviewed."]);
    const mark = reviewMarks.get(id);
    const note = el("input", "", []);
    note.type = "text"; note.id = "review-note"; note.placeholder = "note";
    note.setAttribute("aria-label", "Note on this record");
    note.value = mark && mark.note ? mark.note : "";
    const box = el("div", "review", [el("span", "verdict", [mark ? mark.verdict : "not reviewed"])]);
    function mark_(verdict) { return function () { setMark(id, verdict, verdict === null ? "" : note.value.trim()); recordView(l, r); }; }
    for (const [name, verdict] of [["accept", "accepted"], ["reject", "rejected"], ["clear", null]]) {
      const node = button("review-" + name, name, mark_(verdict));
      node.id = "review-" + name;
      box.appendChild(node);
    }
    box.insertBefore(note, box.lastChild);
    return box;
  }
  const saveButton = button("", "save review (" + reviewMarks.size + ")", saveReview);
  saveButton.id = "save-review";
  saveButton.title = "Download " + reviewFile + ": give it to streamer report, or put it beside the bundle";
  controls.insertBefore(saveButton, status);
  if (review.stale.length) {
    header.appendChild(el("div", "notice stale", [
      "The review reviewMarks " + plural(review.stale.length, "record", "records") +
      " no longer in the bundle: " + review.stale.join(", "),
    ]));
  }
