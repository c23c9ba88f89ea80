import type { RunStatus } from '../api/types';
import { Badge } from '../components/badge';

const tone = { pending: 'neutral', streaming: 'blue', completed: 'green', failed: 'red' } as const;
const label = { pending: 'Pending', streaming: 'Working', completed: 'Completed', failed: 'Failed' } as const;

/** In words a person reads: a failed run a person stopped is "Stopped by you" (neutral), one a
 *  budget stopped "Budget reached" (amber), and a completed turn that ended on a card waiting
 *  for approval is "Waiting for your approval". */
export function RunStatusBadge({
  status,
  stoppedBy = null,
  awaitingApproval = false,
}: {
  status: RunStatus;
  stoppedBy?: string | null;
  awaitingApproval?: boolean;
}) {
  const stopped = status === 'failed' && stoppedBy === 'user';
  const budget = status === 'failed' && stoppedBy === 'budget';
  const waiting = status === 'completed' && awaitingApproval;
  return (
    <Badge tone={stopped ? 'neutral' : budget || waiting ? 'amber' : tone[status]} className="shrink-0">
      {status === 'streaming' ? <span className="size-1.5 animate-pulse rounded-full bg-sky-500" aria-hidden /> : null}
      {stopped ? 'Stopped by you' : budget ? 'Budget reached' : waiting ? 'Waiting for your approval' : label[status]}
    </Badge>
  );
}
