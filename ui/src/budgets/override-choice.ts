import type { SpendLimit } from '../api/types';
import { draftOf, limitOf, type LimitDraft } from './limit-draft';

/** An app's override of one limit as its form holds it: the workspace's default, no limit
 *  for this app, or a limit of its own. */
export interface OverrideDraft {
  mode: 'default' | 'none' | 'custom';
  custom: LimitDraft;
}

export function overrideDraftOf(o: SpendLimit | null): OverrideDraft {
  if (o === null) return { mode: 'default', custom: draftOf(null) };
  if (o.usd === null && o.tokens === null) return { mode: 'none', custom: draftOf(null) };
  return { mode: 'custom', custom: draftOf(o) };
}

export function overrideOf(d: OverrideDraft): SpendLimit | null {
  if (d.mode === 'default') return null;
  if (d.mode === 'none') return { usd: null, tokens: null };
  return limitOf(d.custom);
}
