import { useVersionFile } from './version-queries';
import { ErrorNotice } from '../components/error-notice';
import { Spinner } from '../components/spinner';
import { CodeLines } from './code-lines';
import { formatBytes } from './format-bytes';

const wording = { not_found: 'This file is not in this version.' };

/** One file of a version: its path, its size, and its text. */
export function FileView({ workspaceId, appId, version, path, bytes }: { workspaceId: string; appId: string; version: number; path: string; bytes: number | undefined }) {
  const { data, error } = useVersionFile(workspaceId, appId, version, path);
  const slash = path.lastIndexOf('/');
  return (
    <div className="flex min-w-0 flex-col gap-2" data-testid="file-view" data-path={path}>
      <div className="flex min-w-0 items-baseline gap-3">
        <h2 className="min-w-0 truncate font-mono text-sm" title={path}>
          {slash >= 0 ? <span className="text-zinc-400">{path.slice(0, slash + 1)}</span> : null}
          <span className="font-medium text-zinc-900">{path.slice(slash + 1)}</span>
        </h2>
        {data ? (
          <span className="shrink-0 text-xs text-zinc-500">
            {lineCount(data.content)} line{lineCount(data.content) === 1 ? '' : 's'}
            {bytes !== undefined ? ` · ${formatBytes(bytes)}` : null}
          </span>
        ) : null}
      </div>
      {error ? (
        <ErrorNotice error={error} wording={wording} />
      ) : !data ? (
        <Spinner label="Loading the file" />
      ) : data.content === '' ? (
        <p className="rounded-lg border border-dashed border-zinc-300 px-4 py-6 text-center text-sm text-zinc-500">This file is empty.</p>
      ) : (
        <CodeLines path={path} content={data.content} />
      )}
    </div>
  );
}

function lineCount(content: string): number {
  if (content === '') return 0;
  const breaks = content.split('\n').length - 1;
  return content.endsWith('\n') ? breaks : breaks + 1;
}
