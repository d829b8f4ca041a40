// Renders a model's reply: paragraphs, headings, lists, fenced code blocks,
// inline code and bold. Text only ever reaches the page through textContent
// (never parsed as HTML), so markup in a reply shows as the characters it is.
// parseReply is pure (tests/node/webui_render_test.mjs runs it under Node);
// renderReply builds DOM nodes from its blocks.
"use strict";

(function (root) {
  const FENCE = /^\s*(```|~~~)\s*([\w+#.-]*)\s*$/;
  const HEADING = /^(#{1,6})\s+(.*)$/;
  const BULLET = /^\s*[-*+]\s+(.*)$/;
  const NUMBERED = /^\s*(\d{1,9})[.)]\s+(.*)$/;

  // Inline spans of one block: [{type: "text"|"code"|"strong", text}].
  function parseInline(text) {
    const spans = [];
    const pattern = /`([^`\n]+)`|\*\*([^*\n]+)\*\*/g;
    let last = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      if (m.index > last) spans.push({ type: "text", text: text.slice(last, m.index) });
      if (m[1] !== undefined) spans.push({ type: "code", text: m[1] });
      else spans.push({ type: "strong", text: m[2] });
      last = pattern.lastIndex;
    }
    if (last < text.length) spans.push({ type: "text", text: text.slice(last) });
    return spans;
  }

  // The reply's blocks, in order:
  //   {type: "code", lang, text}            a fenced block (an unclosed fence
  //                                         runs to the end: replies stream)
  //   {type: "heading", level, spans}
  //   {type: "list", ordered, start, items: [spans...]}
  //   {type: "paragraph", spans}            lines kept, blank lines split
  function parseReply(text) {
    const lines = String(text).replace(/\r\n?/g, "\n").split("\n");
    const blocks = [];
    let paragraph = null;
    let list = null;
    const endParagraph = () => {
      if (paragraph !== null) blocks.push({ type: "paragraph", spans: parseInline(paragraph.join("\n")) });
      paragraph = null;
    };
    const endList = () => {
      if (list !== null) blocks.push(list);
      list = null;
    };
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      const fence = FENCE.exec(line);
      if (fence) {
        endParagraph();
        endList();
        const body = [];
        let j = i + 1;
        while (j < lines.length && lines[j].trim() !== fence[1]) {
          body.push(lines[j]);
          j++;
        }
        blocks.push({ type: "code", lang: fence[2], text: body.join("\n") });
        i = j;
        continue;
      }
      if (line.trim() === "") {
        endParagraph();
        endList();
        continue;
      }
      const heading = HEADING.exec(line);
      if (heading) {
        endParagraph();
        endList();
        blocks.push({ type: "heading", level: heading[1].length, spans: parseInline(heading[2]) });
        continue;
      }
      const bullet = BULLET.exec(line);
      const numbered = bullet ? null : NUMBERED.exec(line);
      if (bullet || numbered) {
        endParagraph();
        const ordered = numbered !== null;
        if (list !== null && list.ordered !== ordered) endList();
        if (list === null) list = { type: "list", ordered, start: ordered ? Number(numbered[1]) : 1, items: [] };
        list.items.push(parseInline(ordered ? numbered[2] : bullet[1]));
        continue;
      }
      if (list !== null) endList();
      if (paragraph === null) paragraph = [];
      paragraph.push(line);
    }
    endParagraph();
    endList();
    return blocks;
  }

  function appendSpans(doc, parent, spans) {
    for (const span of spans) {
      if (span.type === "text") {
        parent.appendChild(doc.createTextNode(span.text));
      } else {
        const el = doc.createElement(span.type === "code" ? "code" : "strong");
        el.textContent = span.text;
        parent.appendChild(el);
      }
    }
  }

  // A DocumentFragment holding the reply's blocks as elements.
  function renderReply(doc, text) {
    const fragment = doc.createDocumentFragment();
    for (const block of parseReply(text)) {
      let el;
      if (block.type === "code") {
        el = doc.createElement("pre");
        const code = doc.createElement("code");
        if (block.lang) code.dataset.lang = block.lang;
        code.textContent = block.text;
        el.appendChild(code);
      } else if (block.type === "heading") {
        el = doc.createElement("h" + Math.min(6, block.level + 2));
        appendSpans(doc, el, block.spans);
      } else if (block.type === "list") {
        el = doc.createElement(block.ordered ? "ol" : "ul");
        if (block.ordered && block.start !== 1) el.start = block.start;
        for (const item of block.items) {
          const li = doc.createElement("li");
          appendSpans(doc, li, item);
          el.appendChild(li);
        }
      } else {
        el = doc.createElement("p");
        appendSpans(doc, el, block.spans);
      }
      fragment.appendChild(el);
    }
    return fragment;
  }

  const api = { parseReply, parseInline, renderReply };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.TritRender = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
