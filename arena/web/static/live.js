// Live tables: public table states from the server-sent event stream, drawn with textContent.
"use strict";
(function () {
  const SUITS = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };
  const tables = document.getElementById("tables");
  const status = document.getElementById("live-status");
  const boxes = new Map();
  const deadlines = new Map();

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function card(code) {
    const node = el("span", "card up");
    node.dataset.card = code;
    if (code[1] === "h" || code[1] === "d") node.classList.add("red");
    node.textContent = code[0].replace("T", "10") + SUITS[code[1]];
    return node;
  }
  function back() { const n = el("span", "card hidden", "\u00a0\u00a0"); n.dataset.card = "??"; return n; }

  function draw(t) {
    let box = boxes.get(t.match_id);
    if (!box) {
      box = el("section", "live-table");
      box.dataset.match = t.match_id;
      boxes.set(t.match_id, box);
      tables.append(box);
    }
    box.replaceChildren();
    box.dataset.hand = t.hand_id || "";
    box.dataset.status = t.status || "";
    const head = el("h2");
    const link = el("a", null, t.match_id); link.href = "/match/" + encodeURIComponent(t.match_id);
    head.append(link, el("span", "game", " " + (t.game || "") + (t.game_name ? " · " + t.game_name : "") + (t.hand_number ? " · hand " + t.hand_number : "") + (t.street ? " · " + t.street : "") + (t.status === "ended" ? " · match over" : "")));
    if (t.wild_text) head.append(el("span", "wild-text", " · " + t.wild_text));
    box.append(head);
    // Dealer's choice (§28): who chose this orbit's game, or that the dealer chose for it; and
    // between orbits, who is choosing the next one.
    if (t.choice) box.append(el("p", "choice" + (t.choice.automatic ? " automatic" : ""), t.choice.text));
    if (t.choosing) box.append(el("p", "choosing", "dealer's choice: " + t.choosing.name + " is choosing the next game (from hand " + t.choosing.first_hand + ")"));
    // Issue 42: wild cards marked (the ranks wild for everyone; a shown hand's own).
    const wildRanks = t.wild || [];
    const wildCard = (c, own) => {
      const node = card(c);
      if (c !== "??" && ((own && own.indexOf(c) >= 0) || wildRanks.indexOf(c[0]) >= 0)) { node.classList.add("wild"); node.title = "wild"; }
      return node;
    };
    const seats = el("div", "live-seats");
    (t.seats || []).forEach((s) => {
      const row = el("div", "seat");
      row.dataset.seat = s.seat;
      if (s.status === "folded") row.classList.add("folded");
      if (t.actor === s.seat) row.classList.add("actor");
      const name = el("span", "name", s.name);
      if (t.button_seat === s.seat) name.append(el("span", "dealer-button", "D"));
      const cards = el("span", "cards");
      const shown = (t.shown || []).find((h) => h.seat === s.seat);
      if (shown) shown.cards.forEach((c) => cards.append(wildCard(c, shown.wild)));
      else { for (let k = 0; k < s.down; k++) cards.append(back()); s.up.forEach((c) => cards.append(wildCard(c))); }
      row.append(name, cards, el("span", "stack", s.stack), el("span", "bet", s.bet ? "bet " + s.bet : ""));
      if (s.exchange) {
        // Issue 42: the seat's exchange this round: how many cards; up cards by name (English Stud).
        const ex = el("span", "exchange");
        ex.dataset.count = s.exchange.count;
        if (!s.exchange.count) ex.textContent = "stood pat";
        else if (s.exchange.gave.length) {
          const gave = el("span", "gave"), got = el("span", "got");
          s.exchange.gave.forEach((c) => gave.append(card(c)));
          s.exchange.got.forEach((c) => got.append(card(c)));
          ex.append(gave, el("span", "arrow", " \u2192 "), got);
        } else ex.textContent = "drew " + s.exchange.count;
        row.append(ex);
      }
      if (shown && (shown.high || shown.low)) row.append(el("span", "hand-name", [shown.high, shown.low && (shown.low.indexOf("low") >= 0 ? shown.low : "low " + shown.low)].filter(Boolean).join("; ")));
      if (t.actor === s.seat) row.append(el("span", "clock"));
      seats.append(row);
    });
    box.append(seats);
    const board = el("div", "board");
    (t.board || []).forEach((c) => board.append(card(c)));
    box.append(board, el("div", "pot", "pot " + (t.pot || 0)));
    const log = el("ul", "recent");
    (t.actions || []).forEach((a) => log.append(el("li", null, a)));
    box.append(log);
    if (t.deadline_unix_seconds) deadlines.set(t.match_id, t.deadline_unix_seconds); else deadlines.delete(t.match_id);
    tick();
  }

  function tick() {
    const now = Date.now() / 1000;
    deadlines.forEach((deadline, id) => {
      const box = boxes.get(id);
      const clock = box && box.querySelector(".clock");
      if (clock) clock.textContent = Math.max(0, deadline - now).toFixed(1) + " s";
    });
  }
  setInterval(tick, 200);

  const source = new EventSource("/live/events");
  source.addEventListener("open", () => { status.textContent = "connected"; });
  source.addEventListener("error", () => { status.textContent = "reconnecting…"; });
  source.addEventListener("ended", () => { source.close(); status.textContent = "the league has ended"; });
  source.addEventListener("table", (e) => { draw(JSON.parse(e.data)); document.body.dataset.tables = boxes.size; });
})();
