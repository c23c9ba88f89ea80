import type { SpendLimit } from '../api/types';
import { formatDollars, formatTokens } from './money';

/** "$1.00", "200,000 tokens", "$1.00 or 200,000 tokens", "no limit" (the server's limitText,
 *  for limits the page has but the server did not describe). */
export function describeLimit(l: SpendLimit): string {
  if (l.usd !== null && l.tokens !== null) return `${formatDollars(l.usd)} or ${formatTokens(l.tokens)}`;
  if (l.usd !== null) return formatDollars(l.usd);
  if (l.tokens !== null) return formatTokens(l.tokens);
  return 'no limit';
}
