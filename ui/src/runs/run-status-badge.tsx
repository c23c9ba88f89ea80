import type { RunStatus } from '../api/types';
import { Badge } from '../components/badge';

const tone = { pending: 'neutral', streaming: 'blue', completed: 'green', failed: 'red' } as const;
const label = { pending: 'Pending', streaming: 'Working', completed: 'Completed', failed: 'Failed' } as const;

/** A failed run a person stopped is not a failure to them: "Stopped by you", in neutral. */
export function RunStatusBadge({ status, stoppedByUser = false }: { status: RunStatus; stoppedByUser?: boolean }) {
  const stopped = status === 'failed' && stoppedByUser;
  return (
    <Badge tone={stopped ? 'neutral' : tone[status]} className="shrink-0">
      {status === 'streaming' ? <span className="size-1.5 animate-pulse rounded-full bg-sky-500" aria-hidden /> : null}
      {stopped ? 'Stopped by you' : label[status]}
    </Badge>
  );
}
