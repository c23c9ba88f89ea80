const dollars = new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const count = new Intl.NumberFormat('en');

/** Spend as a person reads it: dollars to the cent (a fraction of a cent shows as <$0.01). */
export function formatDollars(usd: number): string {
  if (usd > 0 && usd < 0.005) return '<$0.01';
  return dollars.format(usd);
}

export const formatTokens = (n: number) => `${count.format(n)} tokens`;
