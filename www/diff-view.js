// Prompt diffs in the demo: the one-line summary of a card, the diff itself (sections named,
// hunks with + and − marks so it reads without colour), and the Diff / System prompt / Tools
// views of a trajectory change. The diffs come from promptfold (`conversation.cardDiff`,
// `conversation.changeDiff`, `diffPrompts`); every text reaches the page as a text node.

/** createElement with attributes; children that are not nodes become text nodes. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') node.className = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const STATUS_MARKS = { added: '+', removed: '−', changed: '~', unchanged: '=' };
const MINUS = '−';

/** What a diff changed, in one line: "Mode, Tools guidance changed · +14 −3 lines". */
export function diffSummary(diff) {
  const system = diff.system;
  const names = system.sections.filter((s) => s.status !== 'unchanged').map((s) => s.title || '(untitled)');
  const tools = diff.tools.changes.length
    ? [`tools: ${diff.tools.changes.map((t) => t.name).join(', ')}`]
    : diff.tools.orderOnly ? ['tool order'] : [];
  const config = diff.config.length ? [`config: ${diff.config.map((c) => c.name || 'whole').join(', ')}`] : [];
  const all = [...names, ...tools, ...config];
  const shown = all.length > 4 ? [...all.slice(0, 3), `${all.length - 3} more`] : all;
  const what = shown.length ? `${shown.join(', ')} changed` : 'No change';
  return `${what} · +${system.added} ${MINUS}${system.removed} lines`;
}

/** The hunks of a text diff as a <pre>: each line with its mark (+, − or a space). */
function hunksView(textDiff, testId) {
  const pre = el('pre', { class: 'prompt-text diff', 'data-testid': testId });
  for (const hunk of textDiff.hunks) {
    pre.append(el('span', { class: 'diff-hunk' },
      `@@ ${MINUS}${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@\n`));
    for (const line of hunk.lines) {
      const mark = line[0];
      const kind = mark === '+' ? 'diff-add' : mark === '-' ? 'diff-del' : 'diff-same';
      pre.append(el('span', { class: kind },
        el('span', { class: 'diff-mark', 'aria-label': mark === '+' ? 'added' : mark === '-' ? 'removed' : null },
          mark === '-' ? MINUS : mark),
        `${line.slice(1)}\n`));
    }
  }
  if (textDiff.replacedWhole) {
    pre.prepend(el('span', { class: 'diff-note' }, 'Too far apart to compare line by line: replaced whole.\n'));
  }
  return pre;
}

/** A prompt diff: the sections with their status, the system hunks, then tools and config. */
export function diffView(diff) {
  const root = el('div', { class: 'prompt-diff', 'data-testid': 'prompt-diff' });
  const system = diff.system;
  root.append(el('p', { class: 'diff-summary', 'data-testid': 'diff-summary' }, diffSummary(diff)));
  if (system.sections.length) {
    root.append(el('ul', { class: 'diff-sections', 'data-testid': 'diff-sections' },
      system.sections.map((section) => el('li', {
        class: `section-${section.status}`,
        'data-status': section.status,
      }, el('span', { class: 'section-mark', 'aria-hidden': 'true' }, STATUS_MARKS[section.status]),
      ` ${section.title || '(untitled)'} `,
      el('span', { class: 'muted' }, `(${section.status})`)))));
  }
  if (system.hunks.length) root.append(hunksView(system, 'diff-system'));
  else root.append(el('p', { class: 'muted' }, 'The system text is the same.'));
  if (diff.tools.changes.length || diff.tools.orderChanged) {
    root.append(el('div', { class: 'detail-label' },
      `Tools${diff.tools.orderOnly ? ': only the order changed' : diff.tools.orderChanged ? ' (order changed too)' : ''}`));
    for (const tool of diff.tools.changes) {
      root.append(el('div', { class: 'diff-tool', 'data-testid': 'diff-tool' },
        el('div', { class: 'diff-tool-name' }, `${STATUS_MARKS[tool.status]} ${tool.name} (${tool.status})`),
        hunksView(tool, 'diff-tool-hunks')));
    }
  }
  if (diff.config.length) {
    root.append(el('div', { class: 'detail-label' }, 'Config (not a prompt change)'),
      el('ul', { class: 'diff-config' }, diff.config.map((change) => el('li', {},
        `${change.name || '(whole config)'}: ${'old' in change ? JSON.stringify(change.old) : '(absent)'} → ${'new' in change ? JSON.stringify(change.new) : '(absent)'}`))));
  }
  return root;
}

/** Views behind tabs, the first shown: `views` is [{ label, render }], each rendered once. */
export function tabbedViews(views) {
  const root = el('div', { class: 'diff-tabs', 'data-testid': 'change-views' });
  const bar = el('div', { class: 'tab-bar', role: 'tablist' });
  const panel = el('div', { class: 'tab-panel', role: 'tabpanel' });
  const rendered = new Map();
  const buttons = views.map((view, index) => {
    const button = el('button', { type: 'button', role: 'tab', class: 'tab', 'data-testid': `view-${view.label}` }, view.label);
    button.addEventListener('click', (event) => {
      event.stopPropagation();
      show(index);
    });
    return button;
  });
  const show = (index) => {
    buttons.forEach((button, at) => button.setAttribute('aria-selected', String(at === index)));
    if (!rendered.has(index)) rendered.set(index, views[index].render());
    panel.replaceChildren(rendered.get(index));
  };
  bar.append(...buttons);
  root.append(bar, panel);
  show(0);
  return root;
}

/** `conversation[method](key)`, or undefined when the build has no such method or it throws. */
export function diffFor(conversation, method, key) {
  try {
    return typeof conversation?.[method] === 'function' ? conversation[method](key) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The diff of a trajectory request's prompt change: `changeDiff` of the header fact that carries
 * the change with this prompt (else the first that carries it), else `diffPrompts` of the change's
 * previous prompt and the request's prompt; undefined without a previous prompt.
 */
export function changeDiffFor(conversation, headers, change, prompt, diffPrompts) {
  if (!change?.previous || !prompt) return undefined;
  const carrying = headers.filter((header) => header.change?.seq === change.seq && header.change.kind === change.kind);
  const header = carrying.find((fact) => fact.prompt.system === prompt.system) ?? carrying[0];
  const diff = header ? diffFor(conversation, 'changeDiff', header.key) : undefined;
  if (diff || typeof diffPrompts !== 'function') return diff;
  try {
    return diffPrompts(change.previous, prompt);
  } catch {
    return undefined;
  }
}
