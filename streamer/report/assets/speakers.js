  // -- speakers, their characters, the session's times, the text a search looks in ---------
  // A speaker's character comes resolved with the data (the party, keyed by Python): a
  // plain lookup of the speaker exactly as the units write it.
  function speakerLabel(speaker) {
    if (speaker === null) return "";
    const name = report.characters.get(speaker);
    return name === undefined ? speaker : speaker + " (" + name + ")";
  }
  const speakers = new Set();
  let unspoken = false, timed = false, lastMs = null;
  for (const unit of units) {
    if (unit.speaker === null) unspoken = true; else speakers.add(unit.speaker);
    if (unit.startMs !== null) {
      timed = true;
      const end = unit.endMs !== null ? unit.endMs : unit.startMs;
      if (lastMs === null || end > lastMs) lastMs = end;
    }
  }
  const speakerList = Array.from(speakers).sort();
  let haystack = null; // lower-cased text, speaker and character of each unit, built on first search
  function searchable() {
    if (haystack === null) {
      haystack = new Array(units.length);
      for (let i = 0; i < units.length; i++) {
        haystack[i] = (units[i].text + "\n" + speakerLabel(units[i].speaker)).toLowerCase();
      }
    }
    return haystack;
  }
