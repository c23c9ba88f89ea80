import { useState } from 'react';
import type { VersionSummary } from '../api/types';
import { Button } from '../components/button';
import { ErrorNotice } from '../components/error-notice';
import { CollapsiblePanel } from './collapsible-panel';
import { DiffView } from './diff-view';
import { VersionList } from './version-list';
import { versionLabel } from './version-label';

interface Older {
  error: unknown;
  loading: boolean;
  more: boolean;
  loadMore: () => void;
}

/** Each turn's changes: the versions newest first beside (below md: above, folded) the diff of
 *  the chosen one, against the one before it or the version `from`. */
export function ChangesView({ workspaceId, appId, versions, selected, onSelect, from, onCompare, older }: { workspaceId: string; appId: string; versions: VersionSummary[]; selected: number; onSelect: (n: number) => void; from: number | null; onCompare: (from: number | null) => void; older: Older }) {
  const [listOpen, setListOpen] = useState(false);
  const summary = versions.find((v) => v.number === selected);
  return (
    <div className="min-h-0 flex-1 overflow-y-auto md:flex md:overflow-hidden">
      <aside className="border-b border-zinc-200 bg-zinc-50 md:w-72 md:shrink-0 md:overflow-y-auto md:border-r md:border-b-0 lg:w-80">
        <CollapsiblePanel title={summary ? versionLabel(summary) : `Version ${selected}`} open={listOpen} onOpenChange={setListOpen} testId="versions-panel">
          <VersionList
            versions={versions}
            selected={selected}
            onSelect={(n) => {
              setListOpen(false);
              onSelect(n);
            }}
          />
          <ErrorNotice error={older.error} className="mt-2" />
          {older.more || older.loading ? (
            <Button variant="ghost" className="mt-1 w-full" onClick={older.loadMore} disabled={older.loading}>
              {older.loading ? 'Loading older versions…' : 'Show older versions'}
            </Button>
          ) : null}
        </CollapsiblePanel>
      </aside>
      <section className="min-w-0 flex-1 p-3 md:overflow-y-auto md:p-4" aria-label="Changes">
        <DiffView
          workspaceId={workspaceId}
          appId={appId}
          version={selected}
          summary={summary}
          latest={versions[0]?.number ?? selected}
          onRestored={onSelect}
          versions={versions}
          from={from}
          onCompare={onCompare}
        />
      </section>
    </div>
  );
}
