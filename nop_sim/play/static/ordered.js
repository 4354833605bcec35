// nop-sim play, Ordered Hand: the page of one seat. It reads GET /api/state and posts the
// legal actions it shows to POST /api/action; it knows nothing the state does not hold.
"use strict";

const $ = (id) => document.getElementById(id);
let shownLines = 0;      // log lines on screen
let shownEvents = 0;     // events of the game the table on screen has seen
let busy = false;        // the agents' play is being shown: no action meanwhile
let pace = Number(localStorage.getItem("nop-pace") ?? 400);
let renders = 0;         // states rendered (data-renders on <body>: tests wait on it)

function cardSpan(text) {
  const s = document.createElement("span");
  s.className = "card" + (/[dh]$/.test(text) ? " red" : "");
  s.textContent = text;
  return s;
}

function cards(el, list) {
  el.replaceChildren(...(list || []).map((c) => cardSpan(c)));
}

function button(label, onClick, name) {
  const b = document.createElement("button");
  b.textContent = label;
  b.dataset.action = name || label;
  b.addEventListener("click", onClick);
  return b;
}

function say(text) {
  $("error").textContent = text;
  document.body.dataset.renders = ++renders;
}

async function post(action) {
  if (busy) return;
  $("error").textContent = "";
  const r = await fetch("/api/action", {method: "POST", headers: {"Content-Type": "application/json"},
                                        body: JSON.stringify(action)});
  const data = await r.json();
  if (!r.ok) { say(data.error); return; }
  await show(data);
}

function setLog(lines) {
  if (lines.length < shownLines) { $("log").textContent = ""; shownLines = 0; }
  for (; shownLines < lines.length; shownLines++) $("log").textContent += lines[shownLines] + "\n";
  $("log").scrollTop = $("log").scrollHeight;
}

async function show(state) {
  // the agents' play since the last state, event by event at the pace, then the table now
  busy = true;
  if (pace > 0 && !state.replay && shownEvents > 0 && state.events > shownEvents) {
    for (let k = shownEvents; k < state.events - 1; k++) {
      const st = await (await fetch("/api/state?step=" + k)).json();
      if (st.log.length === shownLines) continue;
      setLog(st.log);
      render(st);
      await new Promise((ok) => setTimeout(ok, pace));
    }
  }
  shownEvents = state.events || 0;
  setLog(state.log || []);
  busy = false;
  render(state);
  document.body.dataset.events = shownEvents;
}

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
    $("end").textContent = "Game over. Winner" + (won.length > 1 ? "s" : "") + ": " + won.join(", ") +
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

// a logged game step by step (nop-sim replay): every card shown, no actions
let step = 0;
async function goTo(k) {
  const r = await fetch("/api/state?step=" + k);
  const st = await r.json();
  if (!r.ok) { say(st.error); return; }
  await show(st);
}

function renderReplay(st) {
  step = st.step;
  $("actions").hidden = true;
  $("me").hidden = true;                    // every seat's cards are in its box
  $("replay").hidden = false;
  $("slider").max = st.n_steps - 1;
  $("slider").value = st.step;
  $("step-text").textContent = `step ${st.step + 1} of ${st.n_steps}`;
  $("event").textContent = st.event.event + (st.event.seat >= 0 ? " - " + st.seats[st.event.seat].name : "");
  $("back").disabled = st.step === 0;
  $("forward").disabled = st.step === st.n_steps - 1;
}

$("back").addEventListener("click", () => goTo(step - 1));
$("forward").addEventListener("click", () => goTo(step + 1));
$("slider").addEventListener("change", () => {
  if (Number($("slider").value) !== step) goTo(Number($("slider").value));
});

$("pace").value = pace;
$("pace-ms").textContent = pace;
$("pace").addEventListener("input", () => {
  pace = Number($("pace").value);
  $("pace-ms").textContent = pace;
  localStorage.setItem("nop-pace", pace);
});

let paceFirst = 0;
fetch("/api/state").then((r) => r.json()).then((st) => {
  if (localStorage.getItem("nop-pace") === null && st.pace_ms !== undefined) {
    pace = st.pace_ms; $("pace").value = pace; $("pace-ms").textContent = pace;
  }
  if (st.replay) {                          // a replay starts at its first event, or ?step=N
    return goTo(Number(new URLSearchParams(location.search).get("step")) || 0);
  }
  paceFirst = pace; pace = 0;              // the game so far at once, then at the pace
  return show(st).then(() => { pace = paceFirst; });
});
