// nop-sim play: the page of one seat. It reads GET /api/state and posts the legal
// actions it shows to POST /api/action; it knows nothing the state does not hold.
"use strict";

const $ = (id) => document.getElementById(id);
let shownLines = 0;      // log lines on screen
let shownEvents = 0;     // events of the match the table on screen has seen
let busy = false;        // the agents' play is being shown: no action meanwhile
let pace = Number(localStorage.getItem("nop-pace") ?? 400);
let renders = 0;         // states rendered (data-renders on <body>: tests wait on it)

function cardSpan(text, extra) {
  const s = document.createElement("span");
  s.className = "card" + (/[dh]$/.test(text) ? " red" : "") + (extra ? " " + extra : "");
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

async function post(action) {
  if (busy) return;
  $("error").textContent = "";
  const r = await fetch("/api/action", {method: "POST", headers: {"Content-Type": "application/json"},
                                        body: JSON.stringify(action)});
  const data = await r.json();
  if (!r.ok) {
    $("error").textContent = data.error;
    document.body.dataset.renders = ++renders;
    return;
  }
  await show(data);
}

function setLog(lines) {
  // append what is new (the log only grows within a match; a replay's step back resets it)
  if (lines.length < shownLines) { $("log").textContent = ""; shownLines = 0; }
  for (; shownLines < lines.length; shownLines++) $("log").textContent += lines[shownLines] + "\n";
  $("log").scrollTop = $("log").scrollHeight;
}

async function show(state) {
  // the agents' play since the last state, event by event at the pace (the table as the
  // seat saw it after each: GET /api/state?step=N), then the table now
  busy = true;
  if (pace > 0 && !state.replay && shownEvents > 0 && state.events > shownEvents) {
    for (let k = shownEvents; k < state.events - 1; k++) {
      const st = await (await fetch("/api/state?step=" + k)).json();
      if (st.log.length === shownLines) continue;  // nothing said: no pause
      setLog(st.log);
      render(st);
      await new Promise((ok) => setTimeout(ok, pace));
    }
  }
  shownEvents = state.events || 0;
  setLog(state.log || []);
  busy = false;
  render(state);
  document.body.dataset.events = shownEvents;  // the table now is on screen (tests wait on it)
}

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
          $("error").textContent = `${name} ${n.value} is out of bounds: from ${e.min} to ${e.max}`;
          document.body.dataset.renders = ++renders;
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

// a logged match step by step (nop-sim replay): every card shown, no actions
let step = 0;
async function goTo(k) {
  const r = await fetch("/api/state?step=" + k);
  const st = await r.json();
  if (!r.ok) { $("error").textContent = st.error; return; }
  const keep = pace;
  pace = 0;
  await show(st);
  pace = keep;
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
  // the step shown already is no step to go to
  if (Number($("slider").value) !== step) goTo(Number($("slider").value));
});

$("pace").value = pace;
$("pace-ms").textContent = pace;
$("pace").addEventListener("input", () => {
  pace = Number($("pace").value);
  $("pace-ms").textContent = pace;
  localStorage.setItem("nop-pace", pace);
});

fetch("/api/state").then((r) => r.json()).then((st) => {
  if (localStorage.getItem("nop-pace") === null && st.pace_ms !== undefined) {
    pace = st.pace_ms; $("pace").value = pace; $("pace-ms").textContent = pace;
  }
  if (st.replay) {                          // a replay starts at its first event, or ?step=N
    return goTo(Number(new URLSearchParams(location.search).get("step")) || 0);
  }
  pace_first = pace; pace = 0;              // the match so far at once, then at the pace
  return show(st).then(() => { pace = pace_first; });
});
let pace_first = 0;
