import type { RunStatus } from '../api/types';
import { Badge } from '../components/badge';

const tone = { pending: 'neutral', streaming: 'blue', completed: 'green', failed: 'red' } as const;
const label = { pending: 'Pending', streaming: 'Working', completed: 'Completed', failed: 'Failed' } as const;

export function RunStatusBadge({ status }: { status: RunStatus }) {
  return (
    <Badge tone={tone[status]} className="shrink-0">
      {status === 'streaming' ? <span className="size-1.5 animate-pulse rounded-full bg-sky-500" aria-hidden /> : null}
      {label[status]}
    </Badge>
  );
}
