import type { VersionSummary } from '../api/types';

/** "today at 10:42", "yesterday at 10:42", or the day (and the year when it is not this one). */
export function versionTime(at: number): string {
  const d = new Date(at);
  const time = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const now = new Date();
  const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1);
  if (d.toDateString() === now.toDateString()) return `today at ${time}`;
  if (d.toDateString() === yesterday.toDateString()) return `yesterday at ${time}`;
  const day = d.toLocaleDateString([], d.getFullYear() === now.getFullYear() ? { day: 'numeric', month: 'short' } : { day: 'numeric', month: 'short', year: 'numeric' });
  return `${day} at ${time}`;
}

/** Version 3 · today at 10:42 · “Add a due date” */
export function versionLabel(v: Pick<VersionSummary, 'number' | 'createdAt' | 'request'>): string {
  const parts = [`Version ${v.number}`, versionTime(v.createdAt)];
  if (v.request.trim()) parts.push(`“${v.request.trim()}”`);
  return parts.join(' · ');
}

/** What the turn did to the files, in words: "1 added, 2 changed". */
export function changesSummary(v: Pick<VersionSummary, 'changes'>): string {
  const { added, removed, modified } = v.changes;
  const parts = [];
  if (added) parts.push(`${added} added`);
  if (modified) parts.push(`${modified} changed`);
  if (removed) parts.push(`${removed} removed`);
  return parts.length ? parts.join(', ') : 'No files changed';
}
