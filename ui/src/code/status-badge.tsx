import type { FileChangeStatus } from '../api/types';
import { Badge } from '../components/badge';

const look: Record<FileChangeStatus, { tone: 'green' | 'red' | 'blue'; label: string }> = {
  added: { tone: 'green', label: 'Added' },
  removed: { tone: 'red', label: 'Removed' },
  modified: { tone: 'blue', label: 'Changed' },
};

export function StatusBadge({ status }: { status: FileChangeStatus }) {
  const { tone, label } = look[status];
  return (
    <Badge tone={tone} className="shrink-0">
      <span data-status={status}>{label}</span>
    </Badge>
  );
}
