// DOM helpers shared by the demo's views.

const number = new Intl.NumberFormat('en-GB');

/** A token count, rounded, with thousands separators. */
export const fmt = (n) => number.format(Math.round(n));

/** createElement with attributes; children that are not nodes become text nodes. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') node.className = value;
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
