// nop-sim play, New Order: the table of one seat (the shared page code is table.js).
"use strict";

function render(st) {
  document.body.dataset.renders = ++renders;
  $("whoami").textContent = st.replay ? "- replay, every card shown" : "- " + st.seats[st.seat].name;
  $("hand-number").textContent = st.hand_number;
  $("phase").textContent = st.phase;
  $("betting").textContent = st.betting + (st.frozen ? ", frozen market" : "");
  $("dart").textContent = st.dart;
  $("ledger-fee").textContent = st.ledger_fee;
  $("disruptors").textContent = st.disruptors.length ? st.disruptors.join(", ") : "none";
  $("inverted").textContent = st.inverted ? "(inverted: read bottom-up)" : "";
  const best = st.best ? st.best.category : null;
  $("column").replaceChildren(...st.column.map((name) => {
    const li = document.createElement("li");
    li.textContent = name;
    li.dataset.category = name;
    if (name === best) li.className = "best";
    const on = st.seats.filter((s) => s.token === name).map((s) => "S" + s.seat);
    if (on.length) {
      const t = document.createElement("span");
      t.className = "tokens";
      t.textContent = "token " + on.join(" ");
      li.appendChild(t);
    }
    return li;
  }));
  $("seats").replaceChildren(...st.seats.map((s) => {
    const d = document.createElement("div");
    d.className = "seat" + (s.seat === st.seat ? " me" : "") + (s.alive ? "" : " out") +
                  (s.folded ? " folded" : "");
    d.dataset.seat = s.seat;
    d.innerHTML = `<div class="name"></div><div>chips <span class="chips"></span></div>
      <div class="detail"></div><div class="cards shown"></div>`;
    d.querySelector(".name").textContent = s.name + (s.button ? " (button)" : "");
    d.querySelector(".chips").textContent = s.chips;
    const bits = [];
    if (s.bet) bits.push("in pot " + s.bet);
    if (s.all_in) bits.push("all-in");
    if (s.token) bits.push("token on " + s.token);
    if (s.personal.length) bits.push(s.personal.join(", "));
    d.querySelector(".detail").textContent = bits.join("; ");
    cards(d.querySelector(".shown"), s.cards);
    return d;
  }));
  $("pot").textContent = st.pot;
  $("pots").textContent = st.pots.length > 1 ?
    "(" + st.pots.map((p, i) => (i ? "side " : "main ") + p.amount).join(", ") + ")" : "";
  cards($("board"), st.board);
  cards($("hand"), st.hand);
  $("best").textContent = st.best ? st.best.text : "";
  $("decision").textContent = st.decision ? "(" + st.decision.replace("_", " ") + ")" : "";
  if (st.replay) {
    renderReplay(st);
    return;
  }
  renderActions(st);
  if (st.done) {
    $("end").hidden = false;
    const order = st.seats.map((s) => s).sort((a, b) => st.places[a.seat] - st.places[b.seat]);
    $("end").textContent = "Match over. Places: " +
      order.map((s) => st.places[s.seat] + ". " + s.name).join(", ") +
      (st.saved ? ". Saved: " + st.saved + " (nop-sim hands " + st.saved + " --match 0)" : "");
  }
}

function renderActions(st) {
  const box = $("buttons");
  box.replaceChildren();
  const legal = st.legal || [];
  const byAction = {};
  for (const e of legal) (byAction[e.action] = byAction[e.action] || []).push(e);
  for (const [name, entries] of Object.entries(byAction)) {
    const g = document.createElement("div");
    g.className = "group";
    g.dataset.group = name;
    const e = entries[0];
    if ("min" in e) {                       // an amount within bounds
      const n = document.createElement("input");
      n.type = "number"; n.min = e.min; n.max = e.max; n.value = e.min; n.name = name;
      const send = () => {
        // said here as the server would say it (it refuses the same with status 400), so
        // that a slip of the keyboard costs no round trip and no error in the console
        const amount = Number(n.value);
        if (!Number.isInteger(amount) || amount < e.min || amount > e.max) {
          say(`${name} ${n.value} is out of bounds: from ${e.min} to ${e.max}`);
          return;
        }
        post({...e, amount});
      };
      g.append(button(name, send, name), n,
               document.createTextNode(` (${e.min} to ${e.max})`));
    } else if (name === "discard") {        // pick the cards to throw away
      const chosen = new Set();
      const hand = document.createElement("span");
      st.hand.forEach((c) => {
        const s = cardSpan(c, "pick");
        s.addEventListener("click", () => {
          if (chosen.has(c)) chosen.delete(c); else if (chosen.size < e.max_cards) chosen.add(c);
          s.classList.toggle("chosen", chosen.has(c));
        });
        hand.appendChild(s);
      });
      g.append(hand, button(`discard selected (up to ${e.max_cards})`,
                            () => post({action: "discard", cards: [...chosen]}), "discard"));
    } else if (entries.length > 1 && "category" in e) {  // hedge, promote, tip, ...
      const sel = document.createElement("select");
      sel.name = name;
      entries.forEach((x, i) => {
        const o = document.createElement("option");
        o.value = i;
        o.textContent = x.category + (x.fee !== undefined ? ` (fee ${x.fee})` : "") +
                        (x.cost !== undefined ? ` (cost ${x.cost})` : "");
        sel.appendChild(o);
      });
      g.append(button(name, () => post(entries[Number(sel.value)]), name), sel);
    } else {
      for (const x of entries) {
        const label = [x.action, x.category, x.card, x.amount, x.categories && x.categories.join(" <-> ")]
          .filter((v) => v !== undefined).join(" ");
        g.append(button(label, () => post(x), name));
      }
    }
    box.appendChild(g);
  }
}

start();
