// nop-sim play, Ordered Hand: the table of one seat (the shared page code is table.js).
"use strict";

function render(st) {
  document.body.dataset.renders = ++renders;
  $("whoami").textContent = st.replay ? "- replay, every card shown" : "- " + st.seats[st.seat].name;
  $("phase").textContent = st.phase;
  $("stock").textContent = st.stock;
  $("middle").textContent = st.middle || "empty";
  $("column").replaceChildren(...st.column.map((name) => {
    const li = document.createElement("li");
    li.textContent = name;
    li.dataset.category = name;
    if (name === st.middle) li.className = "best";
    return li;
  }));
  $("seats").replaceChildren(...st.seats.map((s, i) => {
    const d = document.createElement("div");
    d.className = "seat" + (i === st.seat ? " me" : "");
    d.dataset.seat = i;
    d.innerHTML = `<div class="name"></div><div><span class="count"></span> cards</div>
      <div class="cards shown"></div>`;
    d.querySelector(".name").textContent = s.name;
    d.querySelector(".count").textContent = s.count;
    cards(d.querySelector(".shown"), s.cards);
    return d;
  }));
  cards($("board"), st.board);
  $("hand").replaceChildren(...st.hand.map((c, i) => {
    const p = document.createElement("span");
    p.className = "pos";
    p.append(cardSpan(c));
    const n = document.createElement("small");
    n.textContent = i + 1;
    p.append(n);
    return p;
  }));
  $("drawn-line").hidden = !st.drawn;
  cards($("drawn"), st.drawn ? [st.drawn] : []);
  $("decision").textContent = st.decision ? "(" + st.decision + ")" : "";
  if (st.replay) {
    renderReplay(st);
    return;
  }
  renderActions(st);
  if (st.done) {
    $("end").hidden = false;
    const won = (st.winners || []).map((q) => st.seats[q].name);
    const order = st.seats.map((s, q) => q).sort((a, b) => st.places[a] - st.places[b]);
    $("end").textContent = "Game over. Winner" + (won.length > 1 ? "s" : "") + ": " + won.join(", ") +
      ". Places: " + order.map((q) => st.places[q] + ". " + st.seats[q].name).join(", ") +
      (st.saved ? ". Saved: " + st.saved + " (nop-sim hands " + st.saved + " --match 0)" : "");
  }
}

function group(name) {
  const g = document.createElement("div");
  g.className = "group";
  g.dataset.group = name;
  return g;
}

function moveSelect(entries, name) {
  // one select over the moves of a Call or a Raise (positions shown from 1)
  const sel = document.createElement("select");
  sel.name = name;
  entries.forEach((x, i) => {
    const o = document.createElement("option");
    o.value = i;
    o.textContent = `move position ${x.from + 1} to ${x.to + 1}`;
    sel.appendChild(o);
  });
  return sel;
}

function renderActions(st) {
  const box = $("buttons");
  box.replaceChildren();
  const legal = st.legal || [];
  const plays = legal.filter((e) => e.action === "play");
  if (plays.length) {
    const g = group("play");
    for (const x of plays) {
      const where = x.length > 1 ? `positions ${x.start + 1}-${x.start + x.length}` : `position ${x.start + 1}`;
      g.append(button(`play ${x.category} [${x.cards.join(" ")}] (${where})`, () => post(x), "play"));
    }
    box.appendChild(g);
  }
  const insert = legal.find((e) => e.action === "insert");
  if (insert) {                              // one button per gap of the sequence
    const g = group("insert");
    for (let p = insert.min; p <= insert.max; p++) {
      const label = p === insert.max ? "at the end" : `before position ${p + 1}`;
      g.append(button(label, () => post({...insert, amount: p}), "insert"));
    }
    box.appendChild(g);
  }
  for (const name of ["check", "bet", "fold"]) {
    const x = legal.find((e) => e.action === name && !("from" in e));
    if (x) { const g = group(name); g.append(button(name, () => post(x), name)); box.appendChild(g); }
  }
  const plainCall = legal.find((e) => e.action === "call" && !("from" in e));
  if (plainCall) {
    const g = group("call");
    g.append(button("call (move no card)", () => post(plainCall), "call"));
    const moves = legal.filter((e) => e.action === "call" && "from" in e);
    if (moves.length) {
      const sel = moveSelect(moves, "call-move");
      g.append(button("call and", () => post(moves[Number(sel.value)]), "call-move"), sel);
    }
    box.appendChild(g);
  }
  const raises = legal.filter((e) => e.action === "raise");
  if (raises.length) {
    const g = group("raise");
    const sel = moveSelect(raises, "raise-move");
    g.append(button("raise:", () => post(raises[Number(sel.value)]), "raise"), sel);
    box.appendChild(g);
  }
}

start();
