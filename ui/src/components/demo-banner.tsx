import { useRuntimes } from '../api/queries';

/** Says plainly when the builder's replies are scripted (scripts/run.sh without a key). */
export function DemoBanner() {
  const { data } = useRuntimes();
  if (!data?.demoProvider) return null;
  return (
    <div className="border-b border-amber-300 bg-amber-50 px-4 py-1.5 text-center text-xs text-amber-900" role="note" data-testid="demo-banner">
      <strong>Demo provider:</strong> the builder's replies are scripted, not a real model — the CLI, tools and build are real. Set <code className="font-mono">ANTHROPIC_API_KEY</code> and restart to build with a real model.
    </div>
  );
}
