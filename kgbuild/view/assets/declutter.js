/* kgbuild story view: which names to show and where, and which relations to draw, as pure functions
 * of plain data (no DOM, no Cytoscape): view.js decides when, this decides what.
 *
 * window.kgviewDeclutter.placeLabels: labels in priority order, placed greedily on the screen, none
 *   within GAP of another label or of a labelled node, all inside the view. A label beside its node
 *   comes first (on the side it had before, when it had one, so that names stay put as the view
 *   changes); a label that must be shown and finds no room there goes farther out, joined to its
 *   node by a leader line.
 * window.kgviewDeclutter.strongestRelations: the relations drawn by default. One relation stands for
 *   each pair of entities; the pairs between main entities (and a main entity's pairs of two or more
 *   relations) are strong, and every other entity keeps its strongest pair as an anchor.
 */
(function () {
  "use strict";

  /* Space kept between two labels, and between a label and a labelled node, in screen pixels (two
     names closer than this on one line read as one). */
  var GAP = 5;
  /* Space between a node's rim and its own label, in screen pixels. */
  var OFFSET = 2;
  /* Names keep off a named node's core: the square of this half-side at most (screen pixels)
     around its centre, within its disk. Big nodes, zoomed in, may carry other names on their rim. */
  var CORE = 12;
  /* How far beyond its node's rim a label that must be shown may go (screen pixels), and in how
     many directions each distance is tried. */
  var REACH = [14, 26, 42, 62, 88, 120, 160, 210];
  var DIRECTIONS = 16;
  /* Side of the grid cells that index the placed boxes, in screen pixels. */
  var CELL = 48;

  /* A box on the screen: a label's, or a node's core (`disk` true). */
  function box(x1, y1, w, h, owner, disk) {
    return { x1: x1, y1: y1, x2: x1 + w, y2: y1 + h, owner: owner, disk: Boolean(disk) };
  }

  function near(a, b) {
    return a.x1 < b.x2 + GAP && b.x1 < a.x2 + GAP && a.y1 < b.y2 + GAP && b.y1 < a.y2 + GAP;
  }

  /* The boxes placed so far, by the grid cells they reach (GAP included). */
  function BoxGrid() { this.cells = new Map(); }

  BoxGrid.prototype.keys = function (b) {
    var keys = [];
    for (var i = Math.floor((b.x1 - GAP) / CELL); i <= Math.floor((b.x2 + GAP) / CELL); i += 1) {
      for (var j = Math.floor((b.y1 - GAP) / CELL); j <= Math.floor((b.y2 + GAP) / CELL); j += 1) {
        keys.push(i + "," + j);
      }
    }
    return keys;
  };

  BoxGrid.prototype.add = function (b) {
    var cells = this.cells;
    this.keys(b).forEach(function (key) {
      if (!cells.has(key)) { cells.set(key, []); }
      cells.get(key).push(b);
    });
  };

  /* True when `b` keeps GAP from every box placed (or only from the labels), except its own node's. */
  BoxGrid.prototype.free = function (b, labelsOnly) {
    var cells = this.cells;
    return this.keys(b).every(function (key) {
      return (cells.get(key) || []).every(function (other) {
        return other.owner === b.owner || (labelsOnly && other.disk) || !near(b, other);
      });
    });
  };

  /* Boxes for a label right beside its node: below, above, right, left, the corners, then on the
     node itself when the node is wider than the label (a big node, zoomed in). */
  function beside(n) {
    var r = n.r, d = r * 0.72, w = n.w, h = n.h;
    var spots = [
      [n.x - w / 2, n.y + r + OFFSET], [n.x - w / 2, n.y - r - OFFSET - h],
      [n.x + r + OFFSET, n.y - h / 2], [n.x - r - OFFSET - w, n.y - h / 2],
      [n.x + d, n.y + d], [n.x - d - w, n.y + d], [n.x + d, n.y - d - h], [n.x - d - w, n.y - d - h]
    ];
    if (2 * r >= w + 2 * OFFSET) { spots.push([n.x - w / 2, n.y - h / 2]); }
    return spots.map(function (p) { return box(p[0], p[1], w, h, n.id); });
  }

  /* Boxes farther out, nearest first: the side of the box facing the node touches a point `reach`
     beyond the node's rim, in each of DIRECTIONS directions (straight below first). */
  function farOut(n) {
    var out = [];
    REACH.forEach(function (reach) {
      for (var k = 0; k < DIRECTIONS; k += 1) {
        var angle = Math.PI / 2 + 2 * Math.PI * k / DIRECTIONS;
        var dx = Math.cos(angle), dy = Math.sin(angle);
        var px = n.x + (n.r + reach) * dx, py = n.y + (n.r + reach) * dy;
        out.push(box(px - n.w / 2 + dx * n.w / 2, py - n.h / 2 + dy * n.h / 2, n.w, n.h, n.id));
      }
    });
    return out;
  }

  /* The line from the node's rim to the nearest point of its label. */
  function leader(n, b) {
    var tx = Math.max(b.x1, Math.min(n.x, b.x2)), ty = Math.max(b.y1, Math.min(n.y, b.y2));
    var dx = tx - n.x, dy = ty - n.y, length = Math.max(Math.sqrt(dx * dx + dy * dy), 1e-9);
    return [n.x + dx / length * n.r, n.y + dy / length * n.r, tx, ty];
  }

  /**
   * Place labels, most important first.
   *
   * items: in priority order, each { id, x, y, r, w, h, must, side }: the node's centre and radius
   *   and the label's width and height, in screen pixels; `must`: shown even if it has to go far
   *   out; `side` (optional): the side beside the node to try first (as returned before).
   * view: { width, height, budget }: the screen, and how many labels not marked `must` to show at most.
   * Returns the labels placed: { id, x1, y1, x2, y2, side, leader }: `side` is null for a label
   * placed farther out, and then `leader` is the line [x1, y1, x2, y2] to it (else null).
   */
  function placeLabels(items, view) {
    var grid = new BoxGrid();
    var inside = function (b) { return b.x1 >= 0 && b.y1 >= 0 && b.x2 <= view.width && b.y2 <= view.height; };
    var fits = function (b) { return inside(b) && grid.free(b); };
    var disk = function (n) {
      var half = Math.min(n.r, CORE);
      return box(n.x - half, n.y - half, 2 * half, 2 * half, n.id, true);
    };
    items.forEach(function (n) { if (n.must) { grid.add(disk(n)); } });
    var placed = [];
    var optional = 0;
    items.forEach(function (n) {
      /* no name for a node under another name (it would name what one cannot see) */
      if (!n.must && (optional >= view.budget || !grid.free(disk(n), true))) { return; }
      var sides = beside(n);
      var order = sides.map(function (_, i) { return i; });
      if (typeof n.side === "number" && n.side < sides.length) { order.unshift(n.side); }
      var side = order.find(function (i) { return fits(sides[i]); });
      var spot = side === undefined ? null : sides[side];
      var line = null;
      if (!spot && n.must) {
        spot = farOut(n).find(fits);
        line = spot ? leader(n, spot) : null;
      }
      if (!spot) { return; }
      grid.add(spot);
      if (!n.must) {
        grid.add(disk(n));
        optional += 1;
      }
      placed.push({ id: n.id, x1: spot.x1, y1: spot.y1, x2: spot.x2, y2: spot.y2, leader: line,
                    side: line === null ? side : null });
    });
    return placed;
  }

  /**
   * The relations drawn by default.
   *
   * edges: the relations shown now, each { id, source, target, scenes } (scenes: how many).
   * isMain(id), rank(id): whether an entity is a main one, and its place in the label order.
   * Returns { strong: Map relation id -> relations of its pair, anchor: Set of relation ids }. The
   * relation in most scenes (then the smallest id) stands for its pair. A pair of two main
   * entities, or of a main entity and another with two or more relations between them, is strong;
   * each entity that no strong pair joins keeps its strongest pair (most relations, then the
   * partner first in the label order) as an anchor.
   */
  function strongestRelations(edges, isMain, rank) {
    var pairs = new Map();
    edges.forEach(function (e) {
      var a = e.source < e.target ? e.source : e.target;
      var b = a === e.source ? e.target : e.source;
      var key = a + "\n" + b;
      var pair = pairs.get(key);
      if (!pair) {
        pair = { a: a, b: b, rep: e, weight: 0 };
        pairs.set(key, pair);
      }
      pair.weight += 1;
      if (e.scenes > pair.rep.scenes || (e.scenes === pair.rep.scenes && e.id < pair.rep.id)) { pair.rep = e; }
    });
    var strong = new Map();
    var joined = new Set();
    var best = new Map();
    pairs.forEach(function (p) {
      var mainA = isMain(p.a), mainB = isMain(p.b);
      if ((mainA && mainB) || ((mainA || mainB) && p.weight >= 2)) {
        strong.set(p.rep.id, p.weight);
        joined.add(p.a);
        joined.add(p.b);
      }
      [[p.a, p.b], [p.b, p.a]].forEach(function (ends) {
        var current = best.get(ends[0]);
        if (!current || p.weight > current.pair.weight ||
            (p.weight === current.pair.weight && rank(ends[1]) < rank(current.other))) {
          best.set(ends[0], { pair: p, other: ends[1] });
        }
      });
    });
    var anchor = new Set();
    best.forEach(function (choice, node) {
      if (!joined.has(node) && !strong.has(choice.pair.rep.id)) { anchor.add(choice.pair.rep.id); }
    });
    return { strong: strong, anchor: anchor };
  }

  window.kgviewDeclutter = { placeLabels: placeLabels, strongestRelations: strongestRelations };
}());
