// Hand replayer: steps through the server-built table states of one or more hands.
// Everything from the log is put in the page with textContent, never as HTML.
"use strict";
(function () {
  const SUITS = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function card(code, up) {
    const node = el("span", "card");
    node.dataset.card = code;
    node.dataset.up = up ? "1" : "0";
    if (code === "??") {
      node.classList.add("hidden");
      node.textContent = "\u00a0\u00a0";
      node.title = "face down, not shown";
      return node;
    }
    node.classList.add(up ? "up" : "down");
    if (code[1] === "h" || code[1] === "d") node.classList.add("red");
    node.textContent = code[0].replace("T", "10") + SUITS[code[1]];
    node.title = up ? "face up" : "face down";
    return node;
  }

  // Issue 42: a seat's wild cards (for high or its only hand; for low only) and the cards it
  // has just drawn in an exchange.
  function mark(node, seat, k) {
    if (seat.wild && seat.wild.indexOf(k) >= 0) { node.classList.add("wild"); node.title += ", wild"; }
    if (seat.wild_low && seat.wild_low.indexOf(k) >= 0) { node.classList.add("wild-low"); node.title += ", wild for low"; }
    if (seat.drawn && seat.drawn.indexOf(k) >= 0) { node.classList.add("drawn"); node.title += ", just drawn"; }
    return node;
  }

  function pct(x) { return (100 * x).toFixed(1) + "%"; }

  function Replayer(root, hand, primary) {
    this.root = root; this.hand = hand; this.primary = primary; this.index = 0; this.timer = null;
    this.build();
  }

  Replayer.prototype.build = function () {
    const hand = this.hand, root = this.root, self = this;
    root.dataset.hand = hand.hand_id;
    const head = el("div", "replayer-head");
    const link = el("a", null, hand.hand_id); link.href = "/hand/" + encodeURIComponent(hand.hand_id);
    head.append(link, el("span", "game", " " + hand.game + " · " + hand.game_name));
    if (hand.wild_text) head.append(el("span", "wild-text", " · " + hand.wild_text));
    // Dealer's choice (§28): who chose this hand's game, or that the dealer chose for them.
    if (hand.choice) head.append(el("div", "choice" + (hand.choice.automatic ? " automatic" : ""), hand.choice.text));
    const controls = el("div", "controls");
    const mk = (label, title, fn, cls) => { const b = el("button", cls, label); b.title = title; b.type = "button"; b.addEventListener("click", fn); controls.append(b); return b; };
    mk("|\u25c0", "first", () => self.go(0), "first");
    mk("\u25c0", "back one step", () => self.go(self.index - 1), "back");
    this.playButton = mk("play", "autoplay", () => self.toggle(), "play");
    mk("\u25b6", "forward one step", () => self.go(self.index + 1), "step");
    mk("\u25b6\u25b6|", "last", () => self.go(hand.steps.length - 1), "last");
    this.slider = el("input", "slider"); this.slider.type = "range"; this.slider.min = 0;
    this.slider.max = hand.steps.length - 1; this.slider.value = 0;
    this.slider.addEventListener("input", () => self.go(Number(self.slider.value)));
    this.label = el("span", "step-label");
    controls.append(this.slider, this.label);
    this.table = el("div", "table seats-" + hand.players.length);
    this.center = el("div", "center");
    this.log = el("ol", "log");
    hand.steps.forEach((step, i) => {
      const li = el("li", "step-" + step.kind, step.text);
      li.dataset.a = step.a;
      const fault = hand.faults && step.kind === "decision" ? hand.faults[String(step.a)] : undefined;
      if (fault) { li.classList.add("fault", "fault-" + fault); li.dataset.fault = fault; }
      if (self.primary) li.id = "a" + step.a;
      li.addEventListener("click", () => self.go(i));
      self.log.append(li);
    });
    this.showdown = el("div", "showdown");
    const body = el("div", "replayer-body");
    const left = el("div", "felt"); left.append(this.table);
    body.append(left, this.log);
    root.append(head, controls, body, this.showdown);
    root.tabIndex = 0;
    root.addEventListener("keydown", (e) => {
      if (e.key === "ArrowRight") self.go(self.index + 1);
      if (e.key === "ArrowLeft") self.go(self.index - 1);
    });
  };

  Replayer.prototype.toggle = function () {
    if (this.timer) { clearInterval(this.timer); this.timer = null; this.playButton.textContent = "play"; return; }
    if (this.index >= this.hand.steps.length - 1) this.go(0);
    this.playButton.textContent = "pause";
    this.timer = setInterval(() => {
      if (this.index >= this.hand.steps.length - 1) { this.toggle(); return; }
      this.go(this.index + 1);
    }, 700);
  };

  Replayer.prototype.go = function (i) {
    const steps = this.hand.steps;
    this.index = Math.max(0, Math.min(steps.length - 1, i));
    this.render();
    if (this.primary && history.replaceState) history.replaceState(null, "", "#a" + steps[this.index].a);
  };

  Replayer.prototype.render = function () {
    const hand = this.hand, step = hand.steps[this.index];
    this.root.dataset.step = step.a;
    this.slider.value = this.index;
    this.label.textContent = "a" + step.a + " · " + step.street + " · " + (this.index + 1) + "/" + hand.steps.length;
    this.table.replaceChildren();
    step.seats.forEach((seat, i) => {
      const box = el("div", "seat");
      box.dataset.seat = i;
      if (seat.folded) box.classList.add("folded");
      if (seat.all_in) box.classList.add("all-in");
      if (step.actor === i) box.classList.add("actor");
      const name = el("div", "name", hand.players[i]);
      if (hand.button_seat !== null && hand.seats[i] === hand.button_seat && !hand.is_stud) name.append(el("span", "dealer-button", "D"));
      const cards = el("div", "cards");
      seat.cards.forEach((c, k) => cards.append(mark(card(c[0], c[1]), seat, k)));
      const chips = el("div", "chips");
      chips.append(el("span", "stack", seat.stack), el("span", "bet", seat.bet ? "bet " + seat.bet : ""));
      box.append(name, cards, chips);
      if (step.equity && step.equity[i]) {
        const eq = step.equity[i];
        const parts = [];
        if (eq.scoop !== undefined && hand.game.indexOf("/8") >= 0) parts.push("scoop " + pct(eq.scoop), "high " + pct(eq.high), "low " + pct(eq.low));
        parts.push("equity " + pct(eq.total));
        box.append(el("div", "equity", parts.join(" · ")));
      }
      if (seat.folded) box.append(el("div", "state", "folded"));
      this.table.append(box);
    });
    this.center.replaceChildren();
    const board = el("div", "board");
    step.board.forEach((c) => board.append(card(c, true)));
    if (step.board.length) this.center.append(el("div", "board-label", step.common_card ? "common card" : "board"), board);
    const pots = el("ul", "pots");
    step.pots.forEach((p, k) => {
      const li = el("li", "pot", (k === 0 ? "main pot " : "side pot " + k + " ") + p.amount);
      li.dataset.amount = p.amount;
      li.title = "eligible: " + p.eligible.map((s) => hand.players[s]).join(", ");
      pots.append(li);
    });
    this.center.append(pots, el("div", "action-text", step.text));
    if (step.exchange && step.exchange.gave.length) {
      // Issue 42: which cards went and which came (a spectator sees the up ones; "??" the others).
      const box = el("div", "exchange");
      box.dataset.seat = step.exchange.seat;
      const gave = el("span", "gave"), got = el("span", "got");
      step.exchange.gave.forEach((c) => gave.append(card(c[0], c[1])));
      step.exchange.got.forEach((c) => got.append(card(c[0], c[1])));
      box.append(el("span", "who", hand.players[step.exchange.seat] + ": "), gave, el("span", "arrow", " \u2192 "), got);
      this.center.append(box);
    }
    this.table.append(this.center);
    Array.from(this.log.children).forEach((li, k) => li.classList.toggle("current", k === this.index));
    const current = this.log.children[this.index];
    if (current && current.scrollIntoView && this.log.scrollHeight > this.log.clientHeight) {
      this.log.scrollTop = current.offsetTop - this.log.offsetTop - 40;
    }
    this.renderShowdown(step);
  };

  Replayer.prototype.renderShowdown = function (step) {
    const hand = this.hand;
    this.showdown.replaceChildren();
    if (step.kind !== "end") return;
    if (hand.showdown.length) {
      const list = el("ul", "shown");
      hand.showdown.forEach((s) => {
        const li = el("li", "shown-hand");
        li.dataset.seat = s.seat;
        li.append(el("strong", null, hand.players[s.seat] + ": "));
        s.cards.forEach((c) => {
          const node = card(c, true);
          if (s.wild && s.wild.indexOf(c) >= 0) { node.classList.add("wild"); node.title = "wild"; }
          if (s.wild_low && s.wild_low.indexOf(c) >= 0) { node.classList.add("wild-low"); node.title = "wild for low"; }
          li.append(node);
        });
        if (s.high) li.append(el("span", "hand-name high", " " + s.high));
        if (s.low) li.append(el("span", "hand-name low", " low: " + s.low));
        list.append(li);
      });
      this.showdown.append(el("h3", null, "Showdown"), list);
    }
    const awards = el("ul", "awards");
    hand.awards.forEach((a) => {
      const li = el("li", "award");
      li.dataset.share = a.share;
      li.dataset.pot = a.pot;
      let half = a.share === "whole" ? "" : " (" + a.share + " half" + (a.odd_chip_half ? ", with the odd chip" : "") + ")";
      li.append(el("span", null, (a.pot === 0 ? "main pot" : "side pot " + a.pot) + half + " " + a.amount + ": "));
      a.winners.forEach((w) => {
        const who = el("span", "winner", hand.players[w.seat] + " " + w.chips + (w.odd_chip ? " (odd chip)" : "") + " ");
        who.dataset.seat = w.seat; who.dataset.chips = w.chips;
        if (w.odd_chip) who.classList.add("odd-chip");
        li.append(who);
      });
      awards.append(li);
    });
    const net = el("p", "net", "net: " + hand.players.map((p, i) => p + " " + (hand.net_chips[i] > 0 ? "+" : "") + hand.net_chips[i]).join(", "));
    this.showdown.append(el("h3", null, "Pots"), awards, net);
  };

  function start() {
    const source = document.getElementById("hands");
    if (!source) return;
    const hands = JSON.parse(source.textContent);
    const players = [];
    document.querySelectorAll(".replayer").forEach((root) => {
      const k = Number(root.dataset.index);
      const r = new Replayer(root, hands[k], k === 0);
      players.push(r);
    });
    const target = (location.hash.match(/^#a(\d+)$/) || [])[1];
    players.forEach((r) => {
      let i = 0;
      if (target !== undefined) {
        const found = r.hand.steps.findIndex((s) => String(s.a) === target);
        if (found >= 0) i = found;
      }
      r.index = i; r.render();
    });
    window.arenaReplayers = players;
    document.body.dataset.ready = "1";
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
