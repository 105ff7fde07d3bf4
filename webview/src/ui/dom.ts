// Tiny DOM helper (no innerHTML: everything is text, so nothing from a profile is ever parsed
// as markup).
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K, props: { className?: string; text?: string; title?: string; attrs?: Record<string, string> } = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (props.className) e.className = props.className;
  if (props.text !== undefined) e.textContent = props.text;
  if (props.title) e.title = props.title;
  if (props.attrs) for (const [k, v] of Object.entries(props.attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}
