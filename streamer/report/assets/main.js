  // -- the controls' events, then the first view (from the URL fragment) --------------------
  search.addEventListener("input", function () {
    go({ query: search.value.trim().toLowerCase(), selected: null }, false);
  });
  laneSelect.addEventListener("change", function () { go({ lane: laneSelect.value }, false); });
  speakerSelect.addEventListener("change", function () {
    const value = speakerSelect.value;
    go({ speaker: value === "" ? undefined : value === "none" ? null : speakerList[Number(value.slice(1))] }, false);
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
