import { useDetection, useRuntimes } from '../api/queries';

/** Says plainly when the builder's replies are scripted (scripts/run.sh without a key). Once a
 *  key is entered or the operator logs in with the CLI, the worker stops using the demo
 *  provider and the banner goes, without a restart. */
export function DemoBanner() {
  const { data } = useRuntimes();
  const { data: detected } = useDetection(!!data?.demoProvider);
  if (!data?.demoProvider || detected?.runtimes['runtime-a']?.demo === false) return null;
  return (
    <div className="border-b border-amber-300 bg-amber-50 px-4 py-1.5 text-center text-xs text-amber-900" role="note" data-testid="demo-banner">
      <strong>Demo provider:</strong> the builder's replies are scripted, not a real model — the CLI, tools and build are real.{' '}
      <a href="/onboarding/provider" className="underline">
        Enter a provider key
      </a>{' '}
      to build with a real model.
    </div>
  );
}
