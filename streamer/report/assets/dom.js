  // -- DOM helpers: text only ---------------------------------------------------------------
  const SVG = "http://www.w3.org/2000/svg";
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
  function referenceLabel(reference) {
    const start = reference.startUnitId, end = reference.endUnitId;
    return start === end ? start : start + " \u2013 " + end;
  }
