/* kgbuild story view: draws the embedded graph with Cytoscape.js; no network, no server.
 *
 * Names are not drawn by the graph library but by the page, over it (#labels): the main characters
 * and places first, then as many others as the view has room for, none overlapping (declutter.js).
 * By default only the strongest relations are drawn; zooming in, pointing at an entity, picking one
 * or ticking "every relation" draws the rest.
 *
 * window.kgview exposes the state for people and tests: the Cytoscape instance (cy), the current
 * scene, ready (true after the first frame), firstRenderMs (performance.now() at that frame),
 * errors (uncaught errors seen on the page), labelsPending (true until the names are placed for
 * the current view), firstView (the first frame's zoom and pan: every relation is drawn from
 * twice its zoom), setScene(n), focusEntity(id) and heading(scene).
 */
(function () {
  "use strict";

  var kgview = { ready: false, firstRenderMs: null, errors: [], scene: null, labelsPending: true };
  window.kgview = kgview;
  window.addEventListener("error", function (event) { kgview.errors.push(String(event.message)); });

  var data = JSON.parse(document.getElementById("kgview-data").textContent);
  var nodesById = new Map(data.nodes.map(function (n) { return [n.id, n]; }));
  var edgesById = new Map(data.edges.map(function (e) { return [e.id, e]; }));
  var entityTypes = new Map(data.entity_types.map(function (t) { return [t.name, t]; }));
  var relationTypes = new Map(data.relation_types.map(function (t) { return [t.name, t]; }));
  var headings = new Map(data.scenes.map(function (s) { return [s.index, s.heading]; }));
  var incident = new Map();
  data.edges.forEach(function (e) {
    [e.source, e.target].forEach(function (end) {
      if (!incident.has(end)) { incident.set(end, []); }
      incident.get(end).push(e);
    });
  });
  var large = data.nodes.length + data.edges.length > 2500;
  var lastScene = data.last_scene;
  var byRank = data.nodes.slice().sort(function (a, b) { return a.rank - b.rank; });
  /* Every relation is drawn once the view is zoomed this many times closer than its first zoom. */
  var ZOOM_ALL_RELATIONS = 2;
  /* Screen area (CSS pixels squared) per name shown, besides the main entities' names. */
  var AREA_PER_LABEL = 24000;

  /* ---------- small DOM helpers ---------- */

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") { node.textContent = attrs[key]; }
      else if (key === "class") { node.className = attrs[key]; }
      else if (key.slice(0, 2) === "on") { node.addEventListener(key.slice(2), attrs[key]); }
      else { node.setAttribute(key, attrs[key]); }
    });
    (children || []).forEach(function (child) {
      if (child !== null && child !== undefined) {
        node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
      }
    });
    return node;
  }

  kgview.heading = function (index) { return headings.get(index) || ""; };

  function sceneText(index) {
    var heading = headings.get(index);
    return "Scene " + index + (heading ? " · " + heading : "");
  }

  function storyOrder(a, b) {
    var fa = a.first === null ? Infinity : a.first;
    var fb = b.first === null ? Infinity : b.first;
    return fa - fb || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0);
  }

  /* ---------- the graph ---------- */

  function shortLabel(name) {
    return name.length > 36 ? name.slice(0, 34) + "…" : name;
  }

  /* The initial viewport fits the node positions (cheaper than letting the library measure
     every label before the first frame). */
  function fitViewport(container) {
    if (!data.nodes.length) { return { zoom: 1, pan: { x: 0, y: 0 } }; }
    var x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    data.nodes.forEach(function (n) {
      x0 = Math.min(x0, n.x); x1 = Math.max(x1, n.x); y0 = Math.min(y0, n.y); y1 = Math.max(y1, n.y);
    });
    var pad = 40;
    var w = Math.max(container.clientWidth - 2 * pad, 50), h = Math.max(container.clientHeight - 2 * pad, 50);
    var zoom = Math.max(0.02, Math.min(2, w / Math.max(x1 - x0, 1), h / Math.max(y1 - y0, 1)));
    return { zoom: zoom, pan: { x: pad + (w - zoom * (x1 - x0)) / 2 - zoom * x0,
                                y: pad + (h - zoom * (y1 - y0)) / 2 - zoom * y0 } };
  }

  /* Each element carries a class for its type (et0, et1, ... / rt0, ...) so that a type's look
     is one style rule, whatever the type's name. */
  var entityClass = new Map(data.entity_types.map(function (t, i) { return [t.name, "et" + i]; }));
  var relationClass = new Map(data.relation_types.map(function (t, i) { return [t.name, "rt" + i]; }));
  var elements = [];
  data.nodes.forEach(function (n) {
    elements.push({
      group: "nodes",
      data: { id: n.id, type: n.type, size: n.size, first: n.first },
      position: { x: n.x, y: n.y },
      classes: entityClass.get(n.type)
    });
  });
  data.edges.forEach(function (e) {
    elements.push({
      group: "edges",
      data: { id: e.id, source: e.source, target: e.target, type: e.type, first: e.first, weight: 1 },
      classes: relationClass.get(e.type)
    });
  });

  var style = [
    { selector: "node", style: { "width": "data(size)", "height": "data(size)", "border-width": 0 } },
    { selector: "edge", style: {
      "width": 1.6, "arrow-scale": 0.8, "curve-style": large ? "straight" : "bezier", "opacity": 0.75
    } }
  ];
  data.entity_types.forEach(function (t) {
    style.push({ selector: "node." + entityClass.get(t.name), style: { "background-color": t.colour } });
  });
  data.relation_types.forEach(function (t) {
    style.push({ selector: "edge." + relationClass.get(t.name), style: {
      "line-color": t.colour, "line-style": t.line, "target-arrow-color": t.colour,
      "target-arrow-shape": t.directed ? "triangle" : "none"
    } });
  });
  style.push(
    { selector: "edge.strong", style: { "width": "mapData(weight, 1, 4, 2, 4.5)", "opacity": 0.85 } },
    { selector: "edge.anchor", style: { "width": 1, "opacity": 0.4 } },
    { selector: "edge.near", style: { "opacity": 0.85 } },
    { selector: "edge.thin", style: { "display": "none" } },
    { selector: "edge.thin.near, edge.thin.pointed", style: { "display": "element" } },
    { selector: ".later, .filtered", style: { "display": "none" } },
    { selector: "node.new", style: { "border-width": 3, "border-color": "#111" } },
    { selector: ".faded", style: { "opacity": 0.12 } },
    { selector: "node:selected", style: { "border-width": 5, "border-color": "#f2b701" } },
    { selector: "edge:selected", style: {
      "width": 5, "opacity": 1, "line-color": "#f2b701", "target-arrow-color": "#f2b701"
    } }
  );

  var container = document.getElementById("graph");
  var view = fitViewport(container);
  var cy = cytoscape({
    container: container,
    zoom: view.zoom,
    pan: view.pan,
    elements: elements,
    style: style,
    layout: { name: "preset", fit: false },
    minZoom: 0.02,
    maxZoom: 6,
    autoungrabify: true,
    boxSelectionEnabled: false,
    selectionType: "single",
    hideEdgesOnViewport: large,
    textureOnViewport: large,
    pixelRatio: large ? 1 : "auto"
  });
  kgview.cy = cy;
  cy.one("render", function () {
    kgview.firstRenderMs = performance.now();
    kgview.ready = true;
  });

  /* ---------- names, drawn over the graph ---------- */

  var labelLayer = document.getElementById("labels");
  var leaderLayer = document.getElementById("leaders");
  var labelOf = new Map();  /* entity id -> { span, w, h, side }, made when first needed */
  var labelFrame = null;
  var pointed = null;  /* the id of the entity under the pointer */

  function makeLabel(n) {
    var classes = "label" + (n.main ? " main" : "") + (n.type === data.character_type ? " character" : "");
    var span = el("span", { "class": classes, "data-id": n.id, text: shortLabel(n.name) });
    labelLayer.appendChild(span);
    labelOf.set(n.id, { span: span, w: 0, h: 0, side: null });
  }

  function scheduleLabels() {
    kgview.labelsPending = true;
    if (labelFrame === null) { labelFrame = requestAnimationFrame(placeLabels); }
  }

  /* The names to show, in priority order: the selected and the pointed entity, then the main
     characters and places (these must be shown), then the others by rank; only entities shown now,
     in view, and, when one is picked, in its neighbourhood. */
  function labelCandidates(width, height) {
    var zoom = cy.zoom(), pan = cy.pan();
    var seen = new Set();
    var candidates = [];
    function consider(n, must, always) {
      if (seen.has(n.id)) { return; }
      seen.add(n.id);
      if (!nodeShown(n) || (!always && focused !== null && !focused.has(n.id))) { return; }
      var x = n.x * zoom + pan.x, y = n.y * zoom + pan.y;
      if (x < 0 || y < 0 || x > width || y > height) { return; }
      candidates.push({ id: n.id, x: x, y: y, r: Math.max(n.size * zoom / 2, 1.5), must: must });
    }
    cy.nodes(":selected").forEach(function (node) { consider(nodesById.get(node.id()), true, true); });
    if (pointed !== null) { consider(nodesById.get(pointed), true, true); }
    byRank.forEach(function (n) { consider(n, n.main, false); });
    return candidates;
  }

  function placeLabels() {
    labelFrame = null;
    var width = container.clientWidth, height = container.clientHeight;
    var candidates = labelCandidates(width, height);
    var fresh = candidates.filter(function (c) { return !labelOf.has(c.id); });
    fresh.forEach(function (c) { makeLabel(nodesById.get(c.id)); });
    fresh.forEach(function (c) {  /* measured after all are added: one layout */
      var label = labelOf.get(c.id), rect = label.span.getBoundingClientRect();
      label.w = rect.width;
      label.h = rect.height;
    });
    candidates.forEach(function (c) {
      var label = labelOf.get(c.id);
      c.w = label.w;
      c.h = label.h;
      c.side = label.side;
    });
    var budget = Math.max(4, Math.round(width * height / AREA_PER_LABEL));
    var placed = kgviewDeclutter.placeLabels(candidates, { width: width, height: height, budget: budget });
    var now = new Set();
    var lines = [];
    placed.forEach(function (p) {
      var label = labelOf.get(p.id), span = label.span;
      label.side = p.side;
      span.style.transform = "translate(" + p.x1 + "px," + p.y1 + "px)";
      span.hidden = false;
      now.add(p.id);
      if (p.leader) {
        var line = document.createElementNS(leaderLayer.namespaceURI, "line");
        ["x1", "y1", "x2", "y2"].forEach(function (key, i) { line.setAttribute(key, String(p.leader[i])); });
        lines.push(line);
      }
    });
    labelOf.forEach(function (label, id) { if (!now.has(id)) { label.span.hidden = true; } });
    leaderLayer.replaceChildren.apply(leaderLayer, lines);
    kgview.labelsPending = false;
  }

  cy.on("viewport resize", function () {
    if (everyRelation() !== drewEvery) {
      drawRelations();
      showCounts();
    }
    scheduleLabels();
  });
  cy.on("mouseover", "node", function (event) {
    pointed = event.target.id();
    event.target.connectedEdges().addClass("pointed");
    scheduleLabels();
  });
  cy.on("mouseout", "node", function (event) {
    pointed = null;
    event.target.connectedEdges().removeClass("pointed");
    scheduleLabels();
  });

  /* ---------- counts and the scene slider ---------- */

  var slider = document.getElementById("scene");
  var sceneLabel = document.getElementById("scene-label");
  var counts = document.getElementById("counts");
  slider.max = String(lastScene);

  var off = { entity: new Set(), relation: new Set() };

  function nodeShown(n) {
    return (n.first === null || n.first <= kgview.scene) && !off.entity.has(n.type);
  }

  function edgeShown(e) {
    return (e.first === null || e.first <= kgview.scene) && !off.relation.has(e.type) &&
      nodeShown(nodesById.get(e.source)) && nodeShown(nodesById.get(e.target));
  }

  function showCounts() {
    var shownNodes = data.nodes.filter(nodeShown).length;
    var shownEdges = data.edges.filter(edgeShown).length;
    var drawn = everyRelation() ? shownEdges : tiers.strong.size + tiers.anchor.size;
    counts.textContent = data.nodes.length + " entities, " + data.edges.length + " relations; shown: " +
      shownNodes + " entities, " + shownEdges + " relations (" + drawn + " drawn)";
    counts.title = drawn < shownEdges
      ? "The strongest relations are drawn: zoom in, point at an entity or pick one to draw its others, " +
        "or tick 'Draw every relation'."
      : "";
  }

  /* ---------- which relations are drawn ---------- */

  var everyBox = document.getElementById("every-relation");
  var tiers = { strong: new Map(), anchor: new Set() };
  var firstZoom = view.zoom;
  kgview.firstView = { zoom: view.zoom, pan: { x: view.pan.x, y: view.pan.y } };
  var drewEvery = null;  /* whether every relation was drawn at the last drawRelations */

  function everyRelation() {
    return everyBox.checked || cy.zoom() >= firstZoom * ZOOM_ALL_RELATIONS;
  }

  /* The classes of every edge for the tiers and the zoom: strong, anchor, or thin (not drawn). */
  function drawRelations() {
    var every = everyRelation();
    var changed = [];
    cy.batch(function () {
      cy.edges().forEach(function (edge) {
        var id = edge.id();
        var weight = tiers.strong.get(id);
        var anchor = !every && tiers.anchor.has(id);
        var thin = !every && weight === undefined && !anchor;
        if (edge.hasClass("thin") !== thin) { edge.toggleClass("thin", thin); changed.push(edge); }
        if (edge.hasClass("anchor") !== anchor) { edge.toggleClass("anchor", anchor); }
        if (edge.hasClass("strong") !== (weight !== undefined)) { edge.toggleClass("strong", weight !== undefined); }
        if (weight !== undefined && edge.data("weight") !== weight) { edge.data("weight", weight); }
      });
    });
    applyNow(changed);
    drewEvery = every;
  }

  function refreshTiers() {
    var shown = data.edges.filter(edgeShown).map(function (e) {
      return { id: e.id, source: e.source, target: e.target, scenes: e.scenes.length };
    });
    tiers = kgviewDeclutter.strongestRelations(shown, function (id) { return nodesById.get(id).main; },
      function (id) { return nodesById.get(id).rank; });
    drawRelations();
  }
  everyBox.addEventListener("change", function () { drawRelations(); showCounts(); });

  /* Cytoscape applies class changes lazily, at the next frame; until then ele.visible() and
     ':visible' answer from a cache. Reading the style of the changed elements applies it now, so
     that both say what the next frame shows. */
  function applyNow(changed) {
    changed.forEach(function (ele) { ele.pstyle("display"); });
  }

  function setScene(n) {
    var scene = Math.max(1, Math.min(lastScene, Math.round(n)));
    kgview.scene = scene;
    slider.value = String(scene);
    var changed = [];
    cy.batch(function () {
      cy.elements().forEach(function (ele) {
        var first = ele.data("first");
        var later = first !== null && first > scene;
        if (ele.hasClass("later") !== later) { ele.toggleClass("later", later); changed.push(ele); }
        if (ele.isNode() && ele.hasClass("new") !== (first === scene)) { ele.toggleClass("new", first === scene); }
      });
    });
    applyNow(changed);
    refreshTiers();
    scheduleLabels();
    sceneLabel.textContent = "Scene " + scene + " of " + lastScene +
      (headings.get(scene) ? " · " + headings.get(scene) : "");
    sceneLabel.title = sceneLabel.textContent;
    showCounts();
    refreshPanel();
  }
  kgview.setScene = setScene;
  slider.addEventListener("input", function () { setScene(Number(slider.value)); });

  var playButton = document.getElementById("play");
  var timer = null;
  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    playButton.textContent = "▶";
    playButton.setAttribute("aria-label", "Play the story scene by scene");
  }
  playButton.addEventListener("click", function () {
    if (timer !== null) { stop(); return; }
    if (kgview.scene >= lastScene) { setScene(1); }
    playButton.textContent = "❚❚";
    playButton.setAttribute("aria-label", "Pause");
    var step = Math.max(250, Math.min(900, 60000 / lastScene));
    timer = setInterval(function () {
      if (kgview.scene >= lastScene) { stop(); return; }
      setScene(kgview.scene + 1);
    }, step);
  });

  /* ---------- type filters ---------- */

  function filterList(listId, entries, kind) {
    var list = document.getElementById(listId);
    var group = null;
    entries.forEach(function (t) {
      if (kind === "relation" && t.group !== group) {
        group = t.group;
        list.appendChild(el("li", { "class": "group", text: group.replace(/_/g, " ") }));
      }
      var mark = kind === "entity"
        ? el("span", { "class": "swatch", style: "background:" + t.colour })
        : el("span", { "class": "line", style: "border-top-style:" + t.line + ";border-top-color:" + t.colour });
      var box = el("input", { type: "checkbox", "data-type": t.name, "data-kind": kind });
      box.checked = true;
      box.addEventListener("change", applyFilters);
      list.appendChild(el("li", { title: t.description }, [
        el("label", {}, [box, mark, el("span", { text: t.name + (kind === "relation" && !t.directed ? " ↔" : "") }),
          el("span", { "class": "n", text: String(t.count) })])
      ]));
    });
  }

  function applyFilters() {
    off = { entity: new Set(), relation: new Set() };
    document.querySelectorAll("nav input[data-kind]").forEach(function (box) {
      if (!box.checked) { off[box.getAttribute("data-kind")].add(box.getAttribute("data-type")); }
    });
    var changed = [];
    cy.batch(function () {
      cy.elements().forEach(function (ele) {
        var hide = off[ele.isNode() ? "entity" : "relation"].has(ele.data("type"));
        if (ele.hasClass("filtered") !== hide) { ele.toggleClass("filtered", hide); changed.push(ele); }
      });
    });
    applyNow(changed);
    refreshTiers();
    scheduleLabels();
    showCounts();
  }

  function enableType(kind, type) {
    var box = document.querySelector("nav input[data-kind=\"" + kind + "\"][data-type=\"" + CSS.escape(type) + "\"]");
    if (box && !box.checked) { box.checked = true; applyFilters(); }
  }

  filterList("entity-types", data.entity_types, "entity");
  filterList("relation-types", data.relation_types, "relation");
  document.querySelectorAll(".toggle-all").forEach(function (button) {
    button.addEventListener("click", function () {
      var boxes = document.querySelectorAll("nav input[data-kind=\"" + button.getAttribute("data-kind") + "\"]");
      var anyOn = Array.prototype.some.call(boxes, function (b) { return b.checked; });
      boxes.forEach(function (b) { b.checked = !anyOn; });
      applyFilters();
    });
  });
  document.getElementById("size-hint").textContent = data.size_by === "speeches"
    ? "Characters are sized by their speeches, other entities by their relations."
    : "Entities are sized by their relations (no screenplay.json beside graph.json).";
  document.getElementById("draw-hint").textContent = "Names: the main characters and places, then as many " +
    "others as there is room for; zoom in for more. Relations: the strongest (one line per pair of " +
    "entities); zoom in, point at or pick an entity, or tick 'Draw every relation' for the rest.";

  /* ---------- the details panel ---------- */

  var panel = document.getElementById("panel");
  var panelBody = document.getElementById("panel-body");

  var focused = null;  /* the ids of the highlighted entities, or null */

  function highlight(collection) {
    var changed = cy.edges(".near");
    cy.batch(function () {
      cy.elements().removeClass("faded");
      changed.removeClass("near");
      if (collection) {
        cy.elements().not(collection).addClass("faded");
        collection.edges().addClass("near");
      }
    });
    applyNow(changed.union(collection ? collection.edges() : cy.collection()));
    focused = collection ? new Set(collection.nodes().map(function (n) { return n.id(); })) : null;
    scheduleLabels();
  }

  var shown = null;  /* what the panel shows: { kind: "entity" | "relation", id } */
  var refresh = null;

  /* The panel dims what comes after the current scene, so it is redrawn when the scene changes. */
  function refreshPanel() {
    if (refresh !== null) { clearTimeout(refresh); }
    refresh = setTimeout(function () {
      refresh = null;
      if (shown !== null && !panel.hidden) {
        var top = panel.scrollTop;
        (shown.kind === "entity" ? showEntity : showRelation)(shown.id);
        panel.scrollTop = top;
      }
    }, 120);
  }

  function closePanel() {
    shown = null;
    panel.hidden = true;
    cy.elements().unselect();
    highlight(null);
  }
  document.getElementById("panel-close").addEventListener("click", closePanel);

  function openPanel(children) {
    panelBody.replaceChildren.apply(panelBody, children);
    panel.hidden = false;
    panel.scrollTop = 0;
    cy.resize();
  }

  function entityLink(id) {
    var n = nodesById.get(id);
    return el("a", { "class": "link", href: "#", text: n.name, title: n.type,
      onclick: function (ev) { ev.preventDefault(); focusEntity(id); } });
  }

  function relationLink(e, text) {
    return el("a", { "class": "link", href: "#", text: text,
      onclick: function (ev) { ev.preventDefault(); focusRelation(e.id); } });
  }

  function sceneLinks(scenes) {
    if (!scenes.length) { return el("p", { "class": "none", text: "No scene recorded." }); }
    return el("div", { "class": "scenes" }, scenes.map(function (s) {
      return el("a", { "class": "link" + (s > kgview.scene ? " later" : ""), href: "#", text: String(s),
        title: sceneText(s) + (s > kgview.scene ? " (after the current scene)" : ""),
        onclick: function (ev) { ev.preventDefault(); setScene(s); } });
    }));
  }

  function evidenceList(evidence) {
    if (!evidence.length) { return [el("p", { "class": "none", text: "No evidence recorded." })]; }
    return evidence.map(function (ev) {
      var lines = ev.lines ? (ev.lines[0] === ev.lines[1] ? " · line " + ev.lines[0]
        : " · lines " + ev.lines[0] + "–" + ev.lines[1]) : "";
      return el("blockquote", { "class": "evidence" }, [
        el("q", { text: ev.quote }),
        el("div", { "class": "where", text: sceneText(ev.scene) + lines }),
        el("div", { "class": "producer", text: ev.producer })
      ]);
    });
  }

  function kindLine(colour, text, round) {
    return el("div", { "class": "kind" }, [
      el("span", { "class": round ? "swatch" : "line",
        style: round ? "background:" + colour : "border-top-style:solid;border-top-color:" + colour }),
      el("span", { text: text })
    ]);
  }

  function factRow(e, otherId, label) {
    var later = e.first !== null && e.first > kgview.scene;
    return el("li", { "class": later ? "later" : "", title: later ? "after the current scene" : "" }, [
      el("span", { "class": "scene-ref", text: e.first === null ? "–" : "sc. " + e.first }), " ",
      relationLink(e, label), " ", entityLink(otherId)
    ]);
  }

  function showEntity(id) {
    shown = { kind: "entity", id: id };
    var n = nodesById.get(id);
    var type = entityTypes.get(n.type);
    var facts = (incident.get(id) || []).slice().sort(storyOrder);
    var events = [];
    var relations = [];
    facts.forEach(function (e) {
      var outgoing = e.source === id;
      var other = outgoing ? e.target : e.source;
      var otherType = entityTypes.get(nodesById.get(other).type);
      var arrow = relationTypes.get(e.type).directed ? (outgoing ? e.type + " →" : "← " + e.type) : e.type + " ↔";
      (otherType.event_centric && !type.event_centric ? events : relations).push(factRow(e, other, arrow));
    });
    var first = n.first === null ? "no scene recorded" : "first in " + sceneText(n.first);
    var children = [
      el("h2", { text: n.name }),
      kindLine(type.colour, n.type + " · " + first, true),
      n.description ? el("p", { "class": "desc", text: n.description }) : null,
      n.aliases.length ? el("p", {}, [el("strong", { text: "Also called: " }), n.aliases.join(", ")]) : null,
      el("p", {}, [n.speeches !== null ? n.speeches + " speeches · " : "", n.degree + " relations"]),
      el("h3", { text: "Scenes (" + n.scenes.length + ")" }), sceneLinks(n.scenes),
      el("h3", { text: "Evidence" })
    ].concat(evidenceList(n.evidence));
    if (events.length) {
      children.push(el("h3", { text: "Events (" + events.length + ", story order)" }),
        el("ul", { "class": "events" }, events));
    }
    children.push(el("h3", { text: "Relations (" + relations.length + ", story order)" }),
      relations.length ? el("ul", { "class": "relations" }, relations) : el("p", { "class": "none", text: "None." }));
    openPanel(children.filter(function (c) { return c !== null; }));
  }

  function showRelation(id) {
    shown = { kind: "relation", id: id };
    var e = edgesById.get(id);
    var type = relationTypes.get(e.type);
    var children = [
      el("h2", {}, [entityLink(e.source), " ", el("span", { text: e.type + (type.directed ? " →" : " ↔") }), " ",
        entityLink(e.target)]),
      kindLine(type.colour, e.type + " (" + type.group.replace(/_/g, " ") + ") · " + e.persistence, false),
      e.name ? el("p", {}, [el("strong", { text: "As written: " }), e.name]) : null,
      e.description ? el("p", { "class": "desc", text: e.description }) : null,
      el("p", { "class": "scene-ref", text: type.description }),
      e.flags.length ? el("p", {}, [el("strong", { text: "Flags: " }), e.flags.join(", ")]) : null,
      el("h3", { text: "Scenes (" + e.scenes.length + ")" }), sceneLinks(e.scenes),
      el("h3", { text: "Evidence" })
    ].concat(evidenceList(e.evidence));
    openPanel(children.filter(function (c) { return c !== null; }));
  }

  function reveal(ele) {
    var n = ele.isNode() ? nodesById.get(ele.id()) : null;
    if (n) { enableType("entity", n.type); }
    if (!n) {
      var e = edgesById.get(ele.id());
      enableType("relation", e.type);
      enableType("entity", nodesById.get(e.source).type);
      enableType("entity", nodesById.get(e.target).type);
    }
    var needed = ele.isNode() ? ele.data("first") : Math.max(ele.data("first") || 0,
      ele.source().data("first") || 0, ele.target().data("first") || 0);
    if (needed && needed > kgview.scene) { setScene(needed); }
  }

  function focusEntity(id) {
    var node = cy.getElementById(id);
    reveal(node);
    cy.elements().unselect();
    node.select();
    highlight(node.closedNeighborhood());
    showEntity(id);
    cy.animate({ center: { eles: node }, zoom: Math.max(cy.zoom(), 1) }, { duration: 250 });
  }
  kgview.focusEntity = focusEntity;

  function focusRelation(id) {
    var edge = cy.getElementById(id);
    reveal(edge);
    cy.elements().unselect();
    edge.select();
    highlight(edge.union(edge.connectedNodes()));
    showRelation(id);
  }

  cy.on("tap", "node", function (event) {
    highlight(event.target.closedNeighborhood());
    showEntity(event.target.id());
  });
  cy.on("tap", "edge", function (event) {
    highlight(event.target.union(event.target.connectedNodes()));
    showRelation(event.target.id());
  });
  cy.on("tap", function (event) { if (event.target === cy) { closePanel(); } });

  /* ---------- search over names and aliases ---------- */

  function fold(text) {
    return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }
  var index = data.nodes.map(function (n) {
    return { node: n, forms: [{ text: fold(n.name), via: null }].concat(n.aliases.map(function (a) {
      return { text: fold(a), via: a };
    })) };
  });
  var searchBox = document.getElementById("search");
  var results = document.getElementById("search-results");
  var hits = [];
  var active = 0;

  function search(query) {
    var q = fold(query.trim());
    if (!q) { return []; }
    var found = [];
    index.forEach(function (entry) {
      var best = null;
      entry.forms.forEach(function (form) {
        var at = form.text.indexOf(q);
        if (at < 0) { return; }
        var rank = form.text === q ? 0 : at === 0 ? 1 : 2;
        if (best === null || rank < best.rank || (rank === best.rank && best.via !== null && form.via === null)) {
          best = { rank: rank, via: form.via };
        }
      });
      if (best) { found.push({ node: entry.node, rank: best.rank, via: best.via }); }
    });
    found.sort(function (a, b) {
      return a.rank - b.rank || b.node.size - a.node.size || (a.node.name < b.node.name ? -1 : 1);
    });
    return found.slice(0, 20);
  }

  function showResults() {
    results.replaceChildren();
    if (!searchBox.value.trim()) { results.hidden = true; return; }
    if (!hits.length) {
      results.appendChild(el("li", { "class": "empty", text: "No entity is named or called that." }));
    }
    hits.forEach(function (hit, i) {
      var n = hit.node;
      var item = el("li", { role: "option", "aria-selected": String(i === active), "data-id": n.id }, [
        el("span", { "class": "swatch", style: "background:" + entityTypes.get(n.type).colour }),
        el("span", { text: n.name }),
        hit.via ? el("span", { "class": "via", text: "(" + hit.via + ")" }) : null,
        el("span", { "class": "meta", text: n.type + (n.first === null ? "" : " · sc. " + n.first) })
      ]);
      item.addEventListener("mousedown", function (ev) { ev.preventDefault(); pick(i); });
      results.appendChild(item);
    });
    results.hidden = false;
  }

  function pick(i) {
    var hit = hits[i];
    if (!hit) { return; }
    results.hidden = true;
    focusEntity(hit.node.id);
  }

  searchBox.addEventListener("input", function () {
    hits = search(searchBox.value);
    active = 0;
    showResults();
  });
  searchBox.addEventListener("keydown", function (ev) {
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      if (hits.length) {
        active = (active + (ev.key === "ArrowDown" ? 1 : hits.length - 1)) % hits.length;
        showResults();
      }
    } else if (ev.key === "Enter") {
      ev.preventDefault();
      pick(active);
    } else if (ev.key === "Escape") {
      results.hidden = true;
    }
  });
  searchBox.addEventListener("blur", function () { results.hidden = true; });
  searchBox.addEventListener("focus", function () { if (hits.length) { showResults(); } });

  setScene(lastScene);
}());
