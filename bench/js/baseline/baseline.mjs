// BENCHMARK BASELINE -- NOT PART OF THE PACKAGE.
//
// This file is an "upstream style" re-implementation of the system-prompt
// interpreter (docs/BEHAVIOUR.md sections 2 and 3), written from the spec solely to serve
// as the baseline in the benchmark against the promptfold Rust/wasm
// implementation. It is deliberately naive, the way the upstream TypeScript
// client works: every state is a fresh plain object, each relevant event copies
// the whole `replacements` Map and filters/copies the node array, each insert
// pushes and then re-sorts the node array by position, and the caller keeps
// every state. It is not optimised beyond that (and not made artificially slow).
// It is not shipped, not used by the crate, and not a reference for behaviour:
// docs/BEHAVIOUR.md and the conformance cases are.

function isReplaceOp(surfaceOp) {
  return (
    surfaceOp !== null &&
    typeof surfaceOp === 'object' &&
    surfaceOp.op === 'replace'
  );
}

function systemText(data) {
  const content = data?.message?.content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const block of content) {
    if (block && block.type === 'text' && typeof block.text === 'string') {
      text += block.text;
    }
  }
  return text;
}

function lastNonempty(nodes) {
  for (let i = nodes.length - 1; i >= 0; i--) {
    if (nodes[i].node.text !== '') return nodes[i].node;
  }
  return undefined;
}

/**
 * Fold one event into the system-prompt state (BEHAVIOUR.md section 2).
 * Irrelevant events return `previous` unchanged.
 */
export function inspectSystemPrompt(previous, event, windowStart) {
  const isSystem = event.type === 'system/message';
  const replace = isReplaceOp(event.surfaceOp) ? event.surfaceOp : undefined;
  if (!isSystem && !replace) return previous;

  const firstSeq = previous
    ? previous.firstSeq
    : windowStart !== undefined
      ? windowStart
      : event.seq;

  const replacements = new Map(previous ? previous.replacements : undefined);

  const unknown = (seq) => seq < firstSeq && !replacements.has(seq);
  const uncertain =
    previous?.uncertain ||
    (replace !== undefined && (unknown(replace.startSeq) || unknown(replace.endSeq)));

  if (uncertain) {
    return {
      firstSeq,
      uncertain: true,
      nodes: [],
      replacements: new Map(),
      effective: undefined,
      introduced: undefined,
    };
  }

  let nodes = previous ? previous.nodes.slice() : [];
  let position = event.seq;
  if (replace) {
    position = replacements.has(replace.startSeq)
      ? replacements.get(replace.startSeq)
      : replace.startSeq;
    const end = replacements.has(replace.endSeq)
      ? replacements.get(replace.endSeq)
      : replace.endSeq;
    nodes = nodes.filter((n) => n.position < position || n.position > end);
    for (const [seq, pos] of replacements) {
      if (pos >= position && pos <= end) replacements.delete(seq);
    }
    replacements.set(event.seq, position);
  }

  let introduced;
  if (isSystem) {
    const data = event.data || {};
    const isAppend = !replace;
    const hadNonempty =
      previous?.nodes.some((n) => n.node.text !== '') ?? false;
    introduced = {
      seq: event.seq,
      time: event.time,
      turn: data.turn,
      step: data.step,
      text: systemText(data),
      update: isAppend && hadNonempty,
    };
    nodes.push({ position, node: introduced });
    nodes.sort((a, b) => a.position - b.position);
  }

  const before = previous ? lastNonempty(previous.nodes) : undefined;
  const after = lastNonempty(nodes);
  let effective;
  if (before === after) {
    effective = previous ? previous.effective : undefined;
  } else if (after !== undefined && after === introduced) {
    effective = introduced;
  } else if (after !== undefined) {
    effective = {
      seq: event.seq,
      time: event.time,
      turn: after.turn,
      step: after.step,
      text: after.text,
      update: false,
    };
  } else {
    effective = {
      seq: event.seq,
      time: event.time,
      turn: 0,
      step: 0,
      text: '',
      update: false,
    };
  }

  return { firstSeq, uncertain: false, nodes, replacements, effective, introduced };
}

/**
 * Inspect one request/header against the previous prompt (BEHAVIOUR.md section 3).
 */
export function inspectRequestPrompt(previous, headerEvent, system) {
  const data = headerEvent.data || {};
  const header = data.header || {};
  const prompt = {
    config: header.config,
    system: system && system.text !== undefined ? system.text : '',
    tools: Array.isArray(header.tools) ? header.tools : [],
  };
  if (!previous && data.reason !== 'initial') return { prompt };

  const systemChanged =
    previous !== undefined &&
    previous.system !== prompt.system &&
    !(system && system.update === true);
  const toolsChanged =
    previous === undefined ||
    JSON.stringify(previous.tools) !== JSON.stringify(prompt.tools);
  if (previous !== undefined && !systemChanged && !toolsChanged) return { prompt };

  const kind =
    previous === undefined
      ? 'initial'
      : systemChanged && toolsChanged
        ? 'system-and-tools'
        : systemChanged
          ? 'system'
          : 'tools';
  const anchor = system && kind !== 'tools' ? system : headerEvent;
  const change = { seq: anchor.seq, time: anchor.time, kind };
  if (kind !== 'initial') change.previous = previous;
  return { prompt, change };
}

function nodeJson(node) {
  if (node === undefined) return null;
  return {
    seq: node.seq,
    time: node.time,
    turn: node.turn,
    step: node.step,
    text: node.text,
    update: node.update,
  };
}

/** The FORMAT.md SystemPromptState JSON shape. */
export function toStateJson(state) {
  return {
    firstSeq: state.firstSeq,
    uncertain: state.uncertain,
    nodes: state.nodes.map((n) => ({ position: n.position, node: nodeJson(n.node) })),
    replacements: Array.from(state.replacements).sort((a, b) => a[0] - b[0]),
    effective: nodeJson(state.effective),
    introduced: nodeJson(state.introduced),
  };
}
