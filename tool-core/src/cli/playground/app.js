"use strict";
// The playground: a form per tool built from its schema, kept in step with the raw JSON
// arguments, calls sent through the executor, and each record shown with its warnings and
// errors at the fields they concern.

const state = { tools: [], tool: null, root: null, form: null };

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) {
    if (child !== undefined && child !== null) node.append(child);
  }
  return node;
}

function pointerChild(pointer, segment) {
  return pointer + "/" + String(segment).replace(/~/g, "~0").replace(/\//g, "~1");
}

async function load() {
  const response = await fetch("/api/tools");
  state.tools = (await response.json()).tools;
  document.getElementById("count").textContent = state.tools.length + " tools";
  document.getElementById("search").addEventListener("input", renderList);
  document.getElementById("find-query").addEventListener("input", findSoon);
  document.getElementById("find-deferred").addEventListener("change", find);
  document.getElementById("find").addEventListener("submit", (event) => { event.preventDefault(); find(); });
  renderList();
  refreshWaiting();
}

// ---- tool search ---------------------------------------------------------------------------

let findTimer = null;
let findSent = 0;

function findSoon() {
  clearTimeout(findTimer);
  findTimer = setTimeout(find, 150);
}

// The ranking the search tool would give for the query, with why each tool matched.
async function find() {
  const query = document.getElementById("find-query").value;
  const sent = ++findSent;
  if (!query.trim()) {
    // The box emptied: back to the page's start, unless a tool is open.
    if (document.getElementById("ranking")) document.getElementById("main").replaceChildren(el("p", { class: "empty" }, "Pick a tool on the left."));
    return;
  }
  const response = await fetch("/api/search", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ query, limit: 10, deferred: document.getElementById("find-deferred").checked }),
  });
  // An answer to an older query that came late is not shown.
  if (sent !== findSent) return;
  if (!response.ok) {
    renderRanking(null, await response.text());
    return;
  }
  renderRanking(await response.json(), null);
}

// A text with the matched characters in <mark>: `marks` are [start, end) in characters.
function marked(text, marks) {
  const chars = Array.from(text);
  const node = el("span", { class: "text" });
  let at = 0;
  for (const [start, end] of marks) {
    if (start > at) node.append(chars.slice(at, start).join(""));
    node.append(el("mark", {}, chars.slice(start, end).join("")));
    at = end;
  }
  if (at < chars.length) node.append(chars.slice(at).join(""));
  return node;
}

function renderRanking(answer, error) {
  state.tool = null;
  renderList();
  const main = document.getElementById("main");
  const section = el("section", { id: "ranking" });
  if (error) {
    section.append(el("p", { class: "message", id: "ranking-error" }, error));
    main.replaceChildren(section);
    return;
  }
  const among = document.getElementById("find-deferred").checked ? " deferred tools" : " tools";
  section.append(el("h2", {}, "Tool search"),
    el("p", { class: "hint", id: "ranking-summary" }, answer.tools.length + " of " + answer.searched + among + " matched"));
  const list = el("ol", { class: "hits" });
  for (const hit of answer.tools) {
    const tool = state.tools.find((t) => t.name === hit.name);
    const name = el("a", { href: "#", class: "hit-name" }, hit.name);
    name.addEventListener("click", (event) => { event.preventDefault(); if (tool) select(tool); });
    const head = el("div", { class: "hit-head" }, name, el("span", { class: "score" }, hit.score.toFixed(2)));
    if (hit.exact_name) head.append(el("span", { class: "tag" }, "the tool's name"));
    if (hit.deferred) head.append(el("span", { class: "tag" }, "deferred"));
    const words = hit.matches.map((m) => m.word + (m.term !== m.word ? " (" + m.term + ")" : "") + ": " + m.fields.join(", "));
    const item = el("li", { class: "hit", "data-tool": hit.name }, head, el("div", { class: "why" }, words.join(" · ")));
    const texts = el("ul", { class: "highlights" });
    for (const h of hit.highlights) {
      texts.append(el("li", { "data-field": h.field }, el("span", { class: "field-name" }, h.field.replace(/_/g, " ")), marked(h.text, h.marks)));
    }
    item.append(texts);
    list.append(item);
  }
  section.append(list);
  main.replaceChildren(section);
}

function renderList() {
  const query = document.getElementById("search").value.trim().toLowerCase();
  const list = document.getElementById("tools");
  list.replaceChildren();
  for (const tool of state.tools) {
    const haystack = [tool.name, ...(tool.tags || [])].join(" ").toLowerCase();
    if (query && !haystack.includes(query)) continue;
    const item = el("li", { "data-tool": tool.name }, tool.name);
    for (const tag of tool.tags || []) item.append(el("span", { class: "tag" }, "#" + tag));
    if (state.tool && state.tool.name === tool.name) item.classList.add("selected");
    item.addEventListener("click", () => select(tool));
    list.append(item);
  }
}

// ---- schemas -------------------------------------------------------------------------

function resolve(schema) {
  let seen = 0;
  while (schema && typeof schema.$ref === "string" && seen++ < 32) {
    const path = schema.$ref.replace(/^#\//, "").split("/");
    let target = state.root;
    for (const part of path) target = target ? target[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
    const rest = Object.assign({}, schema);
    delete rest.$ref;
    schema = Object.assign({}, target || {}, rest);
  }
  return schema || {};
}

// The schema without its `null` alternative, and whether it had one.
function withoutNull(schema) {
  schema = resolve(schema);
  for (const key of ["anyOf", "oneOf"]) {
    const branches = schema[key];
    if (Array.isArray(branches)) {
      const others = branches.filter((b) => resolve(b).type !== "null");
      if (others.length === 1 && others.length < branches.length) {
        const inner = Object.assign({}, resolve(others[0]));
        // The property's own description says more than its type's.
        if (schema.description) inner.description = schema.description;
        return { schema: inner, nullable: true };
      }
    }
  }
  if (Array.isArray(schema.type) && schema.type.includes("null")) {
    const types = schema.type.filter((t) => t !== "null");
    return { schema: Object.assign({}, schema, { type: types.length === 1 ? types[0] : types }), nullable: true };
  }
  return { schema, nullable: false };
}

function enumValues(schema) {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => ({ value: v, description: "" }));
  for (const key of ["oneOf", "anyOf"]) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length && branches.every((b) => "const" in resolve(b))) {
      return branches.map((b) => ({ value: resolve(b).const, description: resolve(b).description || "" }));
    }
  }
  return null;
}

function kindOf(schema) {
  if (enumValues(schema)) return "enum";
  const type = Array.isArray(schema.type) ? null : schema.type;
  if (type === "boolean" || type === "integer" || type === "number" || type === "string") return type;
  if (type === "object" && schema.properties && !schema.additionalProperties) return "object";
  if (type === "array" && Array.isArray(schema.prefixItems)) return "tuple";
  if (type === "array" && schema.items && typeof schema.items === "object") return "array";
  return "json";
}

// ---- the form ----------------------------------------------------------------------------

// A field for `schema` at `pointer`: an element with `_read()` (the value, or undefined when
// left empty) and `_write(value)`.
function field(label, rawSchema, pointer, required, description) {
  const { schema, nullable } = withoutNull(rawSchema);
  const optional = !required || nullable;
  const kind = kindOf(schema);
  const text = description || schema.description || "";
  const hints = [];
  if (text) hints.push(text);
  const example = schema.example !== undefined ? schema.example : (Array.isArray(schema.examples) ? schema.examples[0] : undefined);
  if (example !== undefined) hints.push("e.g. " + JSON.stringify(example));
  if (schema.default !== undefined) hints.push("default " + JSON.stringify(schema.default));

  if (kind === "object") {
    const box = el("fieldset", { "data-pointer": pointer, class: "field" }, el("legend", {}, label, optional ? el("span", { class: "optional" }, "(optional)") : null));
    if (hints.length) box.append(el("span", { class: "hint" }, hints.join(" · ")));
    const requiredNames = schema.required || [];
    const children = Object.entries(schema.properties).map(([name, sub]) => {
      const child = field(name, sub, pointerChild(pointer, name), requiredNames.includes(name));
      box.append(child);
      return [name, child];
    });
    box._read = () => {
      const value = {};
      let filled = false;
      for (const [name, child] of children) {
        const v = child._read();
        if (v !== undefined) value[name] = v;
        if (v !== undefined && v !== "" && !(Array.isArray(v) && v.length === 0)) filled = true;
      }
      // An optional object nothing was filled in for is left out.
      return filled || !optional ? value : undefined;
    };
    box._write = (value) => {
      for (const [name, child] of children) child._write(value && typeof value === "object" ? value[name] : undefined);
    };
    return box;
  }

  const wrap = el("div", { class: "field", "data-pointer": pointer },
    el("label", {}, label, optional ? el("span", { class: "optional" }, "(optional)") : null));
  let input;
  if (kind === "array" || kind === "tuple") {
    const items = el("div", { class: "items" });
    const itemSchemas = kind === "tuple" ? schema.prefixItems : null;
    const addItem = (value) => {
      const index = items.children.length;
      const sub = field("#" + index, itemSchemas ? itemSchemas[index] : schema.items, pointerChild(pointer, index), true);
      const row = el("div", { class: "item" }, sub);
      if (!itemSchemas) {
        const remove = el("button", { type: "button", class: "remove" }, "remove");
        remove.addEventListener("click", () => { row.remove(); renumber(); changed(); });
        row.append(remove);
      }
      row._field = sub;
      items.append(row);
      if (value !== undefined) sub._write(value);
      return row;
    };
    const renumber = () => {
      [...items.children].forEach((row, i) => {
        const sub = row._field;
        sub.setAttribute("data-pointer", pointerChild(pointer, i));
        const caption = sub.querySelector(":scope > label, :scope > legend");
        if (caption) caption.firstChild.textContent = "#" + i;
      });
    };
    wrap.append(items);
    if (itemSchemas) {
      itemSchemas.forEach(() => addItem());
    } else {
      const add = el("button", { type: "button", class: "add" }, "+ add");
      add.addEventListener("click", () => { addItem(); changed(); });
      wrap.append(add);
    }
    wrap._read = () => {
      const values = [...items.children].map((row) => row._field._read());
      if (!values.length && optional) return undefined;
      return values.map((v) => (v === undefined ? null : v));
    };
    wrap._write = (value) => {
      if (itemSchemas) {
        [...items.children].forEach((row, i) => row._field._write(Array.isArray(value) ? value[i] : undefined));
        return;
      }
      items.replaceChildren();
      for (const v of Array.isArray(value) ? value : []) addItem(v);
    };
  } else if (kind === "enum" || kind === "boolean") {
    const options = kind === "boolean" ? [{ value: true, description: "" }, { value: false, description: "" }] : enumValues(schema);
    input = el("select", { name: pointer }, el("option", { value: "" }, optional ? "(not set)" : "(choose)"));
    options.forEach((o, i) => input.append(el("option", { value: String(i) }, JSON.stringify(o.value) + (o.description ? " - " + o.description : ""))));
    input._options = options;
    wrap._read = () => (input.value === "" ? undefined : options[Number(input.value)].value);
    wrap._write = (value) => {
      const i = options.findIndex((o) => o.value === value);
      input.value = i < 0 ? "" : String(i);
    };
  } else if (kind === "integer" || kind === "number") {
    input = el("input", { type: "number", name: pointer, step: kind === "integer" ? "1" : "any",
      min: schema.minimum, max: schema.maximum });
    wrap._read = () => (input.value === "" ? undefined : Number(input.value));
    wrap._write = (value) => { input.value = typeof value === "number" ? String(value) : (value === undefined || value === null ? "" : String(value)); };
  } else if (kind === "string") {
    input = el("input", { type: "text", name: pointer, placeholder: schema.format || "" });
    wrap._read = () => (input.value === "" && optional ? undefined : input.value);
    wrap._write = (value) => { input.value = value === undefined || value === null ? "" : String(value); };
  } else {
    input = el("textarea", { name: pointer, placeholder: "JSON" });
    wrap._read = () => {
      if (input.value.trim() === "") return undefined;
      try { return JSON.parse(input.value); } catch (e) { return input.value; }
    };
    wrap._write = (value) => { input.value = value === undefined ? "" : JSON.stringify(value); };
  }
  if (input) wrap.append(input);
  if (hints.length) wrap.append(el("span", { class: "hint" }, hints.join(" · ")));
  return wrap;
}

function changed() {
  if (!state.form) return;
  const value = state.form._read() || {};
  document.getElementById("raw").value = JSON.stringify(value, null, 2);
  document.getElementById("raw-note").textContent = "";
}

function select(tool) {
  state.tool = tool;
  state.root = tool.input_schema;
  renderList();
  const main = document.getElementById("main");
  const form = el("form", { id: "form", autocomplete: "off" });
  const rootField = field(tool.name, Object.assign({}, tool.input_schema, { description: "" }), "", true);
  // The root is the arguments object: its fields, without a box around them.
  rootField.classList.add("root");
  form.append(rootField);
  state.form = rootField;
  form.addEventListener("input", changed);
  form.addEventListener("change", changed);
  form.addEventListener("submit", (event) => { event.preventDefault(); callTool(); });

  const raw = el("textarea", { id: "raw", spellcheck: "false" });
  raw.addEventListener("input", () => {
    const note = document.getElementById("raw-note");
    try {
      const value = JSON.parse(raw.value);
      if (value && typeof value === "object" && !Array.isArray(value)) {
        state.form._write(value);
        note.textContent = "";
        return;
      }
    } catch (e) { /* messy on purpose, perhaps: sent as typed */ }
    note.textContent = "Not a JSON object as it stands: it is sent as typed, and the server repairs what it can.";
  });

  const facts = [tool.kind].concat(tool.tags || []).join(" · ");
  // Each example is a whole call's arguments: a click puts it in the form and the box.
  const examples = (tool.examples || []).map((example, i) => {
    const button = el("button", { type: "button", class: "example", "data-example": String(i) }, JSON.stringify(example));
    button.addEventListener("click", () => { state.form._write(example); changed(); });
    return el("li", {}, button);
  });
  main.replaceChildren(
    el("div", { class: "tool-head" }, el("h2", {}, tool.name), el("span", { class: "hint" }, facts)),
    el("p", { class: "description" }, tool.description || ""),
    examples.length
      ? el("section", { id: "examples" }, el("h3", {}, "Examples"), el("ul", { class: "examples" }, ...examples))
      : null,
    el("div", { class: "columns" },
      el("div", {}, form),
      el("div", { class: "side" }, el("label", { for: "raw" }, "Arguments, as the model would send them"), raw,
        el("div", { id: "raw-note", class: "raw-note" }),
        el("div", { id: "raw-findings", class: "field" }),
        el("button", { id: "call", class: "primary", type: "button" }, "Call"),
        el("section", { id: "record", hidden: true }))));
  document.getElementById("call").addEventListener("click", callTool);
  for (const example of tool.examples || []) { state.form._write(example); break; }
  changed();
}

// ---- calls and records ---------------------------------------------------------------------

async function callTool() {
  const response = await fetch("/api/call", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ tool: state.tool.name, arguments: document.getElementById("raw").value }),
  });
  renderRecord(await response.json());
}

// The field a pointer names, or the closest field above it.
function fieldAt(pointer) {
  const fields = [...document.querySelectorAll("#form [data-pointer]")];
  let at = pointer;
  for (;;) {
    const found = fields.find((f) => f.getAttribute("data-pointer") === at);
    if (found || at === "") return found;
    at = at.slice(0, at.lastIndexOf("/"));
  }
}

function mark(pointer, kind, text) {
  // What concerns the whole arguments text goes beside it; the rest at its field.
  const target = pointer === "" ? document.getElementById("raw-findings") : fieldAt(pointer);
  if (!target) return;
  target.classList.add(kind);
  target.append(el("span", { class: "finding" }, text));
}

function renderRecord(record) {
  for (const f of document.querySelectorAll(".warned, .refused")) f.classList.remove("warned", "refused");
  for (const f of document.querySelectorAll(".finding")) f.remove();
  const request = record.request || {};
  const section = document.getElementById("record");
  section.hidden = false;
  const status = record.status || "failed";
  // `denied (denied)` would say it twice.
  const failure = record.failure && record.failure.kind !== status ? " (" + record.failure.kind + ")" : "";
  const ms = ((record.duration_us || 0) / 1000).toFixed(1);
  const parts = [el("h3", {}, "Record ", el("span", { class: "status " + status, id: "status" }, status + failure), " in " + ms + " ms")];

  let read = request.arguments;
  if (read === undefined) { try { read = JSON.parse(request.raw_arguments); } catch (e) { read = undefined; } }
  if (read !== undefined) parts.push(el("div", {}, "Arguments as read"), el("pre", { id: "read" }, JSON.stringify(read, null, 2)));

  const warnings = request.parse_warnings || [];
  if (warnings.length) {
    const list = el("ul", { id: "warnings" });
    for (const w of warnings) {
      const where = w.pointer === "" ? "(arguments)" : w.pointer;
      list.append(el("li", { class: "warning", "data-pointer": w.pointer }, w.rule + " at " + where + ": " + w.action + " (received " + w.received + ")"));
      mark(w.pointer, "warned", w.rule + ": " + w.action);
    }
    parts.push(el("div", {}, "Warnings"), list);
  }
  // `parse_error` is the list of errors.
  const errors = Array.isArray(request.parse_error) ? request.parse_error : [];
  if (errors.length) {
    const list = el("ul", { id: "errors" });
    for (const e of errors) {
      const where = e.pointer === "" ? "(arguments)" : e.pointer;
      list.append(el("li", { class: "error", "data-pointer": e.pointer }, e.rule + " at " + where + ": " + e.detail));
      mark(e.pointer, "refused", e.detail);
    }
    parts.push(el("div", {}, "Errors"), list);
  }
  const content = record.content || {};
  if (status === "success") {
    const result = content.structured !== undefined ? JSON.stringify(content.structured, null, 2) : content.text;
    parts.push(el("div", {}, "Result"), el("pre", { id: "result" }, result));
    // Images, audio and resources after the text, one line each, as text.
    const blocks = Array.isArray(content.blocks) ? content.blocks : [];
    if (blocks.length) {
      const list = el("ul", { id: "blocks" });
      for (const block of blocks) list.append(el("li", {}, blockLine(block)));
      parts.push(el("div", {}, "Content blocks"), list);
    }
  } else {
    parts.push(el("div", {}, "Message for the model"), el("div", { class: "message " + status, id: "message" }, content.text || ""));
  }
  const decisions = Array.isArray(record.decisions) ? record.decisions : [];
  if (decisions.length) {
    const list = el("ul", { id: "decisions" });
    for (const d of decisions) {
      list.append(el("li", { class: "decision " + d.outcome },
        d.stage.replace(/_/g, " ") + " by " + d.by + ": " + d.outcome + (d.message ? ": " + d.message : "")));
    }
    parts.push(el("div", {}, "Policy"), list);
  }
  if (status === "pending" && record.pending_id && record.pending) parts.push(pendingPanel(record));
  section.replaceChildren(...parts);
  refreshWaiting();
}

// ---- approval ------------------------------------------------------------------------------

function reasonText(reason) {
  switch (reason.kind) {
    case "declared": return "the tool asks for approval of every call";
    case "rule": return "rule " + reason.rule;
    case "asked": return reason.message;
    default: return reason.kind;
  }
}

// The calls the server keeps while they wait for approval, newest first, in the side bar: a
// call left unanswered is found again there.
async function refreshWaiting() {
  const response = await fetch("/api/pending");
  if (!response.ok) return;
  const records = (await response.json()).pending;
  const list = document.getElementById("waiting-list");
  list.replaceChildren();
  for (const record of records) {
    const item = el("li", { "data-pending-id": record.pending_id }, record.request.tool_name,
      // The id's first 8 of its 32 characters tell the calls apart at a glance.
      el("span", { class: "tag", title: record.pending_id }, "#" + record.pending_id.slice(0, 8)));
    item.addEventListener("click", () => showWaiting(record));
    list.append(item);
  }
  document.getElementById("waiting").hidden = records.length === 0;
}

// A waiting call again: its tool's form with the arguments as the model sent them, and its record.
function showWaiting(record) {
  const tool = state.tools.find((t) => t.name === record.request.tool_name);
  if (!tool) return;
  select(tool);
  const raw = document.getElementById("raw");
  raw.value = record.pending.request.raw_arguments;
  raw.dispatchEvent(new Event("input", { bubbles: true }));
  renderRecord(record);
}

// What a person answers a call that waits for approval with: the server keeps the call under
// `pending_id`, and the page sends only that id and the answer.
function pendingPanel(record) {
  const id = record.pending_id;
  const reasons = el("ul", { id: "reasons" });
  for (const reason of record.pending.reasons || []) reasons.append(el("li", {}, reasonText(reason)));
  const approve = el("button", { id: "approve", type: "button", class: "primary" }, "Approve");
  const edited = el("button", { id: "approve-edited", type: "button" }, "Approve with the arguments as edited");
  const reason = el("input", { id: "deny-reason", type: "text", placeholder: "Why (the model reads it)", maxlength: "2048" });
  const deny = el("button", { id: "deny", type: "button", class: "danger" }, "Deny");
  const error = el("p", { id: "pending-error", class: "message", hidden: true });
  const answer = async (action, body) => {
    for (const button of [approve, edited, deny]) button.disabled = true;
    const response = await fetch("/api/pending/" + encodeURIComponent(id) + "/" + action, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      error.textContent = await response.text();
      error.hidden = false;
      for (const button of [approve, edited, deny]) button.disabled = false;
      return;
    }
    renderRecord(await response.json());
  };
  approve.addEventListener("click", () => answer("approve", {}));
  edited.addEventListener("click", () => answer("approve", { arguments: document.getElementById("raw").value }));
  deny.addEventListener("click", () => answer("deny", { reason: reason.value }));
  return el("div", { id: "pending", "data-pending-id": id },
    el("div", {}, "Waits for a person's approval"), reasons,
    el("div", { class: "actions" }, approve, edited),
    el("div", { class: "actions" }, reason, deny),
    error);
}

/** One content block of a result in words: `image: image/png, 67 bytes`. */
function blockLine(block) {
  const bytes = (base64) => Math.floor((base64 || "").replace(/=+$/, "").length * 3 / 4) + " bytes";
  switch (block.type) {
    case "text": return block.text;
    case "image":
    case "audio": return block.type + ": " + block.mime_type + ", " + bytes(block.data);
    case "resource": {
      const head = "resource: " + block.uri + (block.mime_type ? ", " + block.mime_type : "");
      return block.text !== undefined ? head + "\n" + block.text : head + ", " + bytes(block.blob);
    }
    case "resource_link": return "resource link: " + block.name + " <" + block.uri + ">" + (block.description ? ": " + block.description : "");
    default: return block.type;
  }
}

load();
