import type { SpendLimit } from '../api/types';

/** A limit as its form fields hold it: the two units as typed. */
export interface LimitDraft {
  usd: string;
  tokens: string;
}

export const draftOf = (l: SpendLimit | null | undefined): LimitDraft => ({
  usd: l?.usd != null ? String(l.usd) : '',
  tokens: l?.tokens != null ? String(l.tokens) : '',
});

/** The limit the fields say (an empty field: no limit in that unit); a field that is not a
 *  positive number is left to the server, which names it. */
export const limitOf = (d: LimitDraft): SpendLimit => ({
  usd: d.usd.trim() === '' ? null : Number(d.usd),
  tokens: d.tokens.trim() === '' ? null : Number(d.tokens),
});
