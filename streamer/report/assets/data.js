  // -- the page's data, unpacked once ----------------------------------------------------
  // The embedded JSON (its format: streamer/report/writer.py) packs rows as arrays; each is
  // turned here, and only here, into an object with named members.
  function unpackUnit(row) {
    return { id: row[0], kind: row[1], text: row[2], speaker: row[3], startMs: row[4], endMs: row[5] };
  }
  function unpackContext(row) {
    const references = row[2].map(function (cited) {
      return { startUnitId: cited[0], endUnitId: cited[1], laneIds: cited[2] };
    });
    const laneIds = new Set(); // the lanes that cite this context
    for (const reference of references) for (const id of reference.laneIds) laneIds.add(id);
    return { first: row[0], count: row[1], references: references, laneIds: laneIds };
  }
  function unpackReference(pair) { return { startUnitId: pair[0], endUnitId: pair[1] }; }
  function unpackLane(lane) {
    return {
      id: lane.lane_id,
      kind: lane.artifact_kind,
      question: lane.question,
      columns: lane.columns,
      labels: lane.labels,
      idColumn: lane.id_column,
      referenceColumn: lane.reference_column,
      records: lane.records,
      references: lane.references.map(function (cited) { return cited.map(unpackReference); }),
      at: lane.at || null, // each record's place in the session (a source position), when known
      secret: new Set(lane.secret || []), // the game master's page: records naming a secret
    };
  }
  // The whole page's data; the parsed JSON is not kept (its rows are garbage once unpacked).
  function unpackReport(raw) {
    const evidence = raw.evidence;
    return {
      title: raw.title,
      documentId: raw.source.document_id,
      semanticDigest: raw.source.semantic_digest,
      sessionUnits: raw.session_units === undefined ? null : raw.session_units,
      characters: new Map(raw.characters), // a speaker exactly as written -> their character
      rejections: raw.rejections === undefined ? null : raw.rejections,
      // what the run said: why a lane's rules found nothing, the lanes it did not run
      notes: raw.run ? raw.run.notes : {},
      notRun: raw.run ? raw.run.not_run : [],
      notRunWhy: raw.run ? raw.run.not_run_why : null,
      review: raw.review || null, // the game master's review (review.js), when given
      lanes: raw.lanes.map(unpackLane),
      hasEvidence: evidence !== null,
      allowlist: new Set(evidence ? evidence.lanes : []),
      units: evidence ? evidence.units.map(unpackUnit) : [],
      contexts: evidence ? evidence.contexts.map(unpackContext) : [],
      secretUnits: new Set(evidence && evidence.secret_units || []), // units a secret withholds
    };
  }
  const report = unpackReport(JSON.parse(document.getElementById("report-data").textContent));
  const units = report.units, contexts = report.contexts, lanes = report.lanes;
