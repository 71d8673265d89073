// Building elements, for every page: text only, never HTML (names and chat come from other
// people, and Element.append never parses markup).

export const $ = (id) => document.getElementById(id);

// el(tag, attrs, ...children): attrs is a class name, or an object whose keys are `class`,
// `text`, `on<event>` (a listener) or any attribute (true: present and empty; false, null or
// undefined: left out). Children are nodes or strings (text); null and undefined are skipped.
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  setAttributes(node, typeof attrs === "string" ? { class: attrs } : attrs);
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

export const SVG_NS = "http://www.w3.org/2000/svg";

// An SVG element with its attributes (no children: append them).
export function svg(tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  return node;
}

function setAttributes(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
}
