import * as Collapsible from '@radix-ui/react-collapsible';
import type { IntegrationSetupInstructions } from '../api/types';

/** Where to get the credential, as the builder described it; closed until asked for. */
export function SetupInstructions({ instructions }: { instructions: IntegrationSetupInstructions | undefined }) {
  const steps = instructions?.steps ?? [];
  const links = instructions?.links ?? [];
  if (!instructions?.overview && !steps.length && !links.length) return null;
  return (
    <Collapsible.Root className="text-sm">
      <Collapsible.Trigger className="text-xs font-medium text-accent hover:underline">How to get it</Collapsible.Trigger>
      <Collapsible.Content className="mt-1 space-y-1 text-zinc-700">
        {instructions?.overview ? <p>{instructions.overview}</p> : null}
        {steps.length ? (
          <ol className="list-decimal space-y-0.5 pl-5">
            {steps.map((s, i) => (
              <li key={i}>
                {s.url ? <a className="text-accent underline" href={s.url} target="_blank" rel="noreferrer noopener">{s.title}</a> : <span className="font-medium">{s.title}</span>}
                {s.description ? <span className="text-zinc-600"> — {s.description}</span> : null}
              </li>
            ))}
          </ol>
        ) : null}
        {links.length ? (
          <p className="flex flex-wrap gap-3">
            {links.map((l, i) => (
              <a key={i} className="text-accent underline" href={l.url} target="_blank" rel="noreferrer noopener">
                {l.label ?? l.url}
              </a>
            ))}
          </p>
        ) : null}
      </Collapsible.Content>
    </Collapsible.Root>
  );
}
