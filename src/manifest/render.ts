import type { Drift, Plan } from './plan.js';

const SYMBOL: Record<string, string> = { create: '+', update: '~', delete: '-', unchanged: '=' };
const LABEL: Record<string, string> = {
  plugin: 'plugin',
  action: 'action',
  externalEvent: 'external event',
};

function short(value: unknown): string {
  const s = JSON.stringify(value ?? null);
  return s.length > 60 ? s.slice(0, 57) + '...' : s;
}

/** The plan as people read it. */
export function renderPlan(plan: Plan): string {
  const lines = ['Plan:'];
  for (const s of plan.steps) {
    lines.push(
      `  ${SYMBOL[s.op]} ${s.op.padEnd(9)} ${LABEL[s.resource]} ${s.name}${s.skipped ? `  (skipped: ${s.skipped})` : ''}`,
    );
    if (s.op === 'update')
      for (const c of s.changes) lines.push(`      ${c.field}: ${short(c.from)} -> ${short(c.to)}`);
  }
  const counts = (op: string) => plan.steps.filter((s) => s.op === op && !s.skipped).length;
  lines.push(
    '',
    `${counts('create')} to create, ${counts('update')} to update, ${counts('delete')} to delete, ${counts('unchanged')} unchanged.`,
  );
  return lines.join('\n') + '\n';
}

/** Drift as people read it. */
export function renderDrift(drift: Drift[]): string {
  const lines = ['Changed outside the manifest since the last deploy:'];
  for (const d of drift) {
    lines.push(`  ! ${d.kind.padEnd(8)} ${LABEL[d.resource]} ${d.name}`);
    for (const c of d.changes)
      lines.push(`      ${c.field}: deployed ${short(c.from)}, now ${short(c.to)}`);
  }
  return lines.join('\n') + '\n';
}
