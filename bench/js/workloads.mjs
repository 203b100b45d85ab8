// The benchmark workloads: name, generator kind, size parameter and seed (see gen.mjs).
// `size` is events for `typical`, pruned tool results for `prune`, steps for `update`.
export const WORKLOADS = [
  { name: 'typical-10k', kind: 'typical', size: 10_000, seed: 10, label: 'typical, 10,000 events' },
  { name: 'typical-100k', kind: 'typical', size: 100_000, seed: 100, label: 'typical, 100,000 events' },
  { name: 'prune-2k', kind: 'prune', size: 2_000, seed: 2, label: 'prune-heavy, 2,000 prunes' },
  { name: 'prune-8k', kind: 'prune', size: 8_000, seed: 8, label: 'prune-heavy, 8,000 prunes' },
  { name: 'prune-32k', kind: 'prune', size: 32_000, seed: 32, label: 'prune-heavy, 32,000 prunes' },
  { name: 'update-10k', kind: 'update', size: 10_000, seed: 7, label: 'update-heavy, 10,000 steps' },
];
