// The permission inbox's only script. It follows /api/events, reloads the
// server-rendered fragments when something changed, and sends answers as
// JSON to the same API that scripts use. It never builds HTML from data:
// the fragments come escaped from the server's templates.
"use strict";
(function () {
  const status = document.getElementById("status");
  const notifyButton = document.getElementById("notify");
  let knownIDs = new Set(Array.from(document.querySelectorAll("#requests .request"), (a) => a.dataset.id));

  function say(msg) { status.textContent = msg; }

  async function post(url, body) {
    const r = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    let data = {};
    try { data = await r.json(); } catch (e) { /* not JSON */ }
    if (!r.ok) { throw new Error(data.error || r.status + " " + r.statusText); }
    return data;
  }

  // refresh replaces a section with its fragment, keeping what was typed
  // into message fields and which one had the focus.
  async function refresh(name) {
    const el = document.getElementById(name);
    const r = await fetch("/fragments/" + name + location.search, { credentials: "same-origin" });
    if (!r.ok) { return; }
    const html = await r.text();
    const typed = {};
    el.querySelectorAll("input[data-message]").forEach((i) => { typed[i.id] = i.value; });
    const focused = document.activeElement && el.contains(document.activeElement) ? document.activeElement.id : "";
    const t = document.createElement("template");
    t.innerHTML = html;
    el.replaceChildren(t.content);
    el.querySelectorAll("input[data-message]").forEach((i) => { if (typed[i.id]) { i.value = typed[i.id]; } });
    if (focused) { const f = document.getElementById(focused); if (f) { f.focus(); } }
  }

  function notifyNew(requests) {
    const ids = new Set(requests.map((q) => q.id));
    for (const q of requests) {
      if (!knownIDs.has(q.id) && window.Notification && Notification.permission === "granted" && localStorage.getItem("toolhost-notify") === "on") {
        const what = q.preview && q.preview.text ? q.preview.text.slice(0, 160) : (q.patterns || []).join(", ");
        new Notification("toolhost asks: " + q.permission, { body: what, tag: q.id });
      }
    }
    const changed = ids.size !== knownIDs.size || [...ids].some((id) => !knownIDs.has(id));
    knownIDs = ids;
    return changed;
  }

  function follow() {
    const es = new EventSource("/api/events");
    es.addEventListener("state", (ev) => {
      let state;
      try { state = JSON.parse(ev.data); } catch (e) { return; }
      if (notifyNew(state.requests || [])) { refresh("requests"); }
      refresh("sessions");
    });
    es.onerror = () => { say("Connection to toolhost lost; retrying…"); };
    es.onopen = () => { if (status.textContent.startsWith("Connection")) { say("Connected."); } };
  }

  document.addEventListener("click", async (ev) => {
    const b = ev.target.closest("button");
    if (!b) { return; }
    if (b.dataset.reply) {
      const article = b.closest(".request");
      const id = article.dataset.id;
      let body = { reply: b.dataset.reply };
      if (b.dataset.reply === "reject-message") {
        const input = article.querySelector("input[data-message]");
        const message = input.value.trim();
        if (!message) { say("Write the message to the agent first."); input.focus(); return; }
        body = { reply: "reject", message: message };
      }
      b.disabled = true;
      try {
        await post("/api/requests/" + encodeURIComponent(id) + "/reply", body);
        say("Answered " + body.reply + ".");
        article.remove();
      } catch (e) {
        say("Not answered: " + e.message);
        b.disabled = false;
      }
    } else if (b.dataset.trust) {
      if (!window.confirm("Trust this project's config and tools? They may then run the programs and use the grants listed.")) { return; }
      b.disabled = true;
      try {
        const r = await post("/api/trust", { digest: b.dataset.trust });
        say(r.restart ? "Trusted. Restart toolhost for the project's config to take effect." : "Trusted.");
        location.reload();
      } catch (e) {
        say("Not trusted: " + e.message);
        b.disabled = false;
      }
    } else if (b.dataset.revoke !== undefined) {
      try {
        await post("/api/sessions/" + encodeURIComponent(b.dataset.session) + "/revoke", { permission: b.dataset.permission, pattern: b.dataset.pattern });
        say("Revoked " + b.dataset.permission + " " + b.dataset.pattern + ".");
        refresh("sessions");
      } catch (e) {
        say("Not revoked: " + e.message);
      }
    }
  });

  // Enter in a message field rejects with that message.
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && ev.target.matches && ev.target.matches("input[data-message]")) {
      ev.preventDefault();
      const b = ev.target.closest(".request").querySelector('button[data-reply="reject-message"]');
      if (b) { b.click(); }
    }
  });

  if (window.Notification) {
    notifyButton.hidden = false;
    const label = () => {
      const on = Notification.permission === "granted" && localStorage.getItem("toolhost-notify") === "on";
      notifyButton.textContent = on ? "Stop notifications" : "Notify me of new requests";
      notifyButton.setAttribute("aria-pressed", on ? "true" : "false");
    };
    label();
    notifyButton.addEventListener("click", async () => {
      if (localStorage.getItem("toolhost-notify") === "on") {
        localStorage.setItem("toolhost-notify", "off");
      } else if ((await Notification.requestPermission()) === "granted") {
        localStorage.setItem("toolhost-notify", "on");
      } else {
        say("The browser did not allow notifications.");
      }
      label();
    });
  }

  follow();
})();
