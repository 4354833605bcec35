// nop-sim play: what every game's page shares. It reads GET /api/state and posts the
// legal actions it shows to POST /api/action; it knows nothing the state does not hold.
// A game's page script (app.js: New Order, ordered.js: Ordered Hand) defines
// render(state), which draws the table and, for a replay, calls renderReplay(state), then
// calls start().
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

function say(text) {
  // a refusal or a slip, said on the page (tests wait on data-renders)
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

// a logged match step by step (nop-sim replay): every card shown, no actions
let step = 0;
async function goTo(k) {
  const r = await fetch("/api/state?step=" + k);
  const st = await r.json();
  if (!r.ok) { say(st.error); return; }
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

function start() {
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
    if (st.replay) {                        // a replay starts at its first event, or ?step=N
      return goTo(Number(new URLSearchParams(location.search).get("step")) || 0);
    }
    const paceFirst = pace;
    pace = 0;                               // the match so far at once, then at the pace
    return show(st).then(() => { pace = paceFirst; });
  });
}
