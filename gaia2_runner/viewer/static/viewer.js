// Table sort/filter, expand/collapse, and live reload when served by `gaia2-runner serve`.
(function () {
  "use strict";
  var body = document.body, page = body.dataset.page, up = body.dataset.up || "";
  var stateKey = "gaia2-viewer:" + page;

  function save() {
    var open = [];
    document.querySelectorAll("details[open][id]").forEach(function (d) { open.push(d.id); });
    var st = { y: window.scrollY, open: open };
    var q = document.getElementById("q");
    if (q) { st.q = q.value; st.status = val("status-filter"); st.split = val("split-filter"); st.sort = sortState; }
    try { sessionStorage.setItem(stateKey, JSON.stringify(st)); } catch (e) {}
  }
  function load() {
    try { return JSON.parse(sessionStorage.getItem(stateKey) || "null"); } catch (e) { return null; }
  }
  function val(id) { var el = document.getElementById(id); return el ? el.value : ""; }

  // ---- index table -------------------------------------------------------------------------
  var table = document.getElementById("scenarios"), sortState = null;
  function cellValue(row, i) {
    var c = row.cells[i]; return c ? (c.dataset.v !== undefined ? c.dataset.v : c.textContent) : "";
  }
  function sortBy(i, kind, dir) {
    var tbody = table.tBodies[0], rows = Array.prototype.slice.call(tbody.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, i), y = cellValue(b, i);
      if (kind === "num") {
        var fx = x === "" ? -Infinity : parseFloat(x), fy = y === "" ? -Infinity : parseFloat(y);
        return (fx - fy) * dir;
      }
      return x.localeCompare(y, undefined, { numeric: true }) * dir;
    });
    rows.forEach(function (r) { tbody.appendChild(r); });
    table.querySelectorAll("th").forEach(function (th) { th.classList.remove("asc", "desc"); });
    table.tHead.rows[0].cells[i].classList.add(dir > 0 ? "asc" : "desc");
    sortState = { i: i, kind: kind, dir: dir };
  }
  function applyFilter() {
    var q = val("q").toLowerCase(), status = val("status-filter"), split = val("split-filter"), shown = 0;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
      var ok = (!q || r.textContent.toLowerCase().indexOf(q) >= 0) &&
        (!status || (" " + r.dataset.status + " ").indexOf(" " + status + " ") >= 0) &&
        (!split || r.dataset.split === split);
      r.hidden = !ok; if (ok) shown++;
    });
    var out = document.getElementById("shown");
    if (out) out.textContent = shown + " of " + table.tBodies[0].rows.length + " shown";
  }
  if (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      if (!th.dataset.sort) return;
      th.addEventListener("click", function () {
        var dir = sortState && sortState.i === i ? -sortState.dir : 1;
        sortBy(i, th.dataset.sort, dir); save();
      });
    });
    ["q", "status-filter", "split-filter"].forEach(function (id) {
      var el = document.getElementById(id);
      if (el) el.addEventListener("input", function () { applyFilter(); save(); });
    });
  }

  // ---- trace page ----------------------------------------------------------------------------
  document.querySelectorAll("[data-expand]").forEach(function (b) {
    b.addEventListener("click", function () {
      var open = b.dataset.expand === "open";
      document.querySelectorAll("ol.timeline details").forEach(function (d) { d.open = open; });
    });
  });
  var hide = document.getElementById("hide-llm");
  if (hide) hide.addEventListener("change", function () { body.classList.toggle("hide-llm", hide.checked); });

  // ---- restore state after a live reload ---------------------------------------------------------
  var st = load();
  if (st) {
    (st.open || []).forEach(function (id) { var d = document.getElementById(id); if (d) d.open = true; });
    if (table) {
      if (st.q) document.getElementById("q").value = st.q;
      if (st.status && document.getElementById("status-filter")) document.getElementById("status-filter").value = st.status;
      if (st.split && document.getElementById("split-filter")) document.getElementById("split-filter").value = st.split;
      if (st.sort) sortBy(st.sort.i, st.sort.kind, st.sort.dir);
    }
    if (st.y) window.scrollTo(0, st.y);
  }
  if (table) applyFilter();
  window.addEventListener("beforeunload", save);

  // ---- live reload: only under `serve`, which has /__events ------------------------------------
  if (/^https?:$/.test(location.protocol) && window.EventSource) {
    var es = new EventSource(up + "__events");
    es.onopen = function () { var l = document.getElementById("live"); if (l) l.hidden = false; };
    es.onmessage = function (ev) {
      if (ev.data === page) { save(); location.reload(); }
    };
    es.onerror = function () {
      var l = document.getElementById("live"); if (l) l.hidden = true;
    };
  }
})();
