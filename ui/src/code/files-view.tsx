import { useState } from 'react';
import { useVersion } from './version-queries';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { defaultFile } from './build-tree';
import { CollapsiblePanel } from './collapsible-panel';
import { FileTree } from './file-tree';
import { FileView } from './file-view';
import { formatBytes } from './format-bytes';

/** A version's tree beside the open file (from md up), or above it, folding away once a file
 *  is chosen (below md). */
export function FilesView({ workspaceId, appId, version, path, onOpen }: { workspaceId: string; appId: string; version: number; path: string | null; onOpen: (path: string) => void }) {
  const { data, error } = useVersion(workspaceId, appId, version);
  // Below md only: the tree starts open until the address names a file.
  const [treeOpen, setTreeOpen] = useState(path === null);
  if (error) return <ErrorNotice error={error} className="m-4" />;
  if (!data) return <div className="p-4"><Spinner label="Loading the version" /></div>;
  // A file the address names but this version lacks (another version's): the main file instead.
  const open = path !== null && data.files.some((f) => f.path === path) ? path : defaultFile(data.files);
  return (
    <div className="min-h-0 flex-1 overflow-y-auto md:flex md:overflow-hidden">
      <aside className="border-b border-zinc-200 bg-zinc-50 md:w-64 md:shrink-0 md:overflow-y-auto md:border-r md:border-b-0 lg:w-72">
        <CollapsiblePanel
          title={<>Files <span className="text-zinc-400">· {data.fileCount} · {formatBytes(data.totalBytes)}</span>{open ? <span className="font-mono text-zinc-500"> · {open}</span> : null}</>}
          open={treeOpen}
          onOpenChange={setTreeOpen}
          testId="tree-panel"
        >
          <p className="hidden px-2 pb-1 text-xs text-zinc-500 md:block">
            {data.fileCount} file{data.fileCount === 1 ? '' : 's'} · {formatBytes(data.totalBytes)}
          </p>
          <FileTree
            files={data.files}
            selected={open}
            onOpen={(p) => {
              setTreeOpen(false);
              onOpen(p);
            }}
          />
        </CollapsiblePanel>
      </aside>
      <section className="min-w-0 flex-1 p-3 md:overflow-y-auto md:p-4" aria-label="File">
        {open ? (
          <FileView workspaceId={workspaceId} appId={appId} version={version} path={open} bytes={data.files.find((f) => f.path === open)?.bytes} />
        ) : (
          <p className="text-sm text-zinc-500">This version has no files.</p>
        )}
      </section>
    </div>
  );
}
