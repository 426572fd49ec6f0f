// simfind report: draws the groups from the JSON blob page by page, keeps the
// reviewer's removal selection and exports it. Every name and every byte of
// content goes into the page through textContent, never innerHTML.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const REPRESENTATIVE = 1, REFERENCE = 2, KEPT = 4;
  const $ = (id) => document.getElementById(id);
  const el = (tag, props, text) => {
    const e = document.createElement(tag);
    if (props) for (const k in props) e.setAttribute(k, props[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  };

  // Members numbered in output order (the CSV's row order): the selection is
  // one flag per member.
  const groups = data.groups.map((members, i) => ({ id: i + 1, members: [] }));
  const members = [];
  data.groups.forEach((list, i) => {
    const g = groups[i];
    let size = 0, simMin = 1, simMax = 0;
    list.forEach((m) => {
      const member = { n: members.length, group: g, m: m };
      members.push(member);
      g.members.push(member);
      size += m.s;
      if (!(m.f & REPRESENTATIVE) && m.j !== null) {
        simMin = Math.min(simMin, m.j);
        simMax = Math.max(simMax, m.j);
      }
    });
    g.size = size;
    g.simMin = simMin;
    g.simMax = simMax;
    g.keptPath = list[0].p;
    g.lower = list.map((m) => m.p.toLowerCase());
  });
  // Nothing is selected when the page opens: a removal is what the
  // reviewer ticks, or the scan's choice taken as a whole with its button.
  const selected = new Uint8Array(members.length);
  const scanChoice = () => members.forEach((x) => { selected[x.n] = x.m.f & KEPT ? 0 : 1; });
  const removable = members.filter((x) => !(x.m.f & KEPT)).length;

  // Sizes as the scan's summary writes them (decimal units), the exact
  // count in the element's title.
  function humanBytes(n) {
    if (n < 1e3) return n + " B";
    if (n < 1e6) return (n / 1e3).toFixed(1) + " kB";
    if (n < 1e9) return (n / 1e6).toFixed(1) + " MB";
    return (n / 1e9).toFixed(1) + " GB";
  }
  const exactBytes = (n) => n.toLocaleString("en") + " bytes";

  const state = { page: 0, pageSize: 50, view: groups };

  function readFilters() {
    const path = $("f-path").value.toLowerCase();
    const smin = parseFloat($("f-smin").value);
    const smax = parseFloat($("f-smax").value);
    const size = parseFloat($("f-size").value) || 0;
    const lo = isNaN(smin) ? 0 : smin, hi = isNaN(smax) ? 1 : smax;
    let view = groups.filter((g) =>
      (path === "" || g.lower.some((p) => p.includes(path))) &&
      ((lo <= 0 && hi >= 1) || g.members.some((x) => !(x.m.f & REPRESENTATIVE) && x.m.j !== null && x.m.j >= lo && x.m.j <= hi)) &&
      g.members.some((x) => x.m.s >= size));
    const by = {
      group: (a, b) => a.id - b.id,
      path: (a, b) => (a.keptPath < b.keptPath ? -1 : a.keptPath > b.keptPath ? 1 : a.id - b.id),
      "sim-asc": (a, b) => a.simMin - b.simMin || a.id - b.id,
      "sim-desc": (a, b) => b.simMax - a.simMax || a.id - b.id,
      size: (a, b) => b.size - a.size || a.id - b.id,
      members: (a, b) => b.members.length - a.members.length || a.id - b.id,
    }[$("f-sort").value];
    view = view.slice().sort(by);
    state.view = view;
    state.pageSize = parseInt($("f-page-size").value, 10) || 50;
  }

  function pages() { return Math.max(1, Math.ceil(state.view.length / state.pageSize)); }

  function role(f) {
    if (f & REPRESENTATIVE) return "kept copy";
    if (f & REFERENCE) return "reference (kept)";
    return f & KEPT ? "kept" : "removable";
  }

  function groupTable(g) {
    const table = el("table", { class: "group", "data-group": g.id });
    table.appendChild(el("caption", null,
      "Group " + g.id + " · " + g.members.length + " files · " + humanBytes(g.size)));
    const head = el("tr");
    ["remove", "path", "size", "modified", "similarity", "role", ""].forEach((h) => head.appendChild(el("th", { scope: "col" }, h)));
    table.appendChild(el("thead")).appendChild(head);
    const body = el("tbody");
    g.members.forEach((x) => {
      const m = x.m;
      const tr = el("tr", { class: "member" + (m.f & REFERENCE ? " reference" : m.f & KEPT ? " kept" : ""), "data-n": x.n });
      const box = el("input", { type: "checkbox", "aria-label": "remove" });
      box.checked = selected[x.n] === 1;
      if (m.f & KEPT) box.disabled = true;
      box.addEventListener("change", () => { selected[x.n] = box.checked ? 1 : 0; drawRemoval(); });
      tr.appendChild(el("td")).appendChild(box);
      tr.appendChild(el("td", { class: "path" }, m.p));
      tr.appendChild(el("td", { class: "num", title: exactBytes(m.s) }, humanBytes(m.s)));
      tr.appendChild(el("td", { class: "num" }, m.t === null ? "" : m.t));
      tr.appendChild(el("td", { class: "num" }, m.j === null ? "" : m.j.toFixed(6)));
      tr.appendChild(el("td", { class: "role" }, role(m.f)));
      const last = tr.appendChild(el("td"));
      if (typeof m.e === "number") {
        const button = last.appendChild(el("button", { type: "button", class: "explain" }, "side by side"));
        button.addEventListener("click", () => toggleExplanation(tr, g, m));
      } else if (typeof m.e === "string") {
        last.appendChild(el("span", { class: "note", title: m.e }, "no explanation"));
        last.appendChild(el("span", { class: "reason", hidden: "" }, m.e));
      }
      body.appendChild(tr);
    });
    table.appendChild(body);
    return table;
  }

  // The text of one side, its passages marked: `ranges` are [start, end,
  // passage number] in UTF-16 offsets, possibly overlapping (B may repeat
  // A's text); a stretch in several passages is marked with the first.
  function sideText(text, ranges) {
    const pre = el("pre");
    const cuts = new Set([0, text.length]);
    ranges.forEach((r) => { cuts.add(r[0]); cuts.add(r[1]); });
    const points = Array.from(cuts).sort((a, b) => a - b);
    const byStart = ranges.slice().sort((a, b) => a[0] - b[0] || a[2] - b[2]);
    let next = 0;
    const active = [];
    // A PDF's text separates its pages by a form feed: each one is shown as
    // a page mark (its label drawn by CSS, so the text stays the file's).
    let page = 1;
    const paged = (node, piece) => {
      const parts = piece.split("\f");
      parts.forEach((part, k) => {
        if (k > 0) {
          page += 1;
          node.appendChild(el("span", { class: "page-break", "data-page": page }, "\f"));
        }
        if (part.length > 0) node.appendChild(document.createTextNode(part));
      });
      return node;
    };
    for (let i = 0; i + 1 < points.length; i++) {
      const [from, to] = [points[i], points[i + 1]];
      while (next < byStart.length && byStart[next][0] <= from) active.push(byStart[next++]);
      let best = null;
      for (let k = active.length - 1; k >= 0; k--) {
        if (active[k][1] <= from) { active.splice(k, 1); continue; }
        if (best === null || active[k][2] < best[2]) best = active[k];
      }
      const piece = text.slice(from, to);
      const onPage = page;
      if (best === null) pre.appendChild(paged(el("span", { class: "only" }), piece));
      else pre.appendChild(paged(el("mark", { "data-n": best[2],
        title: "shared passage " + (best[2] + 1) + (text.includes("\f") ? ", from page " + onPage : "") }), piece));
    }
    return pre;
  }

  const plural = (n, one, many) => n + " " + (n === 1 ? one : many);

  // Scrolling one pane scrolls the other to the same place: their rows are
  // aligned (`alignRows`), so equal offsets show the same piece, and both
  // are as tall. The other pane's own scroll event, which that sets off,
  // finds the two already level and does nothing.
  function syncScroll(a, b) {
    const follow = (src, dst) => () => {
      if (dst.scrollTop !== src.scrollTop) dst.scrollTop = src.scrollTop;
    };
    a.addEventListener("scroll", follow(a, b));
    b.addEventListener("scroll", follow(b, a));
  }

  // Each piece's two rows as tall as the taller: read every height, then
  // set them (one layout, not one per row).
  function alignRows(rows) {
    rows.forEach(([x, y]) => { x.style.minHeight = ""; y.style.minHeight = ""; });
    const heights = rows.map(([x, y]) => Math.max(x.offsetHeight, y.offsetHeight));
    rows.forEach(([x, y], i) => { x.style.minHeight = y.style.minHeight = heights[i] + "px"; });
  }

  // An identical run on one side: its text, or its first and last words
  // around a button that counts the rest (`fold` = [head end, tail start,
  // words]) and unfolds both sides.
  function sameRow(row, text, range, fold, unfold) {
    row.textContent = "";
    if (!fold) { row.appendChild(document.createTextNode(text.slice(range[0], range[1]))); return; }
    row.appendChild(document.createTextNode(text.slice(range[0], fold[0])));
    const button = row.appendChild(el("button", { type: "button", class: "fold", title: "show them" },
      "… " + plural(fold[2], "identical word", "identical words") + " …"));
    button.addEventListener("click", unfold);
    row.appendChild(document.createTextNode(text.slice(fold[1], range[1])));
  }

  // The word diff `simfind explain` prints, side by side: one row per piece
  // of the diff, the kept copy's words on the left, this file's on the
  // right, a row only one side has left blank on the other; words only in
  // the kept copy struck through, only in this file underlined, a moved
  // block marked where each side has it; identical runs folded.
  function diffView(p, g, m) {
    const d = p.d;
    const box = el("div", { class: "word-diff" });
    box.appendChild(el("p", { class: "diff-summary" },
      "Word diff (as simfind explain prints it; words compared as normalised): " +
      plural(d.edits, "edit", "edits") + ", " + plural(d.moved, "moved block", "moved blocks") + "; " +
      d.same + " of the kept copy's " + d.words[0] + " words in place" +
      (d.complete ? "" : " (refinement stopped at its time limit: some edits are shown as larger blocks)")));
    const heads = box.appendChild(el("div", { class: "diff-sides" }));
    heads.appendChild(el("div", { class: "path" }, "kept: " + g.keptPath));
    heads.appendChild(el("div", { class: "path" }, m.p));
    const sides = box.appendChild(el("div", { class: "diff-sides" }));
    const left = sides.appendChild(el("div", { class: "diff-pane", "data-side": "a" }));
    const right = sides.appendChild(el("div", { class: "diff-pane", "data-side": "b" }));
    const ta = data.texts[p.a], tb = data.texts[p.b];
    const rows = [];
    const moved = (block, words, where) => el("span", { class: "block-label" },
      "block " + block + (words ? " (" + plural(words, "word", "words") + ")" : "") + where);
    d.p.forEach((piece, i) => {
      const [kind, r] = piece;
      // Words replaced by others (a removal, then an addition) share a
      // row: the old words beside the new.
      if (kind === "+" && i > 0 && d.p[i - 1][0] === "-") {
        const rb = rows[rows.length - 1][1];
        rb.classList.remove("gap");
        rb.appendChild(el("ins", { title: "only in this file" }, tb.slice(r[0], r[1])));
        return;
      }
      const ra = left.appendChild(el("div", { class: "row" }));
      const rb = right.appendChild(el("div", { class: "row" }));
      if (kind === "=") {
        const fold = piece[3];
        const draw = (folded) => {
          const unfold = () => { draw(false); alignRows(rows); };
          sameRow(ra, ta, r, folded && fold && [fold[0], fold[1], fold[4]], unfold);
          sameRow(rb, tb, piece[2], folded && fold && [fold[2], fold[3], fold[4]], unfold);
        };
        draw(true);
      } else if (kind === "-") {
        ra.appendChild(el("del", { title: "only in the kept copy" }, ta.slice(r[0], r[1])));
        rb.classList.add("gap");
      } else if (kind === "+") {
        rb.appendChild(el("ins", { title: "only in this file" }, tb.slice(r[0], r[1])));
        ra.classList.add("gap");
      } else if (kind === "<") {
        ra.appendChild(moved(piece[2], piece[3], " moved: this file has it elsewhere"));
        ra.appendChild(el("span", { class: "moved", "data-block": piece[2] }, ta.slice(r[0], r[1])));
        rb.classList.add("gap");
      } else if (kind === ">") {
        rb.appendChild(moved(piece[2], 0, " moved here"));
        rb.appendChild(el("span", { class: "moved", "data-block": piece[2] }, tb.slice(r[0], r[1])));
        ra.classList.add("gap");
      }
      rows.push([ra, rb]);
    });
    syncScroll(left, right);
    box.alignRows = () => alignRows(rows);
    return box;
  }

  function explanationView(g, m) {
    const p = data.pairs[m.e];
    const box = el("div", { class: "explanation-view" });
    const share = (x) => (x === null ? "—" : x.toFixed(6));
    box.appendChild(el("p", null, p.same ? "Byte-identical files: everything is shared." :
      "Jaccard " + share(p.j) + " (exact, of the files as they were when the report was written) · MinHash estimate " + share(p.m) +
      " · shingles: " + p.k[0] + " in the kept copy, " + p.k[1] + " in this file, " + p.k[2] + " shared · " +
      p.s.length + " shared passages"));
    // A pair that differs opens on its word diff; the whole texts with
    // their shared passages marked are one click further.
    let passages = box;
    if (p.d) {
      box.appendChild(diffView(p, g, m));
      passages = box.appendChild(el("details", { class: "passages" }));
      passages.appendChild(el("summary", null,
        "the whole texts, their " + plural(p.s.length, "shared passage", "shared passages") +
        " marked — the rest (shaded) is in one file only"));
    }
    const side = passages.appendChild(el("div", { class: "side" }));
    const a = side.appendChild(el("div"));
    a.appendChild(el("div", { class: "path" }, "kept: " + g.keptPath));
    a.appendChild(sideText(data.texts[p.a], p.s.map((s, i) => [s[0], s[1], i])));
    const b = side.appendChild(el("div"));
    b.appendChild(el("div", { class: "path" }, m.p));
    b.appendChild(sideText(data.texts[p.b], p.s.map((s, i) => [s[2], s[3], i])));
    if (p.s.length > 0) {
      const list = passages.appendChild(el("details"));
      list.appendChild(el("summary", null, "each passage's share of the Jaccard similarity"));
      const ol = list.appendChild(el("ol"));
      p.s.forEach((s) => ol.appendChild(el("li", null, s[4].toFixed(6))));
    }
    return box;
  }

  function toggleExplanation(tr, g, m) {
    const open = tr.nextSibling;
    if (open && open.classList && open.classList.contains("explanation")) { open.remove(); return; }
    const row = el("tr", { class: "explanation" });
    const td = row.appendChild(el("td", { colspan: 7 }));
    const view = td.appendChild(explanationView(g, m));
    tr.after(row);
    // Laid out now: the word diff's rows can be aligned.
    const diff = view.querySelector(".word-diff");
    if (diff) diff.alignRows();
  }

  function drawPage(into) {
    const list = into || $("group-list");
    list.textContent = "";
    state.page = Math.min(state.page, pages() - 1);
    const start = state.page * state.pageSize;
    const frag = document.createDocumentFragment();
    state.view.slice(start, start + state.pageSize).forEach((g) => frag.appendChild(groupTable(g)));
    list.appendChild(frag);
    $("page").textContent = "page " + (state.page + 1) + " of " + pages();
    $("prev").disabled = state.page === 0;
    $("next").disabled = state.page + 1 >= pages();
    const files = state.view.reduce((n, g) => n + g.members.length, 0);
    $("shown").textContent = state.view.length + " of " + groups.length + " groups shown (" + files + " files)" +
      (data.groups_total > groups.length ? "; the report holds " + groups.length + " of " + data.groups_total + " groups (--limit)" : "");
  }

  function pathBytes(m) {
    return m.x ? Uint8Array.from(m.x) : new TextEncoder().encode(m.p);
  }

  // The selection as the file `--files0-from`, `xargs -0` and `dedupe
  // --from-list` read: each path's exact bytes, then NUL.
  function exportBytes() {
    const parts = [];
    let length = 0;
    members.forEach((x) => {
      if (selected[x.n]) {
        const b = pathBytes(x.m);
        parts.push(b);
        length += b.length + 1;
      }
    });
    const out = new Uint8Array(length);
    let at = 0;
    parts.forEach((b) => { out.set(b, at); at += b.length + 1; });
    return out;
  }

  // The selection as a plan `simfind dedupe --apply` acts on: the scan's
  // header with the number of actions chosen, then the line of each
  // selected file, which carries its fingerprint and its kept copy's (a
  // file changed since the scan is refused when the plan is applied). A
  // selected file without a line (it changed before the report was
  // written) is left out and counted.
  function planText() {
    const lines = [];
    let missing = 0;
    members.forEach((x) => {
      if (!selected[x.n]) return;
      if (typeof x.m.a === "string") lines.push(x.m.a + "\n");
      else missing++;
    });
    return { text: data.plan_header + lines.length + "}\n" + lines.join(""), actions: lines.length, missing: missing };
  }

  function save(bytes, name) {
    const blob = new Blob([bytes], { type: "application/octet-stream" });
    const a = el("a", { href: URL.createObjectURL(blob), download: name });
    document.body.appendChild(a);
    a.click();
    a.remove();
  }

  function downloadPlan() {
    const plan = planText();
    save(new TextEncoder().encode(plan.text), "simfind-plan.jsonl");
    $("export-status").textContent = "Saved a plan of " + plan.actions + (plan.actions === 1 ? " file" : " files") +
      " as simfind-plan.jsonl in your browser's downloads folder" +
      (plan.missing ? "; " + plan.missing + " selected " + (plan.missing === 1 ? "file is" : "files are") +
        " not in it (changed since the scan: see its warnings)" : "") + ".";
  }

  const SHOWN_IN_LIST = 500;
  function drawRemoval() {
    let count = 0, bytes = 0;
    const list = $("removal-list");
    list.textContent = "";
    members.forEach((x) => {
      if (!selected[x.n]) return;
      count++;
      bytes += x.m.s;
      if (count <= SHOWN_IN_LIST) list.appendChild(el("li", { class: "path" }, x.m.p));
    });
    $("removal-count").textContent = count + " files selected (" + humanBytes(bytes) + ")" +
      (count > SHOWN_IN_LIST ? "; the first " + SHOWN_IN_LIST + " are listed below, the export has all" : "");
    $("removal-count").title = exactBytes(bytes);
  }

  function download() {
    save(exportBytes(), "simfind-removal.nul");
    const n = selected.reduce((s, b) => s + b, 0);
    $("export-status").textContent = "Saved " + n + (n === 1 ? " path" : " paths") +
      " as simfind-removal.nul in your browser's downloads folder.";
  }

  function refresh() { readFilters(); state.page = 0; drawPage(); }
  ["f-path", "f-smin", "f-smax", "f-size"].forEach((id) => $(id).addEventListener("input", refresh));
  ["f-sort", "f-page-size"].forEach((id) => $(id).addEventListener("change", refresh));
  $("prev").addEventListener("click", () => { state.page--; drawPage(); });
  $("next").addEventListener("click", () => { state.page++; drawPage(); });
  $("export-nul").addEventListener("click", download);
  if (typeof data.plan_header === "string") {
    $("export-plan").addEventListener("click", downloadPlan);
  } else {
    // Records, or groups whose roots are not known: no plan, the list only.
    $("export-plan").hidden = true;
    $("plan-hint").hidden = true;
  }
  $("reset").addEventListener("click", () => { scanChoice(); drawPage(); drawRemoval(); });
  $("clear").addEventListener("click", () => { selected.fill(0); drawPage(); drawRemoval(); });
  // Where the page exports a plan, the plan is the one way it suggests to
  // act: the list is for other tools. Records and shards' groups have no
  // plan: their list, and what dedupe does with it, is all there is.
  $("dedupe-command").textContent = data.dedupe_command;
  $("dedupe-command").hidden = data.dedupe_command === "";
  $("list-dedupe").hidden = typeof data.plan_header === "string" || !data.dedupe_command.startsWith("simfind ");
  $("reset").textContent = "Select the scan's choice (" + removable + " removable)";

  readFilters();
  drawPage();
  drawRemoval();
  // For bench/report_html.sh: milliseconds from navigation to the first page drawn.
  document.documentElement.dataset.drawnMs = String(Math.round(performance.now()));

  // `#selftest`: draw every page off-screen and write what the DOM holds as
  // JSON into <pre id=selftest>, for the browser test (tests/report_html.rs).
  if (location.hash === "#selftest") {
    const scratch = document.body.appendChild(el("div", { hidden: "" }));
    let tables = 0, rows = 0, pathText = [], opened = 0, marks = 0, sidesExact = 0, notes = [], pageMarks = [];
    const diff = { views: 0, pairs_with_diff: 0, del: 0, ins: 0, moved: 0, folds: 0, rows_even: 0 };
    for (let p = 0; p < pages(); p++) {
      state.page = p;
      drawPage(scratch);
      tables += scratch.querySelectorAll("table.group").length;
      scratch.querySelectorAll("tr.member td.path").forEach((td) => { rows++; pathText.push(td.textContent); });
      // Open every explanation: the marked sides must spell the texts exactly.
      scratch.querySelectorAll("button.explain").forEach((b) => b.click());
      scratch.querySelectorAll(".explanation-view").forEach((v) => {
        opened++;
        marks += v.querySelectorAll("mark").length;
        v.querySelectorAll(".page-break").forEach((m) => pageMarks.push(m.getAttribute("data-page")));
        const w = v.querySelector(".word-diff");
        if (w) {
          diff.views++;
          diff.del += w.querySelectorAll("del").length;
          diff.ins += w.querySelectorAll("ins").length;
          diff.moved += w.querySelectorAll(".moved").length;
          diff.folds += w.querySelectorAll("button.fold").length;
          const panes = w.querySelectorAll(".diff-pane");
          if (panes[0].children.length === panes[1].children.length) diff.rows_even++;
        }
        const pres = v.querySelectorAll("pre");
        const texts = Array.from(pres, (pre) => pre.textContent);
        if (data.texts.includes(texts[0]) && data.texts.includes(texts[1])) sidesExact++;
      });
      scratch.querySelectorAll(".reason").forEach((r) => notes.push(r.textContent));
    }
    scratch.remove();
    state.page = 0;
    drawPage();
    // What the page opened with, then the scan's choice through its button
    // (which draws the page again).
    const selectedAtOpen = selected.reduce((a, b) => a + b, 0);
    const ticksAtOpen = document.querySelectorAll("#group-list input[type=checkbox]:checked").length;
    $("reset").click();
    // One explanation left open on the page, for the dumped DOM.
    const first = document.querySelector("#group-list button.explain");
    if (first) first.click();
    diff.pairs_with_diff = data.pairs.filter((x) => x.d).length;
    // And the first pair that differs, whose word diff is scrolled below.
    if (!document.querySelector("#group-list .word-diff")) {
      const differs = Array.from(document.querySelectorAll("#group-list tr.member")).find((tr) => {
        const e = members[parseInt(tr.getAttribute("data-n"), 10)].m.e;
        return typeof e === "number" && data.pairs[e].d;
      });
      if (differs) differs.querySelector("button.explain").click();
    }
    const hex = Array.from(exportBytes(), (b) => b.toString(16).padStart(2, "0")).join("");
    // Whether the first group is on the first screen of a 1280 × 800 window:
    // the page opens on the groups.
    const firstGroup = document.querySelector("#group-list table.group");
    const firstGroupTop = firstGroup ? Math.round(firstGroup.getBoundingClientRect().top + window.scrollY) : -1;
    const firstSize = document.querySelector("#group-list tr.member td.num");
    const out = {
      groups: tables,
      rows: rows,
      data_groups: groups.length,
      data_rows: members.length,
      selected: selected.reduce((a, b) => a + b, 0),
      selected_at_open: selectedAtOpen,
      ticks_at_open: ticksAtOpen,
      first_group_top: firstGroupTop,
      first_size: firstSize ? [firstSize.textContent, firstSize.title] : null,
      facts_open: $("run-facts").open,
      scripts: document.getElementsByTagName("script").length,
      paths: pathText,
      export_hex: hex,
      plan: typeof data.plan_header === "string" ? planText().text : null,
      explanations: opened,
      explanations_exact: sidesExact,
      marks: marks,
      page_marks: pageMarks,
      left_out: notes,
      side_text: Array.from(document.querySelectorAll("#group-list pre"), (pre) => pre.textContent).slice(0, 2),
      // The commands the page shows (an element hidden, or in a hidden
      // one, is not shown).
      commands: Array.from($("removal").querySelectorAll("code, pre"))
        .filter((c) => c.offsetParent !== null)
        .map((c) => c.textContent)
        .filter((t) => t.startsWith("simfind ") || t.startsWith("--")),
      // Where the page says its exports go (the browser's downloads folder).
      plan_hint: $("plan-hint").hidden ? null : $("plan-hint").textContent,
      diff: diff,
      scroll: null,
    };
    // Scrolling one side of the open word diff scrolls the other: each
    // pane is scrolled in turn and the other read. The scroll event is sent
    // by hand: a browser sends it at its next frame, and headless Chromium
    // under a virtual time budget draws no frame once the page is loaded.
    const left = document.querySelector("#group-list .diff-pane[data-side=a]");
    if (left) {
      const right = left.parentNode.querySelector(".diff-pane[data-side=b]");
      const scroll = out.scroll = {
        height: [left.scrollHeight, right.scrollHeight],
        client: [left.clientHeight, right.clientHeight],
      };
      const scrollTo = (pane, y) => { pane.scrollTop = y; pane.dispatchEvent(new Event("scroll")); };
      scrollTo(left, 120);
      scroll.a_set = left.scrollTop;
      scroll.b_after_a = right.scrollTop;
      scrollTo(right, 40);
      scroll.b_set = right.scrollTop;
      scroll.a_after_b = left.scrollTop;
    }
    $("selftest").textContent = JSON.stringify(out);
  }
})();
