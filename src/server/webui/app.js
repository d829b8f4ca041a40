// trit serve's chat page: conversations kept in localStorage, replies
// streamed from v1/chat/completions (server-sent events), a Stop that aborts
// the request (the server frees the slot when the connection closes).
// URLs are relative so that the page works behind a proxy under any path.
"use strict";

(function () {
  const STORE_KEY = "trit.chat.v1";   // {conversations, current, settings}
  const API_KEY_KEY = "trit.apiKey";  // the bearer token, when the server wants one
  const TITLE_LENGTH = 48;

  const $ = (id) => document.getElementById(id);
  const ui = {
    app: $("app"), sidebar: $("sidebar"), newChat: $("new-chat"), conversations: $("conversations"),
    toggleSidebar: $("toggle-sidebar"), model: $("model"), toggleSettings: $("toggle-settings"),
    settings: $("settings"), temperature: $("temperature"), maxTokens: $("max-tokens"), seed: $("seed"),
    systemPrompt: $("system-prompt"), auth: $("auth"), apiKey: $("api-key"), forgetKey: $("forget-key"),
    notice: $("notice"), messages: $("messages"), composer: $("composer"), prompt: $("prompt"),
    send: $("send"), stop: $("stop"),
  };

  // ---- storage --------------------------------------------------------

  function loadState() {
    try {
      const raw = localStorage.getItem(STORE_KEY);
      const state = raw ? JSON.parse(raw) : null;
      if (state && Array.isArray(state.conversations)) {
        state.settings = state.settings || {};
        return state;
      }
    } catch (e) {
      // A corrupt or unreadable store starts afresh rather than breaking the page.
    }
    return { conversations: [], current: null, settings: {} };
  }

  const state = loadState();

  function saveState() {
    try {
      localStorage.setItem(STORE_KEY, JSON.stringify(state));
    } catch (e) {
      showNotice("Could not save the conversation in this browser's storage (" + e.name + "): it is full or disabled.");
    }
  }

  function apiKey() {
    try {
      return localStorage.getItem(API_KEY_KEY) || "";
    } catch (e) {
      return "";
    }
  }

  function headers() {
    const h = { "Content-Type": "application/json" };
    const key = apiKey();
    if (key) h.Authorization = "Bearer " + key;
    return h;
  }

  // ---- notices and errors ---------------------------------------------

  function showNotice(text) {
    ui.notice.textContent = text;
    ui.notice.hidden = false;
  }

  function clearNotice() {
    ui.notice.hidden = true;
    ui.notice.textContent = "";
  }

  function showAuth(message) {
    ui.auth.hidden = false;
    showNotice(message);
    ui.apiKey.focus();
  }

  // The message of an error response, in OpenAI's shape or not.
  async function errorMessage(res) {
    let message = "";
    try {
      const body = await res.json();
      if (body && body.error && body.error.message) message = body.error.message;
    } catch (e) {
      // not JSON: a proxy's error page, say
    }
    if (res.status === 401) {
      showAuth(apiKey() ? "The server refused this API key: enter another." : "This server needs an API key: enter it above.");
      return "The server needs a valid API key (HTTP 401): enter it above, then send again.";
    }
    if (res.status === 429) {
      const after = res.headers.get("Retry-After");
      return "The server is busy: all its slots and its queue are full (HTTP 429)." +
             (after ? " Try again in " + after + " s." : " Try again shortly.");
    }
    return "HTTP " + res.status + (message ? ": " + message : "");
  }

  const UNREACHABLE = "Cannot reach trit serve: is it still running?";

  // ---- models -----------------------------------------------------------

  async function loadModels() {
    let res;
    try {
      res = await fetch("v1/models", { headers: headers() });
    } catch (e) {
      showNotice(UNREACHABLE);
      return;
    }
    if (!res.ok) {
      const message = await errorMessage(res);
      if (res.status !== 401) showNotice("Could not list the models: " + message);
      return;
    }
    const body = await res.json();
    const models = body.data || [];
    const ids = models.map((m) => m.id);
    ui.model.replaceChildren();
    for (const m of models) {
      const option = document.createElement("option");
      option.value = m.id;
      // Serving the model store, a model not in memory loads on its first message.
      option.textContent = m.loaded === false ? m.id + " (loads when used)" : m.id;
      ui.model.appendChild(option);
    }
    if (ids.includes(state.settings.model)) ui.model.value = state.settings.model;
    state.settings.model = ui.model.value;
    ui.auth.hidden = true;
    clearNotice();
  }

  // ---- conversations ----------------------------------------------------

  function currentConversation() {
    return state.conversations.find((c) => c.id === state.current) || null;
  }

  function newConversation() {
    const c = { id: Date.now().toString(36) + Math.random().toString(36).slice(2, 8), title: "New chat",
                created: Date.now(), messages: [] };
    state.conversations.unshift(c);
    state.current = c.id;
    return c;
  }

  function deleteConversation(id) {
    if (busy && state.current === id) stop();
    state.conversations = state.conversations.filter((c) => c.id !== id);
    if (state.current === id) state.current = state.conversations.length ? state.conversations[0].id : null;
    saveState();
    renderAll();
  }

  function renderConversations() {
    ui.conversations.replaceChildren();
    for (const c of state.conversations) {
      const li = document.createElement("li");
      if (c.id === state.current) li.className = "current";
      const open = document.createElement("button");
      open.type = "button";
      open.className = "open";
      open.textContent = c.title;
      if (c.id === state.current) open.setAttribute("aria-current", "true");
      open.addEventListener("click", () => {
        if (busy) return;
        state.current = c.id;
        saveState();
        renderAll();
        setSidebar(false);
        ui.prompt.focus();
      });
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "delete";
      remove.textContent = "\u00d7";
      remove.setAttribute("aria-label", "Delete conversation: " + c.title);
      remove.addEventListener("click", () => deleteConversation(c.id));
      li.append(open, remove);
      ui.conversations.appendChild(li);
    }
  }

  // ---- messages ---------------------------------------------------------

  function statsText(m) {
    if (!m.stats) return m.stopped ? "stopped" : "";
    const s = m.stats;
    const parts = [];
    if (s.tokens !== undefined) parts.push(s.tokens + (s.tokens === 1 ? " token" : " tokens"));
    if (s.tokensPerSecond !== undefined) parts.push(s.tokensPerSecond.toFixed(1) + " tokens/s");
    if (s.firstTokenMs !== undefined) parts.push("first token " + Math.round(s.firstTokenMs) + " ms");
    if (m.stopped) parts.push("stopped");
    else if (s.finish === "length") parts.push("cut at max tokens");
    return parts.join(" \u00b7 ");
  }

  function fillMessage(li, m) {
    const body = li.querySelector(".body");
    body.replaceChildren();
    if (m.role === "assistant") body.appendChild(TritRender.renderReply(document, m.content));
    else body.textContent = m.content;
    const error = li.querySelector(".error");
    error.textContent = m.error || "";
    error.hidden = !m.error;
    li.querySelector(".stats").textContent = statsText(m);
  }

  function messageElement(m) {
    const li = document.createElement("li");
    li.className = "message " + m.role;
    const who = document.createElement("div");
    who.className = "who";
    who.textContent = m.role === "user" ? "You" : (m.model || "assistant");
    const body = document.createElement("div");
    body.className = "body";
    const error = document.createElement("div");
    error.className = "error";
    error.setAttribute("role", "alert");
    const stats = document.createElement("div");
    stats.className = "stats";
    li.append(who, body, error, stats);
    fillMessage(li, m);
    return li;
  }

  function renderMessages() {
    ui.messages.replaceChildren();
    const c = currentConversation();
    if (!c) return;
    for (const m of c.messages) ui.messages.appendChild(messageElement(m));
    ui.messages.scrollTop = ui.messages.scrollHeight;
  }

  function renderAll() {
    renderConversations();
    renderMessages();
  }

  // ---- sending and streaming ---------------------------------------------

  let busy = false;
  let controller = null;

  function setBusy(on) {
    busy = on;
    ui.send.hidden = on;
    ui.stop.hidden = !on;
    ui.app.classList.toggle("busy", on);
  }

  function stop() {
    if (controller) controller.abort();
  }

  function requestBody(c) {
    const messages = [];
    const system = ui.systemPrompt.value.trim();
    if (system) messages.push({ role: "system", content: system });
    // What the model said before, less replies that failed with nothing said.
    for (const m of c.messages.slice(0, -1)) {
      if (m.role === "assistant" && !m.content) continue;
      messages.push({ role: m.role, content: m.content });
    }
    const body = { messages, stream: true, stream_options: { include_usage: true } };
    if (ui.model.value) body.model = ui.model.value;
    const temperature = parseFloat(ui.temperature.value);
    if (Number.isFinite(temperature)) body.temperature = temperature;
    const maxTokens = parseInt(ui.maxTokens.value, 10);
    if (Number.isFinite(maxTokens) && maxTokens > 0) body.max_tokens = maxTokens;
    const seed = parseInt(ui.seed.value, 10);
    if (Number.isFinite(seed)) body.seed = seed;
    return body;
  }

  // Reads server-sent events from `res`, calling onEvent(parsed JSON) for
  // each; true when the stream ended with [DONE], false when it was cut.
  async function readEvents(res, onEvent) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return false;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        for (const line of event.split("\n")) {
          if (!line.startsWith("data:")) continue;  // ": waiting" comments while queued
          const data = line.slice(5).trim();
          if (data === "[DONE]") return true;
          onEvent(JSON.parse(data));
        }
      }
    }
  }

  async function send() {
    if (busy) return;
    const text = ui.prompt.value;
    if (!text.trim()) return;
    const c = currentConversation() || newConversation();
    if (c.messages.length === 0) c.title = text.trim().split("\n")[0].slice(0, TITLE_LENGTH);
    c.messages.push({ role: "user", content: text });
    const reply = { role: "assistant", content: "", model: ui.model.value };
    c.messages.push(reply);
    ui.prompt.value = "";
    saveState();
    renderAll();
    const li = ui.messages.lastElementChild;

    controller = new AbortController();
    setBusy(true);
    const started = performance.now();
    let firstToken = null;
    let pieces = 0;
    let usage = null;
    let finish = null;
    let pending = false;
    const redraw = () => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        fillMessage(li, reply);
        ui.messages.scrollTop = ui.messages.scrollHeight;
      });
    };
    try {
      const res = await fetch("v1/chat/completions", {
        method: "POST", headers: headers(), body: JSON.stringify(requestBody(c)), signal: controller.signal });
      if (!res.ok) {
        reply.error = await errorMessage(res);
      } else {
        const complete = await readEvents(res, (event) => {
          if (event.error) {
            reply.error = event.error.message || "the server reported an error";
            return;
          }
          if (event.usage) usage = event.usage;
          const choice = event.choices && event.choices[0];
          if (!choice) return;
          if (choice.finish_reason) finish = choice.finish_reason;
          const piece = choice.delta && choice.delta.content;
          if (piece) {
            if (firstToken === null) firstToken = performance.now();
            pieces++;
            reply.content += piece;
            redraw();
          }
        });
        if (!complete && !reply.error) reply.error = "The connection closed before the reply was complete.";
      }
    } catch (e) {
      if (e.name === "AbortError") reply.stopped = true;
      else if (e instanceof TypeError) reply.error = UNREACHABLE;
      else reply.error = "The reply could not be read: " + e.message;
    }
    const ended = performance.now();
    const tokens = usage ? usage.completion_tokens : pieces;
    if (tokens > 0) {
      reply.stats = { tokens, finish };
      if (firstToken !== null) {
        reply.stats.firstTokenMs = firstToken - started;
        // Decode speed: the tokens after the first over the time they took.
        if (tokens > 1 && ended > firstToken) reply.stats.tokensPerSecond = (tokens - 1) / ((ended - firstToken) / 1000);
      }
    }
    controller = null;
    setBusy(false);
    saveState();
    fillMessage(li, reply);
    renderConversations();
    ui.prompt.focus();
  }

  // ---- controls -----------------------------------------------------------

  function setSidebar(open) {
    ui.app.classList.toggle("sidebar-open", open);
    ui.toggleSidebar.setAttribute("aria-expanded", String(open));
  }

  function bindSetting(input, name) {
    if (state.settings[name] !== undefined) input.value = state.settings[name];
    input.addEventListener("change", () => {
      state.settings[name] = input.value;
      saveState();
    });
  }

  bindSetting(ui.temperature, "temperature");
  bindSetting(ui.maxTokens, "maxTokens");
  bindSetting(ui.seed, "seed");
  bindSetting(ui.systemPrompt, "systemPrompt");

  ui.model.addEventListener("change", () => {
    state.settings.model = ui.model.value;
    saveState();
  });
  ui.composer.addEventListener("submit", (e) => {
    e.preventDefault();
    send();
  });
  ui.prompt.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    }
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && busy) {
      e.preventDefault();
      stop();
    }
  });
  ui.stop.addEventListener("click", stop);
  ui.newChat.addEventListener("click", () => {
    if (busy) return;
    newConversation();
    saveState();
    renderAll();
    setSidebar(false);
    ui.prompt.focus();
  });
  ui.toggleSidebar.addEventListener("click", () => setSidebar(!ui.app.classList.contains("sidebar-open")));
  ui.toggleSettings.addEventListener("click", () => {
    ui.settings.hidden = !ui.settings.hidden;
    ui.toggleSettings.setAttribute("aria-expanded", String(!ui.settings.hidden));
  });
  ui.auth.addEventListener("submit", (e) => {
    e.preventDefault();
    try {
      localStorage.setItem(API_KEY_KEY, ui.apiKey.value.trim());
    } catch (err) {
      showNotice("Could not keep the key in this browser's storage (" + err.name + ").");
      return;
    }
    ui.apiKey.value = "";
    loadModels();
  });
  ui.forgetKey.addEventListener("click", () => {
    try {
      localStorage.removeItem(API_KEY_KEY);
    } catch (err) {
      // nothing kept, nothing to forget
    }
    ui.apiKey.value = "";
    showNotice("The API key is forgotten.");
  });

  renderAll();
  loadModels();
  ui.prompt.focus();
})();
