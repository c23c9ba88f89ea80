/** +12 −3, the green and red of the diff's rows. */
export function LineCounts({ additions, deletions }: { additions: number; deletions: number }) {
  return (
    <span className="shrink-0 font-mono text-xs tabular-nums">
      <span className="text-emerald-700">+{additions}</span> <span className="text-red-700">−{deletions}</span>
    </span>
  );
}
