// The chat page's reply renderer (src/server/webui/render.js) under Node's
// test runner: which blocks and spans a reply becomes. Markup stays text by
// construction (render.js builds nodes with textContent only); the browser
// test (tests/python/webui_browser_test.py) checks that in chromium.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const { parseReply, parseInline } = createRequire(import.meta.url)(
  path.join(here, "../../src/server/webui/render.js"));

test("paragraphs split on blank lines and keep their line breaks", () => {
  assert.deepEqual(parseReply("one\ntwo\n\nthree"), [
    { type: "paragraph", spans: [{ type: "text", text: "one\ntwo" }] },
    { type: "paragraph", spans: [{ type: "text", text: "three" }] },
  ]);
});

test("a fenced block is code, its markup untouched", () => {
  assert.deepEqual(parseReply("Look:\n```html\n<script>x()</script>\n\n**not bold**\n```\nafter"), [
    { type: "paragraph", spans: [{ type: "text", text: "Look:" }] },
    { type: "code", lang: "html", text: "<script>x()</script>\n\n**not bold**" },
    { type: "paragraph", spans: [{ type: "text", text: "after" }] },
  ]);
});

test("an unclosed fence runs to the end, as a streaming reply has it", () => {
  assert.deepEqual(parseReply("```\nint main() {\n  return 0;"), [
    { type: "code", lang: "", text: "int main() {\n  return 0;" },
  ]);
});

test("bullets and numbers make lists; a change of kind starts a new list", () => {
  assert.deepEqual(parseReply("- a\n* b\n3. c\n4) d\ntext"), [
    { type: "list", ordered: false, start: 1, items: [[{ type: "text", text: "a" }], [{ type: "text", text: "b" }]] },
    { type: "list", ordered: true, start: 3, items: [[{ type: "text", text: "c" }], [{ type: "text", text: "d" }]] },
    { type: "paragraph", spans: [{ type: "text", text: "text" }] },
  ]);
});

test("headings", () => {
  assert.deepEqual(parseReply("## Title\nbody"), [
    { type: "heading", level: 2, spans: [{ type: "text", text: "Title" }] },
    { type: "paragraph", spans: [{ type: "text", text: "body" }] },
  ]);
});

test("inline code and bold; markup inside stays text", () => {
  assert.deepEqual(parseInline("use `<b>` and **<i>this</i>** <img onerror=x>"), [
    { type: "text", text: "use " },
    { type: "code", text: "<b>" },
    { type: "text", text: " and " },
    { type: "strong", text: "<i>this</i>" },
    { type: "text", text: " <img onerror=x>" },
  ]);
});

test("CRLF line ends and an empty reply", () => {
  assert.deepEqual(parseReply("a\r\n\r\nb"), [
    { type: "paragraph", spans: [{ type: "text", text: "a" }] },
    { type: "paragraph", spans: [{ type: "text", text: "b" }] },
  ]);
  assert.deepEqual(parseReply(""), []);
});
